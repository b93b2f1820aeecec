import type { Settings } from '../config';
import { logEvent } from '../observability/log';
import type { ProgramInstrumenterRpc } from '../../shared/programs';
import { type RunLimits, runLimits } from './limits';

/** Programs as a turn may run them: the mode (never `off`: then there are none), the loader, the limits. */
export interface Programs {
  mode: 'auto' | 'on';
  loader: WorkerLoader;
  /** The converter Worker, which puts the step counts in a program (converter/src/instrument.ts). */
  instrumenter: ProgramInstrumenterRpc;
  limits: RunLimits;
}

let warned = false;

/**
 * Whether this turn may run programs (`run_code`): the tenant's `runCode`, else RUN_CODE — and off, whatever they
 * say, where the deployment has no Worker Loader binding `LOADER` or no converter Worker (`CONVERTER`, which
 * instruments programs), with one warning per isolate (such a deploy still serves every other feature).
 */
export function programsFor(
  env: { LOADER?: WorkerLoader | undefined; CONVERTER?: unknown },
  mode: 'off' | 'auto' | 'on',
  settings: Parameters<typeof runLimits>[0],
): Programs | undefined {
  if (mode === 'off') return undefined;
  const missing = !env.LOADER
    ? 'no Worker Loader binding "LOADER" ([[worker_loaders]] in wrangler.toml)'
    : !env.CONVERTER
      ? 'no converter Worker (service binding "CONVERTER"), which instruments programs'
      : undefined;
  if (missing) {
    if (!warned) {
      warned = true;
      logEvent(
        'program.config',
        { outcome: 'off', reason: `RUN_CODE is ${mode} but this Worker has ${missing}: run_code is off` },
        'warn',
      );
    }
    return undefined;
  }
  return {
    mode,
    loader: env.LOADER!,
    instrumenter: env.CONVERTER as ProgramInstrumenterRpc,
    limits: runLimits(settings),
  };
}

/** The mode a tenant's conversations run with: its own `runCode`, else the deployment's RUN_CODE. */
export const programMode = (
  settings: Pick<Settings, 'RUN_CODE'>,
  tenant: { runCode?: 'off' | 'auto' | 'on' | undefined } | undefined,
): 'off' | 'auto' | 'on' => tenant?.runCode ?? settings.RUN_CODE;
