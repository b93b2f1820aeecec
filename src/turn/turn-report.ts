import type { UIMessage } from 'ai';
import { type LogFields, type LogLevel, logEvent } from '../observability/log';
import type { TurnRequest } from './host';
import type { TurnMetadata } from './stream';

/* The one `turn.end` log line of a turn, and how a saved turn ended, as that line says it. */

export type TurnReport = (fields: LogFields, level?: LogLevel) => void;

/** The one `turn.end` line of a turn (whichever way it ends first): kind, model, outcome, tokens, duration — never its messages. */
export function turnReport(kind: TurnRequest['kind'], model: string): TurnReport {
  const started = Date.now();
  let reported = false;
  return (fields, level = 'info') => {
    if (reported) return;
    reported = true;
    logEvent('turn.end', { kind, model, ...fields, durationMs: Date.now() - started }, level);
  };
}

/** How a saved turn ended, from its answer's metadata (turn/stream.ts `TurnMetadata`). */
export function endOf(messages: UIMessage[]): LogFields {
  const last = messages.at(-1);
  const metadata = last?.role === 'assistant' ? (last.metadata as TurnMetadata | undefined) : undefined;
  return {
    outcome: metadata?.stopped ? 'stopped' : 'ok',
    finishReason: metadata?.finishReason,
    stepLimitReached: metadata?.stepLimitReached,
    inputTokens: metadata?.usage?.inputTokens,
    outputTokens: metadata?.usage?.outputTokens,
  };
}
