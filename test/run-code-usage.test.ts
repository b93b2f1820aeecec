import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import type { UIMessageChunk } from 'ai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { OperatorOverview } from '../shared/api/operator';
import type { UsageReport, UsageRow } from '../shared/api/usage';
import { DYNAMIC_WORKER_RUN } from '../src/config/price-cards';
import { UsageLedger } from '../src/usage/ledger';
import type { RunCodeOutput } from '../src/tools/synthetic/run-code';
import { api, conversationStub, createConversation, postJson } from './helpers/api';
import { turnIn } from './helpers/conversation';
import { waitFor } from './helpers/demo-client';
import { TEST_OPERATOR_KEY } from './infra/operator-key';
import { callTools, runScriptedTurn, say, scriptedModel, toolResults, userMessage } from './helpers/turns';

/*
 * Program runs (`run_code`, issue 46) seen and metered: a turn whose scripted model runs a program against the demo
 * server, in the Dynamic Worker the Workers Vitest integration provides; what the tenant's ledger, GET /v1/usage (JSON
 * and CSV), the operator's overview and the budgets then say; and the run's one log line. Each test uses its own
 * conversation or end user, so the figures are that run's alone.
 */
const as = (tenant: string, user: string) => ({ authorization: `Bearer test-key-${tenant}`, 'x-end-user': user });

/** A turn in `tenant` for `user` whose model runs `code`, then answers; the run's step output (or error text). */
async function runTurn(tenant: string, user: string, code: string) {
  const id = await createConversation(as(tenant, user));
  const model = scriptedModel((_c, i) => (i === 0 ? callTools(['run_code', { code }]) : say('done')));
  const chunks = await runScriptedTurn(id, 'count it', model, { RUN_CODE: 'on' });
  const ended = chunks.find(
    (c): c is Extract<UIMessageChunk, { type: 'tool-output-available' | 'tool-output-error' }> =>
      c.type === 'tool-output-available' || c.type === 'tool-output-error',
  );
  return {
    id,
    model,
    output: ended?.type === 'tool-output-available' ? (ended.output as RunCodeOutput) : undefined,
    errorText: ended?.type === 'tool-output-error' ? ended.errorText : undefined,
  };
}

const report = async (tenant: string, query: string, user = 'alice') =>
  (await api(`/v1/usage${query}`, {}, as(tenant, user))).json<UsageReport>();

/** The conversation's row once the ledger has its program run (the outbox sends as the turn goes). */
const rowOf = (tenant: string, conversation: string) =>
  waitFor(async () => {
    const row = (await report(tenant, '?groupBy=conversation')).rows.find((r) => r.key === conversation);
    return row && row.programRuns > 0 && row;
  }, `the program run of ${conversation} in ${tenant}'s ledger`);

/** What a run of `wallMs` costs, from the price card's own parts. */
const runPrice = (wallMs: number) =>
  DYNAMIC_WORKER_RUN.load + DYNAMIC_WORKER_RUN.request + wallMs * DYNAMIC_WORKER_RUN.cpuMs;

