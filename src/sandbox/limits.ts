import type { Settings } from '../config';

/**
 * The bounds of one program run, each enforced outside the program (ARCHITECTURE.md, "Code over resources";
 * SECURITY.md, "The sandbox"). A limit the run hits ends it with an error that names the limit — but `result`
 * and `logs`, which cut what comes back and say so.
 */
export interface RunLimits {
  /** Wall time of the whole run, reads included (the host stops waiting and drops the isolate). */
  wallMs: number;
  /** Cloudflare's CPU limit of the Dynamic Worker (`limits.cpuMs`; not enforced by workerd locally). */
  cpuMs: number;
  /** Loop iterations and function calls counted in the program (sandbox/instrument.ts): the CPU limit everywhere. */
  steps: number;
  /** Bytes of resource text (and tool results) the program may be given. */
  readBytes: number;
  /** Calls of the API (resources, prompts, tools) per run. */
  calls: number;
  /** Characters of the result the model is given (the rest cut, and the cut said). */
  resultChars: number;
  /** console.log lines kept, and characters of each. */
  logLines: number;
  logLineChars: number;
}

/** The limit names a run can end on, as the model, the step and the usage see them. */
export type LimitName = 'wall_time' | 'cpu' | 'read_bytes' | 'calls' | 'memory';

export function runLimits(
  settings: Pick<
    Settings,
    | 'RUN_CODE_WALL_MS'
    | 'RUN_CODE_CPU_MS'
    | 'RUN_CODE_MAX_STEPS'
    | 'RUN_CODE_MAX_READ_BYTES'
    | 'RUN_CODE_MAX_CALLS'
    | 'RUN_CODE_RESULT_CHARS'
  >,
): RunLimits {
  return {
    wallMs: settings.RUN_CODE_WALL_MS,
    cpuMs: settings.RUN_CODE_CPU_MS,
    steps: settings.RUN_CODE_MAX_STEPS,
    readBytes: settings.RUN_CODE_MAX_READ_BYTES,
    calls: settings.RUN_CODE_MAX_CALLS,
    resultChars: settings.RUN_CODE_RESULT_CHARS,
    logLines: 50,
    logLineChars: 500,
  };
}

/** A run ended by a limit: the message names it and says what to do instead. */
export class LimitError extends Error {
  constructor(
    readonly limit: LimitName,
    message: string,
  ) {
    super(message);
  }
}
