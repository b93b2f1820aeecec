/**
 * The contract between the service and the converter Worker's second job: a program's text (run_code) with a step
 * count in every loop and function (`converter/src/instrument.ts`), so its CPU limit holds where the runtime does not
 * enforce one. Types only.
 */

export interface InstrumentInput {
  code: string;
  /** The name of the count function to insert (drawn at random per run by the caller). */
  tick: string;
}

export type InstrumentOutput = { ok: true; code: string } | { ok: false; reason: string };

export interface ProgramInstrumenterRpc {
  instrument(input: InstrumentInput): Promise<InstrumentOutput>;
}
