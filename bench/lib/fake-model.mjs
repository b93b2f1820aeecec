// A stand-in LLM for the benchmarks and the provider tests: one HTTP server on
// 127.0.0.1 that speaks three wire formats, so the service reaches it through
// the real provider packages —
//   POST /v1/chat/completions  OpenAI chat (MODEL=openai-compatible:<id>, OPENAI_COMPATIBLE_BASE_URL)
//   POST /v1/responses         OpenAI Responses (MODEL=openai:<id>, OPENAI_BASE_URL)
//   POST /v1/messages          Anthropic Messages (MODEL=anthropic:<id>, ANTHROPIC_BASE_URL)
// What it answers is decided by a `decide(body)` policy the caller passes in,
// always given the request as an OpenAI chat body (messages with `tool_calls`
// and `tool` results, `tools` as functions; none when the request says
// `tool_choice: none`), so one policy scripts every format. It records every
// request: its wire format, its size in bytes, the body exactly as the
// provider package sent it (what a provider bills, and where its cache
// breakpoints are), and the step it answered. Tests in workerd read them over
// HTTP: `GET /__requests` (the recorded requests, oldest first), `POST /__reset`.
import http from 'node:http';

/**
 * @typedef {{ text: string, chunkChars?: number, delayMs?: number }
 *   | { toolCalls: Array<{ name: string, args: object }> }} Step
 *   `text` is streamed `chunkChars` characters per chunk (default: word by word).
 * @typedef {'chat' | 'responses' | 'messages'} Api
 * @typedef {{ api: Api, bytes: number, body: any, chat: any, step: Step, headers: Record<string, string | string[] | undefined>, at: number }} Recorded
 *   `at`: when the request arrived (ms since the epoch).
 */

const ROUTES = { '/chat/completions': 'chat', '/responses': 'responses', '/messages': 'messages' };

/**
 * @param {{ port: number, decide: (chat: any, request: { bytes: number, api: Api }) => Step, keepBodies?: boolean }} options
 *   keepBodies: false records sizes and steps only (a long run of multi-MB requests would hold them all in memory).
 * @returns {Promise<{ baseUrl: string, requests: Recorded[], item(id: string): any, reset(): void, close(): Promise<void> }>}
 *   item(id): a Responses output item this server streamed (what an `item_reference` in a later request stands for).
 */
export async function startFakeModel({ port, decide, keepBodies = true }) {
  /** @type {Recorded[]} */
  let requests = [];
  let ids = 0;
  /** Responses output items by id: the OpenAI provider refers back to them (`item_reference`) when `store` is on. */
  const items = new Map();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    const at = Date.now();
    req.on('end', async () => {
      if (req.url === '/__requests')
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(requests));
      if (req.url === '/__reset') return void ((requests = []), res.writeHead(204).end());
      const api = ROUTES[Object.keys(ROUTES).find((path) => req.url?.split('?')[0].endsWith(path)) ?? ''];
      if (req.method !== 'POST' || !api) return void res.writeHead(404).end();
      const raw = Buffer.concat(chunks);
      let body;
      let chat;
      let step;
      try {
        body = JSON.parse(raw.toString('utf8'));
        chat = api === 'chat' ? body : api === 'messages' ? messagesToChat(body) : responsesToChat(body, items);
        step = decide(chat, { bytes: raw.byteLength, api });
      } catch (error) {
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: String(error?.message ?? error) } }));
        return;
      }
      requests.push({
        api,
        bytes: raw.byteLength,
        body: keepBodies ? body : undefined,
        chat: keepBodies ? chat : undefined,
        step,
        headers: req.headers,
        at,
      });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const usage = { input: Math.ceil(raw.byteLength / 4), output: 5 };
      const writer = { chat: writeChat, responses: writeResponses, messages: writeMessages }[api];
      await writer(res, step, usage, () => ++ids, items);
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return requests;
    },
    item: (id) => items.get(id),
    reset() {
      requests = [];
    },
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/**
 * A Responses body with its `item_reference`s replaced by the items `fake` streamed (billed as input all the same):
 * the body as a provider prices it.
 */
