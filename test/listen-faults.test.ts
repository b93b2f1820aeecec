import { runInDurableObject } from 'cloudflare:test';
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { McpSessions } from '../src/mcp/sessions';
import { conversationStub, createConversation } from './helpers/api';
import { waitFor } from './helpers/demo-client';
import { buildSessions } from './helpers/sessions';

// The 2026-07-28 notification channel when it misbehaves (test/infra/listen-faults.ts in front of the SDK v2 strict
// server): in each case nothing stale is served, nothing is lost, and the work stays bounded — each bound stated.

const v2 = inject('v2Url');
const KEY = 'listen-faults-strict';
const SERVER = {
  id: 'listening',
  url: `${v2}/listen-faults/strict`,
  transport: 'streamable-http' as const,
  protocol: '2026-07-28' as const,
};
/** Short time limits, so "the acknowledgement never comes" ends in the test's time. */
const LIMITS = { MCP_REQUEST_TIMEOUT_MS: 400, ELICITATION_TIMEOUT_MS: 1_000 };
const LISTEN_WAIT_BOUND_MS = LIMITS.MCP_REQUEST_TIMEOUT_MS + LIMITS.ELICITATION_TIMEOUT_MS;

const fault = (mode: string, count?: number) =>
  fetch(`${v2}/__control/${KEY}/fault`, { method: 'POST', body: JSON.stringify({ mode, count }) });
const serverState = async () =>
  (await (await fetch(`${v2}/__control/${KEY}/state`)).json()) as {
    listens: number;
    methods: Record<string, number>;
    faults: { opened: number; injected: number };
  };
const edit = (uri: string, text: string) =>
  fetch(`${v2}/__control/${KEY}/edit`, { method: 'POST', body: JSON.stringify({ uri, text, silent: true }) });
const textOf = (read: { contents: unknown[] }) => (read.contents[0] as { text: string }).text;

async function withSessions<T>(work: (sessions: McpSessions) => Promise<T>): Promise<T> {
  const id = await createConversation();
  return runInDurableObject(await conversationStub(id), async (_instance, state) => {
    const { sessions } = buildSessions(state.storage, [SERVER], LIMITS, `listen-faults:${id}`);
    try {
      return await work(sessions);
    } finally {
      await sessions.release();
    }
  });
}

afterEach(async () => {
  await fault('pass');
});

describe('the 2026 listen stream, misbehaving', () => {
  it(`the acknowledgement never comes: a first read waits at most ${LISTEN_WAIT_BOUND_MS} ms, once per server, and nothing is covered`, async () => {
    await fault('no-ack');
    await withSessions(async (sessions) => {
      const started = Date.now();
      const first = await sessions.readResource('listening', 'v2://notes/public', { reuseSince: started });
      const waited = Date.now() - started;
      expect(waited).toBeLessThan(LISTEN_WAIT_BOUND_MS + 1_500);
      expect(first.freshness.notifications).toBe(false); // relies on its TTL, as a server that cannot notify
      // Another URI right after does not wait again: the channel is not retried for 30 s.
      const second = Date.now();
      await sessions.readResource('listening', 'v2://notes/volatile', { reuseSince: second });
      expect(Date.now() - second).toBeLessThan(LIMITS.MCP_REQUEST_TIMEOUT_MS);
      // Nothing stale: a copy stale at once (no hint) is read again in the next turn and shows a silent change.
      await edit('v2://notes/volatile', 'volatile, changed with nobody told');
      expect(textOf(await sessions.readResource('listening', 'v2://notes/volatile', { reuseSince: Date.now() }))).toBe(
        'volatile, changed with nobody told',
      );
    });
  });

  it('the acknowledged filter leaves the URI out: the copy is not covered, it lives by its TTL', async () => {
    await fault('narrow-ack');
    await withSessions(async (sessions) => {
      const read = await sessions.readResource('listening', 'v2://notes/short', { reuseSince: Date.now() });
      expect(read.freshness).toEqual({ notifications: false, ttlMs: 1_500 });
      await edit('v2://notes/short', 'short, changed with nobody told');
      // Past its 1.5 s hint, the next read asks the server.
      await new Promise((resolve) => setTimeout(resolve, 1_600));
      expect(textOf(await sessions.readResource('listening', 'v2://notes/short', { reuseSince: Date.now() }))).toBe(
        'short, changed with nobody told',
      );
    });
  });

  it('a notification under a subscription id nobody opened is still a change: the copy is dropped and read again, once', async () => {
    await fault('unknown-subscription');
    await withSessions(async (sessions) => {
      const before = (await serverState()).methods['resources/read'] ?? 0;
      const first = await sessions.readResource('listening', 'v2://notes/private', { reuseSince: Date.now() });
      await waitFor(
        async () => ((await serverState()).faults.injected > 0 ? true : undefined),
        'the injected notification',
      );
      await edit('v2://notes/private', 'private, changed');
      // The injected notification arrived after the acknowledgement: the copy it found is gone, whatever id it carried.
      const again = await sessions.readResource('listening', 'v2://notes/private', { reuseSince: Date.now() });
      expect(again.cache).toBe('miss');
      expect(textOf(again)).toBe('private, changed');
      expect(textOf(first)).not.toBe('private, changed');
      expect(((await serverState()).methods['resources/read'] ?? 0) - before).toBe(2);
    });
  });

  it('the server closes the stream mid-conversation: nothing cached before is trusted; the next read asks the server', async () => {
    await withSessions(async (sessions) => {
      const first = await sessions.readResource('listening', 'v2://notes/public', { reuseSince: Date.now() });
      expect(first.freshness.notifications).toBe(true);
      expect((await sessions.readResource('listening', 'v2://notes/public', { reuseSince: Date.now() })).cache).toBe(
        'memory',
      );
      await fetch(`${v2}/__control/${KEY}/cut-listens`, { method: 'POST' });
      await waitFor(async () => ((await serverState()).listens === 0 ? true : undefined), 'the stream to go');
      await edit('v2://notes/public', 'public, changed while the stream was down');
      await waitFor(
        async () =>
          textOf(await sessions.readResource('listening', 'v2://notes/public', { reuseSince: Date.now() })) ===
          'public, changed while the stream was down'
            ? true
            : undefined,
        'the read after the loss',
        3_000,
      );
      // And it listens again: the next read is covered.
      await waitFor(
        async () =>
          (await sessions.readResource('listening', 'v2://notes/public', { reuseSince: Date.now() })).freshness
            .notifications
            ? true
            : undefined,
        'a new listen stream',
        5_000,
      );
    });
  });

  it('a storm of 10,000 notifications on the stream: handled in seconds, the URI read again at most twice, nothing lost', async () => {
    await fault('storm', 10_000);
    await withSessions(async (sessions) => {
      const before = (await serverState()).methods['resources/read'] ?? 0;
      await sessions.readResource('listening', 'v2://notes/public', { reuseSince: Date.now() });
      await waitFor(
        async () => ((await serverState()).faults.injected >= 10_000 ? true : undefined),
        'the storm to be sent',
      );
      await edit('v2://notes/public', 'public, after the storm');
      const started = Date.now();
      // Once the storm is through, the copy it invalidated is read again — the change is there, not lost.
      await waitFor(
        async () =>
          textOf(await sessions.readResource('listening', 'v2://notes/public', { reuseSince: Date.now() })) ===
          'public, after the storm'
            ? true
            : undefined,
        'the read after the storm',
        10_000,
      );
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(((await serverState()).methods['resources/read'] ?? 0) - before).toBeLessThanOrEqual(3);
    });
  });
});
