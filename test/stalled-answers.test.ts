import { runInDurableObject } from 'cloudflare:test';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { ApiError } from '../src/errors';
import type { McpSessions } from '../src/mcp/sessions';
import { conversationStub, createConversation } from './helpers/api';
import { waitFor } from './helpers/demo-client';
import { buildSessions } from './helpers/sessions';

// A server that starts its answer and never finishes it (test/infra/hostile-server.ts writeStalled, armed on the SDK
// v2 stateful server at /stall/stateful): headers and a first SSE event, or the first bytes of a JSON body, then
// nothing. Past MCP_REQUEST_TIMEOUT_MS the request fails as a timeout AND its HTTP request is aborted: the server sees
// its connection closed by us, in either era, instead of holding it (and a socket of this isolate) until the
// connection ends for another reason.

const v2 = inject('v2Url');
const KEY = 'stall-stateful';
const SERVERS = [
  { id: 'modern', url: `${v2}/stall/stateful`, transport: 'streamable-http' as const, protocol: '2026-07-28' as const },
  { id: 'legacy', url: `${v2}/stall/stateful`, transport: 'streamable-http' as const, protocol: '2025-11-25' as const },
];
const LIMITS = { MCP_REQUEST_TIMEOUT_MS: 500, ELICITATION_TIMEOUT_MS: 1_000 };
/** How soon after the failure the server must see the connection closed: the abort is immediate; this is slack for a loaded machine. */
const CLOSE_BOUND_MS = 2_000;

type Stall = { method: string; body: string; openedAt: number; closedAt?: number };
const stall = (method?: string, body?: 'sse' | 'json') =>
  fetch(`${v2}/__control/${KEY}/stall`, { method: 'POST', body: JSON.stringify({ method, body }) });
const stalls = async () => ((await (await fetch(`${v2}/__control/${KEY}/state`)).json()) as { stalls: Stall[] }).stalls;

async function withSessions<T>(work: (sessions: McpSessions) => Promise<T>): Promise<T> {
  const id = await createConversation();
  return runInDurableObject(await conversationStub(id), async (_instance, state) => {
    const { sessions } = buildSessions(state.storage, SERVERS, LIMITS, `stalled:${id}`);
    try {
      return await work(sessions);
    } finally {
      await sessions.release();
    }
  });
}

/** The `count` stalled answers, once the server saw each connection closed (waits for that, up to CLOSE_BOUND_MS after `failedAt`). */
async function closedStalls(failedAt: number, count = 1): Promise<Stall[]> {
  const closed = await waitFor(
    async () => {
      const all = await stalls();
      return all.length === count && all.every((s) => s.closedAt !== undefined) ? all : undefined;
    },
    'the server to see its held connections closed',
    CLOSE_BOUND_MS,
  );
  for (const stall of closed) expect(stall.closedAt!).toBeLessThanOrEqual(failedAt + CLOSE_BOUND_MS);
  return closed;
}

afterEach(async () => {
  await stall(); // disarmed; answers still held are dropped
});

describe('an answer that never ends is aborted at MCP_REQUEST_TIMEOUT_MS', () => {
  it.each([
    ['modern', 'sse'],
    ['modern', 'json'],
    ['legacy', 'sse'],
    ['legacy', 'json'],
  ] as const)(
    'resources/read, %s era, %s body: a 504 naming the server, and the connection closed',
    async (server, body) => {
      await withSessions(async (sessions) => {
        await sessions.ensureServer(server); // connected first: only the read stalls
        await stall('resources/read', body);
        const started = Date.now();
        const error = await sessions.readResource(server, 'v2://notes/public', { reuseSince: started }).then(
          () => undefined,
          (e: unknown) => e,
        );
        const failedAt = Date.now();
        // What the API answers (the HTTP error handler sends toJSON() with the status).
        expect(error).toBeInstanceOf(ApiError);
        expect((error as ApiError).status).toBe(504);
        expect((error as ApiError).toJSON()).toEqual({
          error: {
            code: 'upstream_timeout',
            message: expect.stringContaining(`MCP server "${server}" did not answer in time`),
          },
        });
        // Our limit, not the SDK's backstop (MCP_REQUEST_TIMEOUT_MS + ELICITATION_TIMEOUT_MS).
        expect(failedAt - started).toBeGreaterThanOrEqual(LIMITS.MCP_REQUEST_TIMEOUT_MS);
        expect(failedAt - started).toBeLessThan(LIMITS.MCP_REQUEST_TIMEOUT_MS + LIMITS.ELICITATION_TIMEOUT_MS);
        const [closed] = await closedStalls(failedAt);
        expect(closed).toMatchObject({ method: 'resources/read', body });
        // The server is still usable: the next read (not held) is answered.
        await stall();
        const read = await sessions.readResource(server, 'v2://notes/public', { reuseSince: Date.now() });
        expect((read.contents[0] as { text: string }).text).toBe('public note, version 1');
      });
    },
  );

  it('resources/list, both eras: a refresh the server never answers is closed; the catalog keeps what it had', async () => {
    await withSessions(async (sessions) => {
      for (const server of SERVERS) await sessions.ensureServer(server.id);
      await stall('resources/list', 'sse');
      // A new note: each server says its resource list changed, and each connection lists it again — held.
      await fetch(`${v2}/__control/${KEY}/add`, { method: 'POST', body: JSON.stringify({ name: 'late', text: 'x' }) });
      const held = await waitFor(
        async () => ((await stalls()).length === 2 ? await stalls() : undefined),
        'both lists',
      );
      const failedAt = Math.max(...held.map((h) => h.openedAt)) + LIMITS.MCP_REQUEST_TIMEOUT_MS;
      const closed = await closedStalls(failedAt, 2);
      expect(closed.map((c) => c.method)).toEqual(['resources/list', 'resources/list']);
      // The failed refresh is logged (catalog.refresh); each server keeps the list it had, and stays connected.
      for (const state of await sessions.catalog())
        expect({ status: state.status, resources: state.resources.length }).toEqual({
          status: 'connected',
          resources: 4,
        });
    });
  });
});
