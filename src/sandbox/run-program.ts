import { type ApiCallRecord, Gateway, type ProgramApi } from './gateway';
import type { ProgramInstrumenterRpc } from '../../shared/programs';
import { LimitError, type LimitName, type RunLimits } from './limits';
import { programModule } from './program-module';

/*
 * Running one program in a Dynamic Worker of its own (Cloudflare's Worker Loader): a fresh isolate with
 * `globalOutbound: null` (no fetch, no sockets) and no bindings; its only way out is the gateway the host hands
 * it. Written on the loader directly rather than on @cloudflare/codemode's DynamicWorkerExecutor: that executor
 * keeps its time limit inside the sandbox (a timer the program's own loop can starve), has no step, byte or call
 * limits, and its MCP connector covers tools only; we keep its two good ideas — late calls refused once the run
 * ends (Gateway.close), and the isolate's handles disposed at once (a handle left to the GC can outlive the
 * isolate in the test runtime).
 */

/** How a run ended, as the tool, the step and the usage see it. */
export interface RunOutcome {
  /** What the program returned, as text (JSON for values), cut at `resultChars`; `resultChars` is its whole length. */
  result: string;
  resultChars: number;
  logs: string[];
  /** Log lines past `logLines`, dropped. */
  logsCut: number;
  calls: ApiCallRecord[];
  /** Bytes the gateway gave the program. */
  bytes: number;
  /** Loop iterations and function calls counted. */
  steps: number;
  wallMs: number;
  /** The program threw (its message), or a limit ended it. */
  error?: { message: string; limit?: LimitName | undefined } | undefined;
}

/** The shape `Program.run` returns (sandbox/program-module.ts). */
interface ModuleResult {
  over: boolean;
  steps: number;
  error?: string;
  result: string;
  resultChars: number;
  logs: string[];
  logsCut: number;
}

/** The entrypoint's stub; it owns a native handle, released at once (Symbol.dispose, where the runtime has it). */
type ProgramEntrypoint = { run(api: Gateway): Promise<ModuleResult> } & Record<symbol, unknown>;

/** A program the parser refused (the model's mistake, with its place), or that could not be instrumented. */
export class ProgramRefused extends Error {}

export async function runProgram(
  { loader, instrumenter }: { loader: WorkerLoader; instrumenter: ProgramInstrumenterRpc },
  code: string,
  api: ProgramApi,
  limits: RunLimits,
  signal?: AbortSignal,
  /** Hears of every run that was loaded, a stopped one too (it was billed): usage. */
  onEnd?: ((run: RunOutcome) => void) | undefined,
): Promise<RunOutcome> {
  const started = Date.now();
  const tick = `__step_${crypto.randomUUID().replace(/-/g, '')}`;
  // Step counts in every loop and function, by the converter Worker (converter/src/instrument.ts: its parser stays
  // out of the service's bundle).
  const instrumented = await instrumenter.instrument({ code, tick });
  if (!instrumented.ok) throw new ProgramRefused(instrumented.reason);
  const source = programModule(instrumented.code, tick, limits);
  const gateway = new Gateway(api, limits);
  const worker = loader.load({
    compatibilityDate: '2026-11-01',
    mainModule: 'program.js',
    modules: { 'program.js': source },
    globalOutbound: null,
    limits: { cpuMs: limits.cpuMs },
  });
  const entrypoint = worker.getEntrypoint() as unknown as ProgramEntrypoint;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stopped = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new LimitError('wall_time', `The program ran past its time limit (${limits.wallMs} ms) and was stopped.`),
        ),
      limits.wallMs,
    );
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  stopped.catch(() => {});
  // Every way a run ends makes its outcome here once, and `onEnd` hears of it.
  const outcome = (result: Partial<RunOutcome>): RunOutcome => {
    const ended: RunOutcome = {
      result: '',
      resultChars: 0,
      logs: [],
      logsCut: 0,
      steps: 0,
      ...result,
      calls: gateway.calls,
      bytes: gateway.bytes,
      wallMs: Date.now() - started,
    };
    onEnd?.(ended);
    return ended;
  };
  try {
    const ran = await Promise.race([entrypoint.run(gateway), stopped]);
    const limit = gateway.stoppedBy ?? (ran.over ? stepLimit(limits) : undefined);
    return outcome({
      result: limit ? '' : ran.result.slice(0, limits.resultChars),
      resultChars: limit ? 0 : ran.resultChars,
      logs: ran.logs.slice(0, limits.logLines).map((line) => String(line).slice(0, limits.logLineChars + 1)),
      logsCut: ran.logsCut + Math.max(0, ran.logs.length - limits.logLines),
      steps: ran.steps,
      ...(limit
        ? { error: { message: limit.message, limit: limit.limit } }
        : ran.error === undefined
          ? {}
          : { error: { message: ran.error } }),
    });
  } catch (error) {
    if (signal?.aborted) {
      outcome({ error: { message: 'The person stopped the answer while the program ran.' } });
      throw error;
    }
    if (error instanceof LimitError) return outcome({ error: { message: error.message, limit: error.limit } });
    // The isolate itself failed: past Cloudflare's CPU or memory limit, or it crashed.
    const message = error instanceof Error ? error.message : String(error);
    const limit: LimitName | undefined = /cpu/i.test(message) ? 'cpu' : /memory/i.test(message) ? 'memory' : undefined;
    return outcome({
      error: { message: `The program's isolate stopped: ${message}`, ...(limit ? { limit } : {}) },
    });
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    gateway.close();
    try {
      const dispose = (Symbol as { dispose?: symbol }).dispose;
      const release = dispose && entrypoint[dispose];
      if (typeof release === 'function') release.call(entrypoint);
    } catch {
      // Disposal must never mask the outcome.
    }
  }
}

const stepLimit = (limits: RunLimits) =>
  new LimitError(
    'cpu',
    `The program ran past its CPU limit (${limits.steps} loop iterations and function calls) and was stopped.`,
  );
