import type { UIMessage } from 'ai';

/**
 * What a turn needs of the conversation's history. conversation/history.ts
 * implements it in the Durable Object's SQLite; turn/ never imports
 * conversation/. The edits themselves are turn/messages.ts's; a store keeps
 * what they return.
 */
export interface TurnStore {
  /** Every message, in order. */
  load(): UIMessage[];
  /** Saves messages (new appended, changed ones updated); `completesTurn` clears the pending marks `begin` wrote. */
  save(messages: UIMessage[], completesTurn?: boolean): void;
  /** A turn starts: its new messages are written now and marked pending (an abort mid-turn cannot make them vanish). */
  begin(newMessages: UIMessage[], continues?: UIMessage): void;
  /** The turn failed: its new messages go, as if it never started. */
  rollback(): void;
  /** A regeneration completed: the message `fromId` and every later one are replaced by `messages`, in one transaction. */
  replaceFrom(fromId: string, messages: UIMessage[]): void;
}
