import type { UIMessage } from 'ai';
import type { Message } from '../../shared/api/common';
import type {
  ConversationSnapshot,
  MessagesPage,
  PinnedSkills,
  SkillRef,
  TitleSet,
} from '../../shared/api/conversations';
import { ApiError } from '../errors';
import type { Owner } from '../owner';
import { toolCallIdsOf } from '../tools/large-results';
import type { TurnEvent } from '../turn/turn-events';
import { directoryOf } from './directory';
import type { FeedbackStore } from './feedback';
import type { History } from './history';
import type { SqlLargeResultStore } from './large-result-store';
import { type ConversationRecord, type ConversationRecordStore, isOwnedBy } from './record';
import { messagesBefore, transcriptWindow } from './transcript';

/** Who calls: an end user of a tenant, and the servers their browser token limits them to (if it does). */
export type Caller = Owner & { servers?: string[] | undefined };

export interface ThreadHost {
  env: Env;
  /** The conversation id. */
  name: string;
  record: ConversationRecordStore;
  history: History;
  largeResults: SqlLargeResultStore;
  /** The answers' ratings, shown with them (`metadata.feedback`). */
  ratings: FeedbackStore;
  waitUntil(promise: Promise<unknown>): void;
}

/**
 * The conversation as a thread: that it exists and whose it is, what it
 * says (the whole history, the newest messages, older ones by page), its
 * title, its pinned skills, and what the owner's threads list hears of it (created, active,
 * titled, removed).
 */
export class Thread {
  /** Set by `removed()`: storage is gone, and this instance is about to be aborted. */
  deleted = false;

  constructor(private readonly host: ThreadHost) {}

  /** Writes the existence row unless it exists (the first owner stays) and tells the owner's threads list. */
  async create(owner: Owner, servers: string[] | undefined): Promise<void> {
    if (this.deleted) throw new Error('conversation was deleted'); // ids are never reused
    this.host.record.create(this.host.name, owner, servers);
    const row = this.row()!;
    await directoryOf(this.host.env, row.owner).created(row.id, row.createdAt, row.servers);
  }

  /** The existence record, or undefined (never created, or deleted). */
  row(): ConversationRecord | undefined {
    return this.deleted ? undefined : this.host.record.read();
  }

  /** Whether `caller` may use this conversation (anyone else gets 404, as if it did not exist). */
  ownedBy(caller: Caller): boolean {
    const row = this.row();
    return row !== undefined && isOwnedBy(row, caller, caller.servers);
  }

  /** What `GET /v1/conversations/:id` returns (404 without the row). */
  snapshot(existing: ConversationRecord): ConversationSnapshot {
    const { id, createdAt, title } = existing;
    return {
      id,
      createdAt: new Date(createdAt).toISOString(),
      ...(title ? { title } : {}),
      messages: this.forClients(this.host.history.load()),
      pendingApprovals: this.host.history.waitingApprovals(),
    };
  }

  /** The newest messages, as a chat client loads them first (one frame's worth). */
  recent(): UIMessage[] {
    return transcriptWindow(this.host.history.load()).messages;
  }

  /** The same, as the API describes them. */
  transcript(): Message[] {
    return this.forClients(this.recent());
  }

  /** Older messages, a page at a time (404 for an unknown `before`). */
  messagesPage(before: string | undefined, limit: number): MessagesPage {
    const page = messagesBefore(this.host.history.load(), before, limit);
    if (!page) throw new ApiError(404, 'message_not_found', `No message ${before} in this conversation`);
    return { messages: this.forClients(page.messages), hasMore: page.hasMore };
  }

  /** Messages as the API gives them: with their ratings. */
  private forClients(messages: UIMessage[]): Message[] {
    return apiMessages(this.host.ratings.withFeedback(messages));
  }

  /** Sets (or, with "", clears) the title lists show. */
  async setTitle(existing: ConversationRecord, title: string): Promise<TitleSet> {
    this.host.record.setTitle(title);
    await directoryOf(this.host.env, existing.owner).titled(existing.id, title);
    return { id: existing.id, title };
  }

  /** The skills pinned for every turn. */
  pinnedSkills(): SkillRef[] {
    return this.host.record.pinnedSkills();
  }

  /** Pins `skills` (checked against the catalogs by the caller) in place of the ones before; duplicates once. */
  pinSkills(skills: SkillRef[]): PinnedSkills {
    const seen = new Set<string>();
    const unique = skills.filter(
      ({ server, name }) => !seen.has(`${server}\u0000${name}`) && seen.add(`${server}\u0000${name}`),
    );
    this.host.record.setPinnedSkills(unique);
    return { skills: unique };
  }

  /** The threads list hears of every saved turn (its order, and a title from the first message). */
  heard(event: TurnEvent): void {
    if (event.type !== 'turnEnded' || !event.messages) return;
    const { messages } = event;
    const row = this.row();
    if (!row) return;
    const first = messages.find((m) => m.role === 'user');
    const firstText = first?.parts.map((p) => (p.type === 'text' ? p.text : '')).join(' ');
    this.host.waitUntil(directoryOf(this.host.env, row.owner).active(row.id, Date.now(), firstText));
  }

  /** Forgets every message (the chat protocol's "clear"). */
  clear(): void {
    this.host.history.clear();
    this.host.largeResults.clear();
  }

  /** A chat client kept only `ids` (`setMessages`); an empty list clears. */
  keepOnly(ids: string[]): void {
    if (!ids.length) {
      this.clear();
      return;
    }
    this.host.history.keepOnly(ids);
    this.host.largeResults.keepOnly(toolCallIdsOf(this.host.history.load()));
  }

  /**
   * A new instance: no turn runs here yet, so one still marked pending was cut by an abort (and what its tool
   * calls kept belongs to an answer that was never saved).
   */
  recover(): void {
    if (this.host.history.recoverInterrupted())
      this.host.largeResults.keepOnly(toolCallIdsOf(this.host.history.load()));
  }

  /** The conversation is being deleted: nothing answers for it any more, and the threads list forgets it. */
  async removed(row: ConversationRecord): Promise<void> {
    this.deleted = true;
    await directoryOf(this.host.env, row.owner).removed(row.id);
  }
}

/**
 * The history as the API describes it (shared/api's `Message`). The one
 * place the two types meet: the AI SDK types a message's metadata `unknown`;
 * ours is always the object turns write.
 */
export function apiMessages(messages: UIMessage[]): Message[] {
  return messages as Message[];
}
