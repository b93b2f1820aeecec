import type { RunLimits } from './limits';

/**
 * The one module a run's Dynamic Worker holds: an entrypoint whose `run(api)` calls the program (already
 * instrumented: sandbox/instrument.ts) with `resources`, `prompts`, `tools` and `console` in its scope, and
 * returns what it returned (cut), its log lines (cut), and whether it went past its step count.
 *
 * Nothing here is trusted to enforce anything but the step count — the program shares this isolate. Reads,
 * calls and bytes are counted by the host (sandbox/api-host.ts); the result is cut again there; the wall time is
 * the host's. The step counter is a closure under a name drawn at random per run, so the program can neither
 * name it nor reset it; once past, every count throws again, and a program that catches the error and returns
 * anyway is still reported as stopped.
 */
export function programModule(instrumented: string, tick: string, limits: RunLimits): string {
  const bounds = JSON.stringify({
    steps: limits.steps,
    resultChars: limits.resultChars,
    logLines: limits.logLines,
    logLineChars: limits.logLineChars,
  });
  return `import { WorkerEntrypoint } from 'cloudflare:workers';
const BOUNDS = ${bounds};
function meter(limit) {
  let steps = 0;
  let over = false;
  const tick = () => {
    if (over || ++steps > limit) {
      over = true;
      throw new RangeError('The program ran past its CPU limit (' + limit + ' loop iterations and function calls).');
    }
  };
  return Object.freeze({ tick, over: () => over, steps: () => steps });
}
function show(value) {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  try {
    return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2) ?? String(value);
  } catch (error) {
    return 'The result could not be turned into JSON: ' + (error && error.message);
  }
}
export default class Program extends WorkerEntrypoint {
  async run(api) {
    const logs = [];
    let logsCut = 0;
    const log = (prefix) => (...args) => {
      if (logs.length >= BOUNDS.logLines) { logsCut++; return; }
      const line = prefix + args.map((a) => (typeof a === 'string' ? a : show(a))).join(' ');
      logs.push(line.length > BOUNDS.logLineChars ? line.slice(0, BOUNDS.logLineChars) + '…' : line);
    };
    const console = Object.freeze({ log: log(''), info: log(''), debug: log(''), warn: log('[warn] '), error: log('[error] ') });
    const ask = (method) => async (options) => {
      const answer = await api[method](typeof options === 'string' ? { uri: options } : options ?? {});
      if ('error' in answer) throw new Error(answer.error);
      return answer.value;
    };
    const resources = Object.freeze({ list: ask('list'), read: ask('read'), search: ask('search') });
    const prompts = Object.freeze({ get: ask('prompt') });
    const tools = Object.freeze({ call: ask('call') });
    const ${tick}_meter = meter(BOUNDS.steps);
    const ${tick} = ${tick}_meter.tick;
    let value, error;
    try {
      value = await (async () => {
${instrumented}
      })();
    } catch (thrown) {
      error = thrown instanceof Error ? thrown.name + ': ' + thrown.message : show(thrown);
    }
    const over = ${tick}_meter.over();
    const text = error === undefined ? show(value) : '';
    return {
      over,
      steps: ${tick}_meter.steps(),
      error: over ? undefined : error,
      result: text.slice(0, BOUNDS.resultChars),
      resultChars: text.length,
      logs,
      logsCut,
    };
  }
}
`;
}
