// The chat clients as frontends really use them, in Chromium against the
// service under `wrangler dev`: the AI SDK's `useChat` (HTTP, nothing set
// but `api` and the token) and `useAgentChat` + `useAgent` (WebSocket),
// both rendered with react-dom (test/browser/clients/app.ts). The model is
// a fake OpenAI-compatible server reached over real HTTP, so a stop can be
// seen arriving at the model call (test/browser/fake-model.ts).
import { createHash, randomBytes } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import type { UIMessage } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mintToken } from '../../scripts/mint-token.mjs';
import { BROWSER_PORTS } from '../infra/ports';
import { makePdf } from '../infra/pdf-fixtures';
import { launchChromium, screenshot } from './chromium';
import { startClientPage } from './clients/page';
import { startFakeModel, type FakeModel } from './fake-model';
import { startService, type Service } from './service';

const SECRET = 'app-browser-token-secret-0123456789';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

let service: Service;
let model: FakeModel;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let clientPage: { url: string; close(): Promise<void> };
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  model = await startFakeModel(BROWSER_PORTS.fakeModel);
  clientPage = await startClientPage(BROWSER_PORTS.clientPage);
  [service, chromium] = await Promise.all([
    startService(BROWSER_PORTS.clientService, {
      TENANTS: JSON.stringify([
        {
          id: 'app',
          apiKeySha256: [sha256('app-api-key')],
          tokenSecret: 'secret:APP_TOKEN_SECRET',
          allowedOrigins: [clientPage.url],
        },
      ]),
      APP_TOKEN_SECRET: SECRET,
      MODEL: 'openai-compatible:fake',
      OPENAI_COMPATIBLE_BASE_URL: model.baseUrl,
      // The demo MCP server is off with TENANTS unless enabled (it answers anyone); these tests use it — and again as
      // "gated", not trusted for its annotations, so that its read-only build_report waits for approval there.
      DEMO_MCP_ENABLED: 'true',
      MCP_SERVERS: JSON.stringify([
        { id: 'demo', url: '/demo/mcp', trustAnnotations: true },
        { id: 'gated', url: '/demo/mcp' },
      ]),
    }),
    launchChromium(),
  ]);
});
afterAll(async () => {
  await chromium?.close();
  await service?.stop();
  await clientPage?.close();
  await model?.close();
});
afterEach(async (ctx) => {
  for (const context of contexts.splice(0)) {
    if (ctx.task.result?.state === 'fail')
      for (const page of context.pages())
        await screenshot(page, `failed-clients-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
    await context.close();
  }
});

/** Every user of these tests is new: no turn limit or conversation of one test touches another. */
const newUser = () => ({ user: `u${randomBytes(6).toString('hex')}`, token: '' });
const tokenFor = (user: string) => mintToken({ tenant: 'app', user, secret: SECRET, minutes: 10 });
const chatId = () => randomBytes(12).toString('base64url'); // as useChat makes them: random, ≥ 16 characters

type Frame = {
  type: string;
  id?: string;
  body?: string;
  done?: boolean;
  replay?: boolean;
  replayComplete?: boolean;
  continuation?: boolean;
};

/** One tab of a frontend with one of the two clients, on one conversation; the WebSocket frames it received are kept. */
async function openClient(client: 'http' | 'ws', conversation: string, token: string) {
  const context = await chromium.browser.newContext();
  contexts.push(context);
  const page = await context.newPage();
  const frames: Frame[] = [];
  page.on('websocket', (socket) =>
    socket.on('framereceived', (f) => frames.push(JSON.parse(String(f.payload)) as Frame)),
  );
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const url = `${clientPage.url}/?${new URLSearchParams({ client, service: service.url, conversation, token })}`;
  await page.goto(url);
  await expect.poll(() => page.evaluate(() => Boolean(window.chat)), { timeout: 15_000 }).toBe(true);
  return { page, frames, errors, url };
}

const state = (page: Page) =>
  page.evaluate(() => ({ status: window.chat!.status, messages: window.chat!.messages, errors: window.errors }));
const textOf = (message: UIMessage | undefined) =>
  (message?.parts ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('');
const lastText = async (page: Page) => textOf((await state(page)).messages.at(-1));
const taskStatus = (message: UIMessage | undefined) =>
  (message?.parts.find((p) => p.type === 'data-task') as { data?: { status?: string } } | undefined)?.data?.status;

/** Waits for the hook to be idle again (the turn's end as the client sees it), then returns its messages. */
async function settled(page: Page): Promise<UIMessage[]> {
  await expect.poll(async () => (await state(page)).status, { timeout: 20_000 }).toBe('ready');
  return (await state(page)).messages;
}

/** What the service holds for the conversation. */
async function stored(conversation: string, token: string): Promise<UIMessage[]> {
  const response = await fetch(`${service.url}/v1/conversations/${conversation}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { messages: UIMessage[] }).messages;
}

/** The service holds no message of the conversation, and a reload of `page` brings none back. */
async function emptiedForGood(page: Page, id: string, token: string): Promise<void> {
  await expect.poll(async () => (await stored(id, token)).length, { timeout: 10_000 }).toBe(0);
  await page.reload();
  await expect.poll(() => page.evaluate(() => window.chat?.messages.length), { timeout: 15_000 }).toBe(0);
}

async function newConversation(token: string): Promise<string> {
  const response = await fetch(`${service.url}/v1/conversations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}` },
  });
  return ((await response.json()) as { id: string }).id;
}

