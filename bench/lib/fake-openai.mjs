// A stand-in LLM for the benchmarks: an OpenAI-compatible
// `/v1/chat/completions` endpoint on 127.0.0.1 that the service reaches over
// real HTTP (MODEL=openai-compatible:<id>, OPENAI_COMPATIBLE_BASE_URL). What it
// answers is decided by a `decide(body)` policy the benchmark passes in, so
// each benchmark scripts its own "model". It records the size of every
// request in bytes — the whole JSON body: system prompt, messages and tool
// definitions — which is what a provider bills and what the context-cost
// benchmark compares.
import http from 'node:http';

/**
 * @typedef {{ text: string, chunkChars?: number, delayMs?: number }
 *   | { toolCalls: Array<{ name: string, args: object }> }} Step
 *   `text` is streamed `chunkChars` characters per chunk (default: word by word).
 * @typedef {{ bytes: number, body: any, step: Step }} Recorded
 */

/**
 * @param {{ port: number, decide: (body: any, request: { bytes: number }) => Step, keepBodies?: boolean }} options
 *   keepBodies: false records sizes and steps only (a long run of multi-MB requests would hold them all in memory).
 * @returns {Promise<{ baseUrl: string, requests: Recorded[], reset(): void, close(): Promise<void> }>}
 */
export async function startFakeOpenAI({ port, decide, keepBodies = true }) {
  /** @type {Recorded[]} */
  let requests = [];
  let calls = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) return void res.writeHead(404).end();
      const raw = Buffer.concat(chunks);
      let body;
      let step;
      try {
        body = JSON.parse(raw.toString('utf8'));
        step = decide(body, { bytes: raw.byteLength });
      } catch (error) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: String(error?.message ?? error) } }));
        return;
      }
      requests.push({ bytes: raw.byteLength, body: keepBodies ? body : undefined, step });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (delta, finish = null) =>
        res.write(
          `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'fake', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
        );
      if ('toolCalls' in step) {
        send({
          role: 'assistant',
          tool_calls: step.toolCalls.map((call, index) => ({
            index,
            id: `call_${++calls}`,
            type: 'function',
            function: { name: call.name, arguments: JSON.stringify(call.args) },
          })),
        });
        send({}, 'tool_calls');
      } else {
        const pieces = step.chunkChars ? (step.text.match(new RegExp(`[^]{1,${step.chunkChars}}`, 'g')) ?? []) : (step.text.match(/\S+\s*/g) ?? []);
        for (const piece of pieces) {
          if (res.destroyed) return;
          send({ role: 'assistant', content: piece });
          if (step.delayMs) await new Promise((r) => setTimeout(r, step.delayMs));
        }
        send({}, 'stop');
      }
      const promptTokens = Math.ceil(raw.byteLength / 4);
      res.write(
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'fake', choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: 5, total_tokens: promptTokens + 5 } })}\n\n`,
      );
      res.end('data: [DONE]\n\n');
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
    reset() {
      requests = [];
    },
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** The text of an OpenAI chat message's content (a string or an array of parts). */
export function contentText(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('');
  return '';
}