const READ_GUIDELINES = "const text = await resources.read({ uri: 'task://guidelines' });";

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a program run in the usage', () => {
  it('counts as a run with its time and bytes, its price in usd, and as a tool call', async () => {
    const { id, output } = await runTurn(
      'usage-a',
      'programmer',
      `${READ_GUIDELINES} const again = await resources.read({ uri: 'task://guidelines' }); return text.length + again.length;`,
    );
    expect(output?.calls.map((c) => c.method)).toEqual(['read', 'read']);
    const row: UsageRow = await rowOf('usage-a', id);
    expect(row.programRuns).toBe(1);
    // What the step says the program was given is what the ledger counts: two reads of the guidelines.
    expect(row.programReadBytes).toBe(output!.bytes);
    expect(row.programReadBytes).toBe(output!.calls.reduce((sum, call) => sum + call.bytes, 0));
    expect(row.programReadBytes).toBeGreaterThan(0);
    expect(row.programMs).toBe(output!.wallMs);
    // The scripted model has no price card: the row's dollars are the run's alone.
    expect(row.usd).toBeCloseTo(runPrice(output!.wallMs), 12);
    expect(row.toolCalls).toBe(1);
    expect(row.requests).toBe(2);
  });

  it('a run that a limit ends counts too', async () => {
    const { id, errorText } = await runTurn('usage-a', 'programmer', 'while (true) {}');
    expect(errorText).toContain('stopped by its cpu limit');
    const row = await rowOf('usage-a', id);
    expect(row.programRuns).toBe(1);
    expect(row.programReadBytes).toBe(0);
    expect(row.usd).toBeGreaterThanOrEqual(runPrice(0));
  });

  it('a run the person stops counts too (the load was billed)', async () => {
    const id = await createConversation(as('usage-a', 'stopper'));
    const model = scriptedModel((_c, i) =>
      i === 0
        ? callTools([
            'run_code',
            {
              code: "await resources.read({ uri: 'task://guidelines' }); await new Promise((r) => setTimeout(r, 5_000));",
            },
          ])
        : say('done'),
    );
    await runInDurableObject(await conversationStub(id), async (instance) => {
      const live = await turnIn(
        instance,
        [userMessage('count it')],
        { model, acceptsImages: false, spec: 'mock' },
        { RUN_CODE: 'on' },
      );
      const reader = live.reader().getReader();
      // Stopped once the program is running (its call is out): the run ends with the turn.
      for (;;) {
        const { done, value } = await reader.read();
        if (done || value.type === 'tool-input-available') break;
      }
      await new Promise((r) => setTimeout(r, 300));
      instance.parts.turns.stop();
      await live.ended;
    });
    const row = await rowOf('usage-a', id);
    expect(row.programRuns).toBe(1);
    expect(row.programReadBytes).toBeGreaterThan(0);
    expect(row.programMs).toBeLessThan(5_000);
  });

  it('the CSV has the program columns, and the run in them', async () => {
    const { id, output } = await runTurn('usage-a', 'csv-reader', `${READ_GUIDELINES} return text.length;`);
    await rowOf('usage-a', id);
    const csv = await api('/v1/usage?groupBy=conversation&format=csv', {}, as('usage-a', 'alice'));
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const [header, ...lines] = (await csv.text()).trim().split('\r\n');
    const columns = header!.split(',');
    expect(columns.slice(-3)).toEqual(['programRuns', 'programMs', 'programReadBytes']);
    const line = lines.find((l) => l.startsWith(`${id},`))!.split(',');
    const cell = (name: string) => Number(line[columns.indexOf(name)]);
    expect(cell('programRuns')).toBe(1);
    expect(cell('programMs')).toBe(output!.wallMs);
    expect(cell('programReadBytes')).toBe(output!.bytes);
  });

  it('the operator’s overview counts the tenant’s runs, as its own report does', async () => {
    const { id } = await runTurn('ops-b', 'programmer', `${READ_GUIDELINES} return text.length;`);
    await rowOf('ops-b', id);
    const today = new Date().toISOString().slice(0, 10);
    const byDay = await report('ops-b', `?groupBy=day&from=${today.slice(0, 8)}01&to=${today}`);
    const response = await api('/admin/api/overview', {}, { authorization: `Bearer ${TEST_OPERATOR_KEY}` });
    expect(response.status).toBe(200);
    const tenant = (await response.json<OperatorOverview>()).tenants.find((t) => t.id === 'ops-b')!;
    expect(tenant.month.programRuns).toBeGreaterThanOrEqual(1);
    expect(tenant.month).toMatchObject({
      programRuns: byDay.total.programRuns,
      programMs: byDay.total.programMs,
      programReadBytes: byDay.total.programReadBytes,
    });
    expect(tenant.today.programRuns).toBe(byDay.rows.find((r) => r.key === today)!.programRuns);
  });

  it('its price counts against the budgets: a run past an end user’s daily budget refuses their next turn', async () => {
    // budget-user: $0.001 a user a day, less than one run costs. The scripted model is not priced: only the run is.
    const user = `runner-${crypto.randomUUID().slice(0, 8)}`;
    const { model } = await runTurn('budget-user', user, `${READ_GUIDELINES} return text.length;`);
    // The run used the budget up: the turn stopped at the step's end, with no second model request.
    expect(model.doStreamCalls).toHaveLength(1);
    await waitFor(
      async () => (await report('budget-user', `?groupBy=user&user=${user}`, user)).total.programRuns === 1,
      "the run in the user's usage",
    );
    const next = await postJson(
      `/v1/conversations/${await createConversation(as('budget-user', user))}/messages`,
      { text: 'and again?' },
      as('budget-user', user),
    );
    expect(next.status).toBe(429);
    expect((await next.json<{ error: { code: string } }>()).error.code).toBe('budget_exceeded');
  });
});