export function withItems(body, fake) {
  if (!Array.isArray(body.input)) return body;
  const input = body.input.map((entry) => {
    if (entry.type !== 'item_reference') return entry;
    const item = fake.item(entry.id);
    if (!item) throw new Error(`item_reference ${entry.id}: not an item the fake model streamed`);
    return item;
  });
  return { ...body, input };
}

/** The text of an OpenAI chat message's content (a string or an array of parts). */
export function contentText(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('');
  return '';
}

/** `step.text` in the pieces a model would stream: word by word, or `chunkChars` at a time. */
const pieces = (step) =>
  step.chunkChars
    ? (step.text.match(new RegExp(`[^]{1,${step.chunkChars}}`, 'g')) ?? [])
    : (step.text.match(/\S+\s*/g) ?? []);
const sse = (res, data, event) => res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
const pause = (ms) => (ms ? new Promise((r) => setTimeout(r, ms)) : undefined);

// ---- requests as an OpenAI chat body, for the policy ----------------------------------

/** An Anthropic Messages request as a chat body: system blocks, text, tool_use / tool_result blocks. */
function messagesToChat(body) {
  const text = (blocks) =>
    typeof blocks === 'string'
      ? blocks
      : (blocks ?? [])
          .filter((b) => b.type === 'text' || b.type === 'tool_reference')
          .map((b) => (b.type === 'text' ? b.text : `[tool loaded: ${b.tool_name}]`))
          .join('');
  // Deferred tools (`defer_loading`) are the model's only once a tool result references them, as Anthropic loads them.
  const referenced = new Set(
    (body.messages ?? []).flatMap((m) =>
      typeof m.content === 'string'
        ? []
        : m.content
            .filter((b) => b.type === 'tool_result' && Array.isArray(b.content))
            .flatMap((b) => b.content.filter((c) => c.type === 'tool_reference').map((c) => c.tool_name)),
    ),
  );
  const messages = [];
  const system = typeof body.system === 'string' ? body.system : text(body.system);
  if (system) messages.push({ role: 'system', content: system });
  for (const m of body.messages ?? []) {
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    if (m.role === 'assistant') {
      const calls = blocks.filter((b) => b.type === 'tool_use');
      messages.push({
        role: 'assistant',
        content: text(blocks) || null,
        ...(calls.length
          ? {
              tool_calls: calls.map((b) => ({
                id: b.id,
                type: 'function',
                function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) },
              })),
            }
          : {}),
      });
      continue;
    }
    for (const b of blocks.filter((b) => b.type === 'tool_result'))
      messages.push({ role: 'tool', tool_call_id: b.tool_use_id, content: text(b.content) });
    const said = text(blocks);
    if (said) messages.push({ role: 'user', content: said });
  }
  const tools =
    body.tool_choice?.type === 'none'
      ? []
      : (body.tools ?? [])
          .filter((t) => !t.defer_loading || referenced.has(t.name))
          .map((t) => ({
            type: 'function',
            function: { name: t.name, description: t.description, parameters: t.input_schema },
          }));
  return { model: body.model, messages, tools };
}

/** An OpenAI Responses request as a chat body: instructions, input items (references resolved), function tools. */
function responsesToChat(body, items) {
  const text = (content) => (typeof content === 'string' ? content : (content ?? []).map((p) => p.text ?? '').join(''));
  const messages = [];
  // Tools given mid-conversation (`additional_tools` items, after a tool result) are the model's from there on.
  const added = [];
  if (body.instructions) messages.push({ role: 'system', content: body.instructions });
  for (const entry of body.input ?? []) {
    const item = entry.type === 'item_reference' ? items.get(entry.id) : entry;
    if (!item) throw new Error(`unknown item_reference ${entry.id}`);
    if (item.type === 'additional_tools') {
      added.push(...item.tools.filter((t) => t.type === 'function'));
    } else if (item.type === 'function_call') {
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } }],
      });
    } else if (item.type === 'function_call_output') {
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: text(item.output) });
    } else if (item.role) {
      messages.push({ role: item.role === 'developer' ? 'system' : item.role, content: text(item.content) });
    }
  }
  const tools =
    body.tool_choice === 'none'
      ? []
      : [...(body.tools ?? []), ...added]
          .filter((t) => t.type === 'function')
          .map((t) => ({
            type: 'function',
            function: { name: t.name, description: t.description, parameters: t.parameters },
          }));
  return { model: body.model, messages, tools };
}