type Question = { id: string; status: string; message: string };
const questionIn = (messages: UIMessage[]) =>
  messages.flatMap((m) => m.parts).find((p) => p.type === 'data-elicitation') as { data: Question } | undefined;

const toolPart = (messages: UIMessage[]) =>
  messages.flatMap((m) => m.parts).find((p) => 'toolCallId' in p) as { toolCallId: string; state: string } | undefined;

/**
 * A call into the tab that resolves when the hook says so (useAgentChat's `send` when its request's stream is done):
 * one that never does fails within `ms`, saying where it stuck and what the tab holds — not as the test's timeout.
 */
async function inTab<T>(
  client: { page: Page; frames: Frame[] },
  label: string,
  call: Promise<T>,
  ms = 20_000,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(async () => {
      const { status, messages, errors } = await state(client.page).catch(() => ({
        status: '?',
        messages: [],
        errors: [],
      }));
      const frames = client.frames.map((f) =>
        f.body ? `${f.type}:${JSON.parse(f.body).type}` : f.done ? `${f.type}:done` : f.type,
      );
      reject(
        new Error(
          `${label} did not return within ${ms} ms; the tab: status ${status}, ${messages.length} messages, errors ${JSON.stringify(errors)}, frames ${frames.slice(-30).join(' ')}`,
        ),
      );
    }, ms);
  });
  try {
    return await Promise.race([call, stuck]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits until the slow answer is being written (a few words in). */
async function writing(page: Page): Promise<void> {
  await expect.poll(async () => (await lastText(page)).split(' ').length, { timeout: 15_000 }).toBeGreaterThan(5);
}

describe('useChat (HTTP) with only `api` set', () => {
  it("sends and streams; the chat id becomes the caller's conversation, and another user's id is 404", async () => {
    const { user } = newUser();
    const token = await tokenFor(user);
    const id = chatId();
    const { page } = await openClient('http', id, token);
    await page.evaluate(() => window.chat!.send('hello there'));
    const messages = await settled(page);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(textOf(messages[1])).toBe('You said: hello there');
    expect((await stored(id, token)).map((m) => textOf(m))).toEqual(['hello there', 'You said: hello there']);
    const stranger = await fetch(`${service.url}/v1/chat`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${await tokenFor('someone-else')}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        id,
        messages: [{ id: 'x', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
        trigger: 'submit-message',
      }),
    });
    expect(stranger.status).toBe(404);
  });

  it("approves and denies through the SDK's own flow (addToolApprovalResponse, then the automatic send)", async () => {
    const token = await tokenFor(newUser().user);
    for (const approved of [true, false]) {
      const id = chatId();
      const { page } = await openClient('http', id, token);
      await page.evaluate(() => window.chat!.send('please create a task called Buy milk'));
      const asked = toolPart(await settled(page))!;
      expect(asked.state).toBe('approval-requested');
      await page.evaluate(({ toolCallId, approved }) => window.chat!.approve(toolCallId, approved), {
        toolCallId: asked.toolCallId,
        approved,
      });
      await expect
        .poll(async () => toolPart((await state(page)).messages)?.state, { timeout: 20_000 })
        .toBe(approved ? 'output-available' : 'output-denied');
      const messages = await settled(page);
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
      const answer = textOf(messages[1]);
      expect(answer.match(/Done:/g)).toHaveLength(1);
      if (approved) expect(answer).toContain('Buy milk');
      expect(
        (await stored(id, token))
          .at(-1)
          ?.parts.some((p) => 'toolCallId' in p && p.state === (approved ? 'output-available' : 'output-denied')),
      ).toBe(true);
    }
  });

  it('stop reaches the model call; the partial answer is kept, marked stopped; the next message is accepted at once', async () => {
    const token = await tokenFor(newUser().user);
    const id = chatId();
    const { page } = await openClient('http', id, token);
    const abortedBefore = model.aborted;
    void page.evaluate(() => window.chat!.send('write slowly please'));
    await writing(page);
    await page.evaluate(() => window.chat!.stop());
    await expect.poll(() => model.aborted, { timeout: 10_000 }).toBe(abortedBefore + 1);
    await expect
      .poll(async () => (await stored(id, token)).at(-1)?.metadata, { timeout: 10_000 })
      .toMatchObject({ stopped: true, finishReason: 'stopped' });
    const partial = textOf((await stored(id, token)).at(-1));
    expect(partial).toContain('word0');
    expect(partial).not.toContain('word199');
    await page.evaluate(() => window.chat!.send('are you there'));
    expect(textOf((await settled(page)).at(-1))).toBe('You said: are you there');
  });

  it('regenerate replaces the answer: stored once, and the model sees the question once', async () => {
    const token = await tokenFor(newUser().user);
    const id = chatId();
    const { page } = await openClient('http', id, token);
    await page.evaluate(() => window.chat!.send('first question'));
    const first = await settled(page);
    await page.evaluate(() => window.chat!.regenerate());
    const after = await settled(page);
    expect(after.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(after[1]!.id).not.toBe(first[1]!.id);
    const saved = await stored(id, token);
    expect(saved.map((m) => m.id)).toEqual([first[0]!.id, after[1]!.id]);
    const sent = model.requests.at(-1)!.messages.filter((m) => m.role !== 'system');
    expect(sent.map((m) => m.role)).toEqual(['user']);
  });

  it("a server's question arrives as a form part; declining over HTTP completes the server's call", async () => {
    const token = await tokenFor(newUser().user);
    const id = chatId();
    const { page } = await openClient('http', id, token);
    void page.evaluate(() => window.chat!.send('give me the weekly report'));
    await expect
      .poll(async () => questionIn((await state(page)).messages)?.data.status, { timeout: 20_000 })
      .toBe('pending');
    const asked = questionIn((await state(page)).messages)!.data;
    expect(asked.message).toBe('Which tasks should the weekly report cover?');
    await page.evaluate((questionId) => window.chat!.answerElicitation(questionId, 'decline'), asked.id);
    await expect.poll(async () => lastText(page), { timeout: 20_000 }).toContain('No report: the user chose "decline"');
    expect(questionIn(await settled(page))?.data.status).toBe('decline');
  });

  it('a reload in the middle of a turn resumes it (resumeStream) and the answer arrives whole, once', async () => {
    const token = await tokenFor(newUser().user);
    const id = chatId();
    const { page } = await openClient('http', id, token);
    void page.evaluate(() => window.chat!.send('write slowly again')).catch(() => undefined); // the reload cuts this call
    await writing(page);
    await page.reload();
    await expect.poll(() => page.evaluate(() => Boolean(window.chat)), { timeout: 15_000 }).toBe(true);
    await expect.poll(async () => await lastText(page), { timeout: 30_000 }).toContain('word199');
    const text = await lastText(page);
    expect(text.match(/word0 /g)).toHaveLength(1);
    expect(text.match(/word199/g)).toHaveLength(1);
  });
});

describe('useAgentChat + useAgent (WebSocket)', () => {
  /** The chunks of one request as this tab received them, live and replayed. */
  const bodiesOf = (frames: Frame[], type: string) =>
    frames.filter((f) => f.type === 'cf_agent_use_chat_response' && f.body && JSON.parse(f.body).type === type);

  it('sends and streams each chunk once; the token is a subprotocol, not in the URL', async () => {
    const token = await tokenFor(newUser().user);
    const id = await newConversation(token);
    const client = await openClient('ws', id, token);
    await client.page.evaluate(() => window.chat!.send('hello socket'));
    const messages = await settled(client.page);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(textOf(messages[1])).toBe('You said: hello socket');
    // The fake model sends one delta per word: each reached the tab once.
    // (The service merges a model's deltas that arrive within 30 ms: how many frames is not the point; none twice is.)
    expect(
      bodiesOf(client.frames, 'text-delta')
        .map((f) => JSON.parse(f.body!).delta)
        .join(''),
    ).toBe('You said: hello socket');
    expect(client.frames.filter((f) => f.type === 'cf_agent_use_chat_response' && f.done)).toHaveLength(1);
    expect(client.errors).toEqual([]);
  });

  it('approve and deny: the continuation arrives once (no doubled chunks, one done)', async () => {
    const token = await tokenFor(newUser().user);
    for (const approved of [true, false]) {
      const id = await newConversation(token);
      const client = await openClient('ws', id, token);
      await inTab(
        client,
        'send',
        client.page.evaluate(() => window.chat!.send('create a task called Call the bank')),
      );
      await expect
        .poll(async () => toolPart((await state(client.page)).messages)?.state, { timeout: 20_000 })
        .toBe('approval-requested');
      const asked = toolPart((await state(client.page)).messages)!;
      await inTab(
        client,
        'approve',
        client.page.evaluate(({ toolCallId, approved }) => window.chat!.approve(toolCallId, approved), {
          toolCallId: asked.toolCallId,
          approved,
        }),
      );
      await expect.poll(async () => lastText(client.page), { timeout: 20_000 }).toContain('Done:');
      const messages = await settled(client.page);
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
      expect(textOf(messages[1]).match(/Done:/g)).toHaveLength(1);
      expect(toolPart(messages)?.state).toBe(approved ? 'output-available' : 'output-denied');
      const live = client.frames.filter(
        (f) => f.type === 'cf_agent_use_chat_response' && f.continuation && !f.replay && f.body,
      );
      const replayed = client.frames.filter(
        (f) => f.type === 'cf_agent_use_chat_response' && f.continuation && f.replay && f.body,
      );
      // Each continuation chunk reached this tab exactly once: either replayed (after it asked to resume) or live.
      const seen = [...live, ...replayed].map((f) => `${f.id}:${(f as { seq?: number }).seq}`);
      expect(new Set(seen).size).toBe(seen.length);
    }
  });

  it('stop: the model call is aborted, the partial answer is kept and settled, the next message is accepted', async () => {
    const token = await tokenFor(newUser().user);
    const id = await newConversation(token);
    const client = await openClient('ws', id, token);
    const abortedBefore = model.aborted;
    void client.page.evaluate(() => window.chat!.send('write slowly now'));
    await writing(client.page);
    await client.page.evaluate(() => window.chat!.stop());
    await expect.poll(() => model.aborted, { timeout: 10_000 }).toBe(abortedBefore + 1);
    await expect
      .poll(async () => (await stored(id, token)).at(-1)?.metadata, { timeout: 10_000 })
      .toMatchObject({ stopped: true });
    await settled(client.page);
    await client.page.evaluate(() => window.chat!.send('still there?'));
    await expect.poll(async () => lastText(client.page), { timeout: 20_000 }).toBe('You said: still there?');
  });

  it('two tabs: the other tab sees the turn live, and both end with the same transcript; clear empties both and the server', async () => {
    const token = await tokenFor(newUser().user);
    const id = await newConversation(token);
    const a = await openClient('ws', id, token);
    const b = await openClient('ws', id, token);
    void a.page.evaluate(() => window.chat!.send('write slowly for both'));
    // B shows the answer while A is still streaming it.
    await expect.poll(async () => (await lastText(b.page)).split(' ').length, { timeout: 15_000 }).toBeGreaterThan(5);
    expect((await state(a.page)).status).toBe('streaming');
    await expect.poll(async () => lastText(b.page), { timeout: 30_000 }).toContain('word199');
    await settled(a.page);
    expect(await lastText(b.page)).toBe(await lastText(a.page));
    expect((await lastText(b.page)).match(/word0 /g)).toHaveLength(1);

    await a.page.evaluate(() => window.chat!.clear());
    await expect.poll(async () => (await state(b.page)).messages.length, { timeout: 10_000 }).toBe(0);
    await emptiedForGood(b.page, id, token);
  });

  it('a tool call that runs as an MCP task: both tabs see it move and the answer go on by itself when it ends', async () => {
    const token = await tokenFor(newUser().user);
    const id = await newConversation(token);
    const a = await openClient('ws', id, token);
    const b = await openClient('ws', id, token);
    await a.page.evaluate(() => window.chat!.send('build a report'));
    for (const tab of [a, b]) {
      // The answer waits for the task (its step shows it running) …
      await expect
        .poll(async () => taskStatus((await state(tab.page)).messages.at(-1)), { timeout: 15_000 })
        .toMatch(/working|completed/);
      // … then goes on by itself, with the report as the call's result: no request of the tab's started it.
      await expect.poll(async () => lastText(tab.page), { timeout: 30_000 }).toContain('Done: Report');
      const answer = (await state(tab.page)).messages.at(-1)!;
      expect(taskStatus(answer)).toBe('completed');
      expect(answer.parts.find((p) => p.type === 'tool-demo__build_report')).toMatchObject({
        state: 'output-available',
      });
      expect((await state(tab.page)).messages.map((m) => m.role)).toEqual(['user', 'assistant']);
      expect(await lastText(tab.page)).not.toMatch(/Done: Report[\s\S]*Done: Report/); // once
    }
    expect(a.frames.some((f) => f.type === 'cf_agent_message_updated')).toBe(true);
    expect(b.frames.some((f) => f.continuation)).toBe(true);
  });

  it('an approved tool call that runs as an MCP task: the answer waits for it, then goes on with the report, once', async () => {
    const token = await tokenFor(newUser().user);
    const id = await newConversation(token);
    const tab = await openClient('ws', id, token);
    await tab.page.evaluate(() => window.chat!.send('build a gated report'));
    await expect
      .poll(async () => toolPart((await state(tab.page)).messages)?.state, { timeout: 20_000 })
      .toBe('approval-requested');
    const asked = toolPart((await state(tab.page)).messages)!;
    const requestsBefore = model.requests.length;
    await tab.page.evaluate((toolCallId) => window.chat!.approve(toolCallId, true), asked.toolCallId);
    await expect
      .poll(async () => taskStatus((await state(tab.page)).messages.at(-1)), { timeout: 15_000 })
      .toMatch(/working|completed/);
    await expect.poll(async () => lastText(tab.page), { timeout: 30_000 }).toContain('Done: Report');
    const answer = (await state(tab.page)).messages.at(-1)!;
    expect(taskStatus(answer)).toBe('completed');
    expect(textOf(answer)).not.toContain('Running as task');
    expect(textOf(answer).match(/Done: /g)).toHaveLength(1);
    // One model request after the approval — the one with the report; none with the task's placeholder.
    const after = model.requests.slice(requestsBefore);
    expect(after).toHaveLength(1);
    expect(JSON.stringify(after[0]!.messages)).not.toContain('Running as task');
    expect((await stored(id, token)).map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('setMessages([]) empties the conversation on the service too: nothing comes back on reconnect', async () => {
    const token = await tokenFor(newUser().user);
    const id = await newConversation(token);
    const client = await openClient('ws', id, token);
    await client.page.evaluate(() => window.chat!.send('remember this'));
    await settled(client.page);
    expect(await stored(id, token)).toHaveLength(2);
    await client.page.evaluate(() => window.chat!.setMessages([]));
    await emptiedForGood(client.page, id, token);
  });

  it('a turn started over HTTP (the widget, useChat) reaches the WebSocket tabs live, once', async () => {
    const token = await tokenFor(newUser().user);
    const id = await newConversation(token);
    const tab = await openClient('ws', id, token);
    const posted = fetch(`${service.url}/v1/conversations/${id}/messages`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'write slowly over http' }),
    }).then((r) => r.text());
    await expect.poll(async () => (await lastText(tab.page)).split(' ').length, { timeout: 15_000 }).toBeGreaterThan(5);
    await posted; // the HTTP caller's stream ends with the turn
    await expect.poll(async () => lastText(tab.page), { timeout: 15_000 }).toContain('word199');
    const text = await lastText(tab.page);
    expect(text.match(/word0 /g)).toHaveLength(1);
    expect((await state(tab.page)).messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('a reload mid-turn resumes: everything so far replayed, the rest live, each word once', async () => {
    const token = await tokenFor(newUser().user);
    const id = await newConversation(token);
    const client = await openClient('ws', id, token);
    void client.page.evaluate(() => window.chat!.send('write slowly after reload')).catch(() => undefined); // the reload cuts this call
    await writing(client.page);
    await client.page.reload();
    await expect.poll(async () => lastText(client.page), { timeout: 30_000 }).toContain('word199');
    const text = await lastText(client.page);
    expect(text.match(/word0 /g)).toHaveLength(1);
    expect(text.match(/word150 /g)).toHaveLength(1);
    expect(client.frames.some((f) => f.replay)).toBe(true);
  });

  it('a client tool: the model calls it, the page answers, the turn goes on with the result', async () => {
    const token = await tokenFor(newUser().user);
    const id = await newConversation(token);
    const client = await openClient('ws', id, token);
    await client.page.evaluate(() => window.chat!.send('where am i'));
    await expect.poll(async () => lastText(client.page), { timeout: 20_000 }).toContain('Lisbon');
    const saved = await stored(id, token);
    expect(saved.at(-1)?.parts.find((p) => 'toolCallId' in p)).toMatchObject({
      state: 'output-available',
      output: { city: 'Lisbon' },
    });
    expect(textOf(saved.at(-1)).match(/Done:/g)).toHaveLength(1);
  });

  it("a server's question answered over the socket (accept with the form's values)", async () => {
    const token = await tokenFor(newUser().user);
    const id = await newConversation(token);
    const client = await openClient('ws', id, token);
    void client.page.evaluate(() => window.chat!.send('give me the weekly report'));
    await expect
      .poll(async () => questionIn((await state(client.page)).messages)?.data.status, { timeout: 20_000 })
      .toBe('pending');
    const asked = questionIn((await state(client.page)).messages)!.data;
    await client.page.evaluate(
      (questionId) => window.chat!.answerElicitation(questionId, 'accept', { status: 'all', detailed: true }),
      asked.id,
    );
    await expect.poll(async () => lastText(client.page), { timeout: 20_000 }).toContain('Done: Weekly report:');
    expect(questionIn(await settled(client.page))?.data).toMatchObject({ status: 'accept' });
  });

  it('regenerate replaces the answer on the server too', async () => {
    const token = await tokenFor(newUser().user);
    const id = await newConversation(token);
    const client = await openClient('ws', id, token);
    await client.page.evaluate(() => window.chat!.send('question to redo'));
    const first = await settled(client.page);
    await client.page.evaluate(() => window.chat!.regenerate());
    await expect.poll(async () => (await stored(id, token)).at(-1)?.id, { timeout: 20_000 }).not.toBe(first[1]!.id);
    const saved = await stored(id, token);
    expect(saved.map((m) => m.role)).toEqual(['user', 'assistant']);
  });
});

describe('the chat widget on a SaaS page (the same service, a slow model)', () => {
  async function openWidget(token: string) {
    const context = await chromium.browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${clientPage.url}/widget?${new URLSearchParams({ service: service.url, token })}`);
    const chat = page.locator('mcp-ondemand-chat');
    const input = chat.getByRole('textbox', { name: 'Message' });
    await expect.poll(() => input.isEnabled(), { timeout: 15_000 }).toBe(true);
    const ask = async (text: string) => {
      await input.fill(text);
      await input.press('Enter');
    };
    const idle = async () =>
      expect.poll(() => chat.locator('[role="log"]').getAttribute('aria-busy'), { timeout: 30_000 }).toBe('false');
    return { page, chat, ask, idle };
  }

  it('Stop stops the turn on the service: the model call is aborted, the answer so far stays, marked stopped', async () => {
    const { chat, ask, idle } = await openWidget(await tokenFor(newUser().user));
    const abortedBefore = model.aborted;
    await ask('write slowly for the widget');
    await expect
      .poll(async () => (await chat.locator('article.assistant').last().innerText()).split(' ').length, {
        timeout: 15_000,
      })
      .toBeGreaterThan(5);
    await chat.getByRole('button', { name: 'Stop' }).click();
    await idle();
    await expect.poll(() => model.aborted, { timeout: 10_000 }).toBe(abortedBefore + 1);
    const answer = await chat.locator('article.assistant').last().innerText();
    expect(answer).toContain('word0');
    expect(answer).toContain('Stopped.');
    expect(answer).not.toContain('word199');
    await expect.poll(() => chat.getByRole('button', { name: 'Send' }).isVisible()).toBe(true);
    await ask('one more');
    // Polled: right after Enter the log may still read idle from the stopped turn, before the new one starts.
    await expect
      .poll(() => chat.locator('article.assistant').last().innerText(), { timeout: 15_000 })
      .toContain('You said: one more');
    await idle();
  });

  it('moved in the page mid-answer (a host re-parenting it), it follows the turn again: the answer arrives whole', async () => {
    const { page, chat, ask, idle } = await openWidget(await tokenFor(newUser().user));
    await ask('write slowly while I move you');
    await expect
      .poll(async () => (await chat.locator('article.assistant').last().innerText()).split(' ').length, {
        timeout: 15_000,
      })
      .toBeGreaterThan(5);
    // Leaving the page cuts what the element follows; the turn goes on at the service.
    await page.evaluate(() => {
      const element = document.querySelector('mcp-ondemand-chat')!;
      const panel = document.createElement('aside');
      document.body.append(panel);
      panel.append(element);
    });
    await expect
      .poll(() => chat.locator('article.assistant').last().innerText(), { timeout: 30_000 })
      .toContain('word199');
    await idle();
    const answer = await chat.locator('article.assistant').last().innerText();
    expect(answer.match(/word\d+/g)).toEqual(Array.from({ length: 200 }, (_, i) => `word${i}`));
    expect(await chat.locator('article.assistant').count()).toBe(1);
  });

  it("a server's question is a form in the widget; the answer goes back and the turn finishes with it", async () => {
    const { chat, ask, idle } = await openWidget(await tokenFor(newUser().user));
    await ask('give me the weekly report please');
    const form = chat.getByRole('group', { name: 'demo asks' });
    await expect.poll(() => form.isVisible(), { timeout: 20_000 }).toBe(true);
    await form.getByRole('combobox').selectOption('all');
    await form.getByRole('checkbox').check();
    await form.getByRole('button', { name: 'Send answer' }).click();
    await idle();
    const answer = await chat.locator('article.assistant').last().innerText();
    expect(answer).toContain('You answered: status = all, detailed = true');
    expect(answer).toContain('Done: Weekly report:');
  });
});

describe('files from the chat clients (FileUIPart: sendMessage({text, files}))', () => {
  it.each(['http', 'ws'] as const)(
    'over %s: the file becomes an upload; the model gets one line naming it, never its bytes',
    async (client) => {
      const token = await tokenFor(newUser().user);
      const id = client === 'http' ? chatId() : await newConversation(token);
      const { page, errors } = await openClient(client, id, token);
      const pdf = makePdf({ title: 'Handbook', pages: [['# Travel', 'Trains are booked two weeks ahead.']] });
      const base64 = Buffer.from(pdf).toString('base64');
      const before = model.requests.length;
      await page.evaluate((file) => window.chat!.sendFile('What does this file say about trains?', file), {
        name: 'Travel handbook.pdf',
        type: 'application/pdf',
        base64,
      });
      const messages = await settled(page);
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
      expect(errors).toEqual([]);

      const files = (await (
        await fetch(`${service.url}/v1/conversations/${id}/files`, { headers: { Authorization: `Bearer ${token}` } })
      ).json()) as { files: Array<{ uri: string; name: string; size: number; mimeType: string }> };
      expect(files.files).toEqual([
        expect.objectContaining({
          uri: `upload://${id}/Travel_handbook.pdf`,
          name: 'Travel_handbook.pdf',
          size: pdf.length,
          mimeType: 'application/pdf',
        }),
      ]);
      const asked = JSON.stringify(model.requests.slice(before).map((r) => r.messages));
      expect(asked).toContain(`[The user attached the file \\"Travel handbook.pdf\\" (application/pdf`);
      expect(asked).toContain(`upload://${id}/Travel_handbook.pdf`);
      expect(asked).not.toContain(base64.slice(0, 40));
      expect(asked).not.toContain('data:application/pdf');
      const [user] = await stored(id, token);
      expect(JSON.stringify(user)).not.toContain('data:application/pdf');
    },
  );
});