describe('a ledger from before program runs', () => {
  it('gets their columns, keeps its rows, and counts runs from then on', async () => {
    const ledger = env.USAGE_LEDGER.getByName(`old-ledger-${crypto.randomUUID()}`);
    const day = new Date().toISOString().slice(0, 10);
    const report = await runInDurableObject(ledger, async (_instance, state) => {
      // The table as the first release made it, with a row in it.
      state.storage.sql.exec(`DROP TABLE usage_daily;
        CREATE TABLE usage_daily (day TEXT NOT NULL, user TEXT NOT NULL, conversation TEXT NOT NULL, model TEXT NOT NULL,
          requests INTEGER NOT NULL DEFAULT 0, input_tokens INTEGER NOT NULL DEFAULT 0,
          cache_read_tokens INTEGER NOT NULL DEFAULT 0, cache_write_tokens INTEGER NOT NULL DEFAULT 0,
          output_tokens INTEGER NOT NULL DEFAULT 0, usd REAL NOT NULL DEFAULT 0,
          estimated_requests INTEGER NOT NULL DEFAULT 0, tool_calls INTEGER NOT NULL DEFAULT 0,
          reads_memory INTEGER NOT NULL DEFAULT 0, reads_kv INTEGER NOT NULL DEFAULT 0,
          reads_server INTEGER NOT NULL DEFAULT 0, tasks INTEGER NOT NULL DEFAULT 0,
          PRIMARY KEY (day, user, conversation, model)) WITHOUT ROWID;
        INSERT INTO usage_daily (day, user, conversation, model, requests, input_tokens)
          VALUES ('${day}', 'alice', 'c1', 'mock', 2, 100);`);
      // The ledger as a new deployment starts it on that storage.
      const upgraded = new UsageLedger(state, env);
      await upgraded.record([
        {
          id: 'run-1',
          at: Date.now(),
          user: 'alice',
          conversation: 'c1',
          model: 'mock',
          counters: { programRuns: 1, programMs: 12, programReadBytes: 3_000 },
        },
      ]);
      return upgraded.report({ from: day, to: day, groupBy: 'conversation' });
    });
    expect(report.rows).toEqual([
      expect.objectContaining({
        key: 'c1',
        requests: 2,
        inputTokens: 100,
        programRuns: 1,
        programMs: 12,
        programReadBytes: 3_000,
      }),
    ]);
  });
});

describe('a program run in the log', () => {
  it('is one program.run line with its figures, and nothing the program read or returned', async () => {
    const lines: unknown[][] = [];
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const)
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(args));
    const { output } = await runTurn(
      'usage-a',
      'logger',
      `${READ_GUIDELINES} console.log(text); return text.split('\\n').slice(0, 3).join(' | ');`,
    );
    vi.restoreAllMocks();
    const runs = lines
      .map((args) => args[0] as Record<string, unknown>)
      .filter((line) => typeof line === 'object' && line?.event === 'program.run');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      event: 'program.run',
      outcome: 'ok',
      calls: 1,
      reads: 1,
      bytes: output!.bytes,
      steps: output!.steps,
      wallMs: output!.wallMs,
    });
    // The program's result and its console line hold the guidelines' text: no line of the log does.
    const said = output!.result.replace(/^"|"$/g, '').split(' | ')[0]!;
    expect(said.length).toBeGreaterThan(10);
    expect(output!.logs.join('\n')).toContain(said);
    const logged = lines.map((args) => args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
    expect(logged.filter((line) => line.includes(said))).toEqual([]);
  });

  it('a run that fails logs none of what it logged or threw; the model still gets it all', async () => {
    const lines: unknown[][] = [];
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const)
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(args));
    const { errorText, model } = await runTurn(
      'usage-a',
      'logger',
      `${READ_GUIDELINES} console.log(text.slice(0, 80)); throw new Error(text.split('\\n')[0]);`,
    );
    vi.restoreAllMocks();
    const said = /console:\n(.+)/.exec(errorText ?? '')?.[1];
    expect(said?.length).toBeGreaterThan(10);
    expect(toolResults(model.doStreamCalls[1]!.prompt).at(-1)!.text).toContain(said);
    const logged = lines.map((args) => args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
    expect(logged.filter((line) => line.includes(said!.slice(0, 20)))).toEqual([]);
    const call = lines.map((args) => args[0] as Record<string, unknown>).find((l) => l?.event === 'tool.call');
    expect(call).toMatchObject({
      tool: 'run_code',
      outcome: 'error',
      error: 'Tool "run_code" failed: The program threw an error.',
    });
    expect(
      lines.map((args) => args[0] as Record<string, unknown>).find((l) => l?.event === 'program.run'),
    ).toMatchObject({
      outcome: 'error',
      calls: 1,
    });
  });

  it('a run a limit ends says which', async () => {
    const lines: unknown[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(line));
    await runTurn('usage-a', 'logger', 'while (true) {}');
    vi.restoreAllMocks();
    const run = lines.find((line) => (line as { event?: unknown })?.event === 'program.run');
    expect(run).toMatchObject({ outcome: 'limit', limit: 'cpu', calls: 0, bytes: 0 });
  });
});
