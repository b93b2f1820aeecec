import type { UIMessage } from 'ai';
import { errorFields, logEvent } from '../observability/log';
import type { LiveStream } from './live-stream';

/**
 * What happens to a conversation's answer, told once to whoever listens:
 * - `turnStarted`: a turn streams (`continuation`: it goes on from the last assistant message);
 * - `messageUpdated`: a saved message changed outside a turn (an approval, a client tool's result, a task's
 *   notice or question) — `tell: false` for a change only the service reads;
 * - `turnEnded`: the turn is over — `messages` when its answer was saved (completed or stopped), none when it failed.
 */
export type TurnEvent =
  | { type: 'turnStarted'; stream: LiveStream; continuation: boolean }
  | { type: 'messageUpdated'; message: UIMessage; tell: boolean }
  | { type: 'turnEnded'; messages?: UIMessage[] | undefined };

export type TurnEventListener = (event: TurnEvent) => void;

/**
 * The runner's one event stream (turn/runner.ts publishes; the WebSocket,
 * the live sessions and the thread subscribe). A listener that throws is
 * logged: the others are still told, and the turn goes on.
 */
export class TurnEvents {
  private readonly listeners = new Set<TurnEventListener>();

  /** Subscribes; returns the unsubscribe. */
  on(listener: TurnEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: TurnEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        logEvent('turn.listener', { event: event.type, ...errorFields(error, { stack: true }) }, 'error');
      }
    }
  }
}