// ---- answers, one writer per wire format ---------------------------------------------

async function writeChat(res, step, usage, nextId) {
  const send = (delta, finish = null) =>
    sse(res, {
      id: 'c',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'fake',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  if ('toolCalls' in step) {
    send({
      role: 'assistant',
      tool_calls: step.toolCalls.map((call, index) => ({
        index,
        id: `call_${nextId()}`,
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.args) },
      })),
    });
    send({}, 'tool_calls');
  } else {
    for (const piece of pieces(step)) {
      if (res.destroyed) return;
      send({ role: 'assistant', content: piece });
      await pause(step.delayMs);
    }
    send({}, 'stop');
  }
  const u = { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output };
  sse(res, { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'fake', choices: [], usage: u });
  res.end('data: [DONE]\n\n');
}

async function writeResponses(res, step, usage, nextId, items) {
  const id = `resp_${nextId()}`;
  sse(res, { type: 'response.created', response: { id, created_at: 0, model: 'fake' } }, 'response.created');
  const done = [];
  if ('toolCalls' in step) {
    step.toolCalls.forEach((call, index) => {
      const n = nextId();
      const item = {
        type: 'function_call',
        id: `fc_${n}`,
        call_id: `call_${n}`,
        name: call.name,
        arguments: JSON.stringify(call.args),
      };
      sse(
        res,
        { type: 'response.output_item.added', output_index: index, item: { ...item, arguments: '' } },
        'response.output_item.added',
      );
      sse(
        res,
        { type: 'response.output_item.done', output_index: index, item: { ...item, status: 'completed' } },
        'response.output_item.done',
      );
      done.push(item);
    });
  } else {
    const item = {
      type: 'message',
      id: `msg_${nextId()}`,
      role: 'assistant',
      content: [{ type: 'output_text', text: step.text }],
    };
    sse(
      res,
      { type: 'response.output_item.added', output_index: 0, item: { type: 'message', id: item.id } },
      'response.output_item.added',
    );
    for (const piece of pieces(step)) {
      if (res.destroyed) return;
      sse(
        res,
        { type: 'response.output_text.delta', item_id: item.id, output_index: 0, delta: piece },
        'response.output_text.delta',
      );
      await pause(step.delayMs);
    }
    sse(
      res,
      { type: 'response.output_item.done', output_index: 0, item: { type: 'message', id: item.id } },
      'response.output_item.done',
    );
    done.push(item);
  }
  for (const item of done) items.set(item.id, item);
  const u = {
    input_tokens: usage.input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.output,
    total_tokens: usage.input + usage.output,
  };
  sse(res, { type: 'response.completed', response: { usage: u } }, 'response.completed');
  res.end();
}

async function writeMessages(res, step, usage, nextId) {
  const ev = (data) => sse(res, data, data.type);
  ev({
    type: 'message_start',
    message: {
      id: `msg_${nextId()}`,
      role: 'assistant',
      model: 'fake',
      content: [],
      usage: { input_tokens: usage.input, output_tokens: 1 },
    },
  });
  if ('toolCalls' in step) {
    step.toolCalls.forEach((call, index) => {
      ev({
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: `toolu_${nextId()}`, name: call.name, input: {} },
      });
      ev({
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.args) },
      });
      ev({ type: 'content_block_stop', index });
    });
  } else {
    ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    for (const piece of pieces(step)) {
      if (res.destroyed) return;
      ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } });
      await pause(step.delayMs);
    }
    ev({ type: 'content_block_stop', index: 0 });
  }
  ev({
    type: 'message_delta',
    delta: { stop_reason: 'toolCalls' in step ? 'tool_use' : 'end_turn' },
    usage: { output_tokens: usage.output },
  });
  ev({ type: 'message_stop' });
  res.end();
}
