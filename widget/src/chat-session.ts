import { skillAttachment } from './catalog-menus';
import { ChatError, type ChatApi } from './api';
import type { ElicitationAnswer } from './elicitation-form';
import { continuationPending } from './task-card-state';
import type { Attachment, Catalog, Message, ToolPart } from './types';
import { applyChunk, sseChunks, type StreamChunk } from './ui-stream';

const CATALOG_MAX_AGE_MS = 15_000;
/** Waits before each try to pick a broken stream up again; after the last, the person is offered "Try again". */
export const RESUME_DELAYS_MS = [500, 1_000, 2_000, 4_000];
/** How often an answer waiting for tool calls that run as tasks (MCP Tasks) is read again. */
export const TASK_POLL_MS = 1_500;
/** The longest wait between two looks at an answer waiting for tasks: a two-hour task is not read 4,800 times. */
export const TASK_POLL_MAX_MS = 15_000;

/** How long to wait before the next look, `waited` ms after the answer began to wait: every 1.5 s for the first 30 s, then a twentieth of the wait, at most 15 s. */
export const taskPollDelay = (waited: number) => Math.min(TASK_POLL_MAX_MS, Math.max(TASK_POLL_MS, waited / 20));
/** Polls in a row that may fail (no connection) before the person is told, with "Try again". */
const TASK_POLL_FAILURES = 4;
/** After the tasks ended, waits before each look for the turn that continues the answer (it takes a moment to start). */
export const CONTINUATION_DELAYS_MS = [250, 500, 1_000, 2_000, 4_000];

/**
 * What the session is doing: `ready` between turns, else busy. `connection-lost`:
 * a stream broke off and the session waits to pick the turn up again. `waiting`:
 * the answer waits for tool calls running as tasks; it goes on when they end.
 */
export type ChatStatus = 'ready' | 'loading' | 'answering' | 'waiting' | 'reconnecting' | 'connection-lost';

/**
 * The messages the person sees, as the session reads and changes them (the
 * AI SDK's `ChatState`): the transcript view, or a plain list in a test.
 */
export interface ChatMessages {
  all(): readonly Message[];
  find(id: string | undefined): Message | undefined;
  /** A copy of the message as last loaded from the history, to replay a resumed stream onto. */
  storedCopy(id: string | undefined): Message | undefined;
  /** The history as the service stored it, in place of everything shown. */
  show(messages: Message[]): void;
  /** One message as the service stores it now (a task moved): shown in place of the one with its id, and kept as its stored copy. */
  update(message: Message): void;
  add(message: Message): Message;
  replace(old: Message, message: Message): void;
  remove(message: Message): void;
}

/** Where the conversation id is kept across reloads: sessionStorage, or any object like it. */
export type ConversationStore = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export interface ChatSessionOptions {
  api: ChatApi;
  messages: ChatMessages;
  /** Read on each use (it may throw: storage blocked); null: the conversation is not kept. */
  storage(): ConversationStore | null;
  /** The conversation to continue; default: the one kept in storage. */
  conversation?: string | null;
  /** The person's language (a BCP 47 tag), sent with each message: the model is asked to answer in it. */
  language?(): string | undefined;
  /** Aborted when the chat leaves the page: no fetch, stream or timer outlives it. Read on each use. */
  lifetime(): AbortSignal;
  onStatus(status: ChatStatus): void;
  /** A chunk of a streaming answer was applied to `message`. */
  onChunk(message: Message, chunk: StreamChunk): void;
  /** Something failed; `retry`, when given, does it again (if trying again can help). */
  onError(error: unknown, retry?: () => void): void;
  /** A message changed outside a stream (an approval answered, or given back): show it now. */
  onMessageChange?(message: Message): void;
  /** An answer finished without error (also one that finished while the page was away); once per answer. */
  onFinish?(message: Message): void;
  /**
   * The answer waits for the person: it ended on a tool call to approve (it goes on once answered, and then
   * finishes), or a server asks a question mid-answer. Once per approval or question.
   */
  onWait?(message: Message, waitingFor: 'approval' | 'question'): void;
  /** A conversation was created, on first use. */
  onCreate?(id: string): void;
  /** An existing conversation's history is being loaded. */
  onLoad?(id: string): void;
}

export interface TurnOptions {
  /** The service refused the turn (nothing of it was stored): undo what was shown. */
  onRefused?: () => void;
  /** What "Try again" does; default: the same turn again. */
  retry?: () => void;
  /** The history as stored is read back once the turn ended well, before the page is idle again. */
  readBack?: boolean;
}

type Turn = (signal: AbortSignal) => Promise<Response>;

/**
 * One chat with the service, with no DOM (the AI SDK's `AbstractChat`): the
 * conversation's identity (created on first use, kept in storage), its
 * catalog, and the turns — started, streamed into the messages, picked up
 * again when the connection drops mid-answer (the turn goes on at the
 * service without us), undone when the service refuses them. The element is
 * a view over it: it renders the messages and the status and shows errors.
 */
export class ChatSession {
  private id: string | null;
  private creating: Promise<string> | null = null;
  private catalogCache: { value: Catalog; at: number } | null = null;
  /** The catalog read under way, if any. */
  private catalogRead: Promise<Catalog> | null = null;
  private current: ChatStatus = 'ready';
  /** The last consumed turn ended with an error chunk (the service kept nothing of it). */
  private turnFailed: string | null = null;
  /** Ends the current wait between two looks at a waiting answer at once (after a stop). */
  private wake: (() => void) | null = null;
  /** A stop came while the waiting answer was being looked at (no wait to end): the next wait is skipped. */
  private wakeNext = false;
  /**
   * Bumped when what the page shows gets a new owner: a turn begins or is
   * followed again, or a conversation is loaded. A history read that one of
   * these overtook is older than the page, and is not shown (reloadHistory).
   */
  private generation = 0;
  /** The chat left the page while busy: what it followed was cut there (backOnPage follows it again). */
  private cut = false;
  /** Called once the status is `ready` again. */
  private readyWaiters: Array<() => void> = [];
  /** The approvals and questions the host was told of (onWait): a replay of the same answer does not tell again. */
  private readonly toldWaiting = new Set<string>();

  constructor(private readonly options: ChatSessionOptions) {
    this.id = options.conversation || this.stored();
  }

  get conversationId(): string | null {
    return this.id;
  }
  get status(): ChatStatus {
    return this.current;
  }
  get busy(): boolean {
    return this.current !== 'ready';
  }

  // ---- the conversation ----------------------------------------------------------

  /** The conversation, created on first use; concurrent callers share one creation. */
  ensureConversation(): Promise<string> {
    if (this.id) return Promise.resolve(this.id);
    this.creating ??= this.options.api
      .createConversation()
      .then(({ id }) => {
        // The host may have switched to a conversation meanwhile: that one is shown, and used.
        if (this.id !== null) return this.id;
        this.id = id;
        this.remember(id);
        this.options.onCreate?.(id);
        return id;
      })
      .finally(() => (this.creating = null));
    return this.creating;
  }

  /** Another conversation, shown in place of this one. */
  switchTo(id: string): Promise<void> {
    this.id = id;
    this.catalogCache = null;
    this.catalogRead = null;
    this.remember(id);
    return this.load(id);
  }

  /**
   * A new chat ("New chat", or the shown one was deleted): nothing is shown, and the next use creates a
   * conversation. A history read still under way is dropped (generation).
   */
  startNew(): void {
    this.generation++;
    this.forget();
    this.options.messages.show([]);
  }

  /** The chat leaves the page: its lifetime is about to end, cutting the turn or wait it follows. */
  leftPage(): void {
    this.cut = this.busy;
  }

  /**
   * The chat is back on the page (a host moved it in the DOM): a turn or a
   * wait for tasks that was cut when it left goes on at the service, so it
   * is followed again from there once the cut one has wound down.
   */
  async backOnPage(): Promise<void> {
    if (!this.cut) return;
    this.cut = false;
    if (this.busy) await new Promise<void>((resolve) => this.readyWaiters.push(resolve));
    if (this.id && !this.busy) await this.load(this.id);
  }

  /** An existing conversation: its history, then the turn still running, if any. */
  async load(id: string): Promise<void> {
    this.generation++;
    this.setStatus('loading');
    this.options.onLoad?.(id);
    try {
      this.options.messages.show((await this.options.api.conversation(id)).messages);
      await this.follow(this.options.lifetime(), null);
      await this.followTasks(this.options.lifetime());
    } catch (error) {
      if (error instanceof ChatError && error.status === 404) this.forget();
      else if (!this.options.lifetime().aborted)
        this.options.onError(error, () => void (this.id === id && !this.busy && this.load(id)));
    } finally {
      this.setStatus('ready');
    }
  }

  /**
   * The catalog (servers, their resources and prompts), asked for again after 15 s. Callers at the same time
   * (the start screen, and the `@` typed as the chat got the focus) share one read.
   */
  catalog(): Promise<Catalog> {
    if (this.catalogCache && Date.now() - this.catalogCache.at < CATALOG_MAX_AGE_MS)
      return Promise.resolve(this.catalogCache.value);
    if (this.catalogRead) return this.catalogRead;
    // Kept in the cache only if nothing made it stale while it was read (another conversation, a file added).
    let read!: Promise<Catalog>;
    read = (async () => {
      const id = await this.ensureConversation();
      const value = await this.options.api.catalog(id);
      if (id === this.id && this.catalogRead === read) this.catalogCache = { value, at: Date.now() };
      return value;
    })().finally(() => {
      if (this.catalogRead === read) this.catalogRead = null;
    });
    this.catalogRead = read;
    return read;
  }

  /** The catalog changed (a file uploaded or removed): the next `@` asks for it again. */
  catalogChanged(): void {
    this.catalogCache = null;
    this.catalogRead = null;
  }

  /** What the catalog says of an attached resource (or skill), for its chip. */
  describe(server: string, uri: string): Attachment {
    const state = this.catalogCache?.value.servers.find((s) => s.id === server);
    const skill = state?.skills?.find((s) => s.uri === uri);
    if (skill) return skillAttachment(server, skill);
    const resource = state?.resources?.find((r) => r.uri === uri);
    return {
      server,
      uri,
      title: resource?.title ?? resource?.name ?? uri,
      ...(resource?.mimeType ? { mimeType: resource.mimeType } : {}),
      ...(resource?.size !== undefined ? { size: resource.size } : {}),
    };
  }

  private storageKey(): string {
    return `mcp-ondemand:${this.options.api.endpoint}`;
  }
  private stored(): string | null {
    try {
      return this.options.storage()?.getItem(this.storageKey()) ?? null;
    } catch {
      return null; // storage blocked (third-party iframe, privacy mode)
    }
  }
  private remember(id: string | null): void {
    try {
      const storage = this.options.storage();
      if (id) storage?.setItem(this.storageKey(), id);
      else storage?.removeItem(this.storageKey());
    } catch {
      // Not kept across reloads; the chat still works.
    }
  }

  /** Deleted, or not this person's (a token for someone else): the next message starts afresh. */
  private forget(): void {
    this.id = null;
    this.catalogCache = null;
    this.catalogRead = null;
    this.remember(null);
  }

  // ---- what the person does ------------------------------------------------------

  /**
   * Sends the person's message: shown at once, taken back if the service
   * refuses it (`onRefused` then puts it back in the box). True once its turn ended well.
   */
  send(
    text: string,
    attachments: ReadonlyArray<{ server: string; uri: string }>,
    options: TurnOptions = {},
  ): Promise<boolean> {
    const refs = () => attachments.map(({ server, uri }) => ({ server, uri }));
    const mine = this.options.messages.add({
      id: `local-${Date.now()}`,
      role: 'user',
      parts: [{ type: 'text', text }],
      metadata: { attachments: refs() },
    });
    return this.runTurn(
      async (signal) =>
        this.options.api.sendMessage(
          await this.ensureConversation(),
          { text, attachments: refs(), ...this.languageField() },
          signal,
        ),
      {
        ...options,
        onRefused: () => {
          this.options.messages.remove(mine);
          options.onRefused?.();
        },
      },
    );
  }

  private languageField(): { language?: string } {
    const language = this.options.language?.();
    return language ? { language } : {};
  }

  /** Runs a server's prompt as a turn. True once its turn ended well. */
  async runPrompt(server: string, name: string, values: Record<string, string>): Promise<boolean> {
    // Shown at once; replaced by the prompt's messages as the service stored them once the turn is over.
    const args = Object.entries(values)
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ');
    const placeholder = this.options.messages.add({
      id: `local-${Date.now()}`,
      role: 'user',
      parts: [{ type: 'text', text: args ? `(${args})` : '' }],
      metadata: { prompt: { server, name } },
    });
    const api = this.options.api;
    const ran = await this.runTurn(
      async (signal) =>
        api.runPrompt(
          await this.ensureConversation(),
          { server, name, arguments: values, ...this.languageField() },
          signal,
        ),
      { onRefused: () => this.options.messages.remove(placeholder), readBack: true },
    );
    return ran;
  }

  /** A tool call approved or denied: shown as answered at once; the stream that follows continues the same message. */
  answerApproval(toolCallId: string, approved: boolean): void {
    const message = this.options.messages
      .all()
      .find((m) => m.parts.some((p) => (p as { toolCallId?: string }).toolCallId === toolCallId));
    const part = message?.parts.find((p) => (p as { toolCallId?: string }).toolCallId === toolCallId) as
      | ToolPart
      | undefined;
    const show = (state: ToolPart['state'], decision?: boolean) => {
      if (!message || !part?.approval) return;
      part.state = state;
      if (decision === undefined) delete part.approval.approved;
      else part.approval.approved = decision;
      this.options.onMessageChange?.(message);
    };
    show('approval-responded', approved);
    void this.runTurn(async (signal) => this.options.api.answerApproval(this.id!, { toolCallId, approved }, signal), {
      // Refused (expired token, limit): the question is still open; ask it again.
      onRefused: () => show('approval-requested'),
    });
  }

  /** A server's question answered: the running turn (whose stream this session is reading) goes on with it. */
  answerElicitation: ElicitationAnswer = (elicitationId, action, content) => {
    if (!this.id) return;
    this.options.api
      .answerElicitation(this.id, elicitationId, { action, ...(content ? { content } : {}) })
      .catch((error: unknown) => this.options.onError(error));
  };

  /**
   * An account was just connected from the card of answer `turn`. That
   * answer was written without the server (one waiting for the person
   * offers the model none of its tools; one needing more access, not the
   * tool that needed it), so the question is still unanswered in
   * substance, and answering it is why the person connected: it is answered
   * again now, in place (the chat protocol's regenerate, as `useChat` does),
   * rather than leaving the person to ask again and the history holding an
   * answer that missed the server. Only when that answer is still the last
   * one and no turn runs: a later answer is never replaced. The answer's own
   * Regenerate button (answer-actions.ts) asks the same.
   */
  answerAgain(turn: string | undefined): boolean {
    const messages = this.options.messages;
    const last = messages.all().at(-1);
    const id = this.id;
    if (!turn || !id || this.busy || last?.role !== 'assistant' || last.id !== turn) return false;
    // The new answer streams in as a new message; the old one is put back if the service refuses.
    messages.remove(last);
    void this.runTurn((signal) => this.options.api.regenerate(id, last.id, signal), {
      onRefused: () => messages.find(last.id) || messages.add(last),
    });
    return true;
  }

  /**
   * Stops the turn on the service: the model and its tool calls stop, tasks
   * are cancelled; what was written stays, marked stopped. Also while the
   * answer waits for tasks (nothing streams then: the next look shows it).
   */
  async stop(): Promise<void> {
    const waiting = waitingAnswer(this.options.messages.all());
    if (!this.id || (!this.busy && !waiting)) return;
    try {
      await this.options.api.stop(this.id);
    } catch (error) {
      this.options.onError(error);
      return;
    }
    if (this.wake) this.wake();
    else if (this.busy) this.wakeNext = true;
    else await this.reloadHistory();
  }

  // ---- turns ---------------------------------------------------------------------

  /**
   * Runs one turn: starts it, streams the answer in, and — if the connection
   * drops mid-answer — picks it up again from the service (the turn goes on
   * there without us). `onRefused` undoes local changes when the service
   * refused the request outright (4xx/5xx before any streaming).
   */
  private async runTurn(start: Turn, options: TurnOptions = {}): Promise<boolean> {
    const retry = options.retry ?? (() => void this.runTurn(start, options));
    if (this.busy) {
      options.onRefused?.();
      this.options.onError(new ChatError(409, 'turn_in_progress', 'A turn is already running.'));
      return false;
    }
    const signal = this.options.lifetime();
    this.generation++;
    this.wakeNext = false;
    this.setStatus('answering');
    try {
      let response: Response;
      try {
        response = await start(signal);
      } catch (error) {
        if (signal.aborted) return false;
        if (error instanceof ChatError && error.code === 'not_found') this.forget();
        options.onRefused?.();
        this.options.onError(error, retry);
        return false;
      }
      await this.follow(signal, response);
      if (this.turnFailed !== null) {
        // The service stored nothing of a failed turn: show the history as it is, and give the message back.
        const reason = this.turnFailed;
        await this.reloadHistory();
        options.onRefused?.();
        this.options.onError(new ChatError(502, 'turn_failed', reason), retry);
        return false;
      }
      await this.followTasks(signal);
      if (options.readBack) await this.reloadHistory();
      return true;
    } finally {
      this.setStatus('ready');
    }
  }

  /** Follows the turn running on the service (from "Try again" after the connection could not be re-established). */
  private async resumeTurn(): Promise<void> {
    if (this.busy || !this.id) return;
    this.generation++;
    this.setStatus('reconnecting');
    try {
      await this.follow(this.options.lifetime(), null);
      await this.followTasks(this.options.lifetime());
    } finally {
      this.setStatus('ready');
    }
  }

  /**
   * Streams `response` (or the running turn, when null) into the messages.
   * A stream that ends without `finish` (or `abort`, `error`) means the
   * connection dropped, not that the answer is over: the running turn is
   * asked for again after each of RESUME_DELAYS_MS, then given up.
   * `replay`: `response` is the running turn's stream from its first chunk
   * (`GET …/stream`), replayed onto the message as stored.
   */
  private async follow(signal: AbortSignal, response: Response | null, replay = false): Promise<void> {
    let current = response;
    for (let attempt = 0; !signal.aborted; attempt++) {
      const resumed = replay || current === null;
      try {
        current ??= await this.options.api.resume(this.id!, signal);
        if (!current) {
          // Nothing running: the turn finished while we were away; its result is in the history,
          // and the host hears of it as of any finished turn.
          if (attempt > 0 && (await this.reloadHistory())) this.finished(this.options.messages.all().at(-1));
          return;
        }
        if (await this.consume(current, resumed)) {
          // A resumed stream may have begun before this page saw it: the history is the full story.
          if (resumed) await this.reloadHistory();
          return;
        }
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof ChatError) return this.options.onError(error, () => void this.resumeTurn());
        // Otherwise the stream broke: try again below.
      }
      if (attempt >= RESUME_DELAYS_MS.length) {
        return this.options.onError(
          // Its words are the person's language's (plain-errors.ts, by its code); the message is for the host's logs.
          new ChatError(0, 'connection_lost', 'The connection dropped and could not be re-established.'),
          () => void this.resumeTurn(),
        );
      }
      current = null;
      this.setStatus('connection-lost');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, RESUME_DELAYS_MS[attempt]);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
  }

  /** One response's chunks into its message. True when the turn ended; false when the stream broke off. */
  private async consume(response: Response, resumed: boolean): Promise<boolean> {
    const messages = this.options.messages;
    this.turnFailed = null;
    let message: Message | null = null;
    let ended = false;
    let failed = false;
    for await (const chunk of sseChunks(response.body!)) {
      if (chunk.type === 'start') {
        const existing = messages.find(chunk.messageId);
        if (existing && !resumed) {
          message = existing; // a continuation (after an approval) streams into the message it continues
        } else {
          // A new message; or a resumed stream, replayed from its first chunk onto the message as stored.
          message = messages.storedCopy(chunk.messageId) ?? { id: chunk.messageId ?? '', role: 'assistant', parts: [] };
          if (existing) messages.replace(existing, message);
          else messages.add(message);
        }
      }
      message ??= messages.add({ id: '', role: 'assistant', parts: [] });
      const said = applyChunk(message, chunk);
      const question = chunk.type === 'data-elicitation' ? (chunk.data as { id?: string; status?: string }) : undefined;
      if (question?.status === 'pending') this.waiting(message, 'question', `question ${question.id}`);
      if (said?.error) {
        failed = true;
        this.turnFailed = said.error;
        this.options.onError(new ChatError(502, 'turn_failed', said.error));
      }
      if (chunk.type === 'abort') failed = true;
      if (chunk.type === 'finish' || chunk.type === 'abort' || chunk.type === 'error') ended = true;
      this.options.onChunk(message, chunk);
    }
    if (message && ended && !failed) this.finished(message);
    return ended;
  }

  /**
   * Shows the history as stored. False when it could not be read, or when a
   * turn began or another conversation was loaded while it was read (Stop's
   * read-back, then the person sent again): that history is older than what
   * the page shows, and is dropped.
   */
  private async reloadHistory(): Promise<boolean> {
    const { generation, id } = this;
    try {
      const { messages } = await this.options.api.conversation(id!);
      if (generation !== this.generation || id !== this.id) return false;
      this.options.messages.show(messages);
      return true;
    } catch (error) {
      if (!this.options.lifetime().aborted) this.options.onError(error, () => void this.reloadHistory());
      return false;
    }
  }

  /**
   * The last answer waits for tool calls that run as tasks (MCP Tasks,
   * `metadata.waitingForTasks`). Nothing streams meanwhile: the service
   * updates the stored message as they move (their `data-task` parts), so it
   * is read again every TASK_POLL_MS, less often as the wait grows (taskPollDelay; GET …/messages?limit=1). When they have
   * ended the answer goes on at the service as a new turn, followed like any
   * other (GET …/stream) — and may wait for tasks again.
   */
  private async followTasks(signal: AbortSignal): Promise<void> {
    let failures = 0;
    const since = Date.now();
    for (;;) {
      const waiting = waitingAnswer(this.options.messages.all());
      if (!waiting || signal.aborted) return;
      this.setStatus('waiting');
      await this.pause(taskPollDelay(Date.now() - since) * 2 ** failures, signal);
      if (signal.aborted) return;
      let fresh: Message | undefined;
      try {
        fresh = await this.latest(waiting.id);
        failures = 0;
      } catch (error) {
        if (signal.aborted) return;
        // No connection: look again, less often; the service's refusal (an expired token, a deleted conversation): say so.
        const offline = error instanceof ChatError && error.status === 0;
        if (!offline || ++failures >= TASK_POLL_FAILURES)
          return this.options.onError(error, () => void this.resumeTurn());
        continue;
      }
      // No longer the last message (the conversation changed elsewhere): the history says what happened.
      if (!fresh) {
        if (!(await this.reloadHistory())) return;
        continue;
      }
      if (fresh.metadata?.waitingForTasks === true) continue;
      if (fresh.metadata?.stopped === true) return; // stopped: the tasks were cancelled, nothing goes on
      if (continuationPending(fresh)) await this.followContinuation(signal, fresh);
      else this.finished(fresh); // it went on, and ended, between two looks
    }
  }

  /** The tasks ended and the answer goes on as a new turn: followed once it streams (it takes a moment to begin). */
  private async followContinuation(signal: AbortSignal, before: Message): Promise<void> {
    this.setStatus('answering');
    for (const delay of [0, ...CONTINUATION_DELAYS_MS]) {
      if (delay) await this.pause(delay, signal);
      if (signal.aborted) return;
      let response: Response | null;
      try {
        response = await this.options.api.resume(this.id!, signal);
      } catch (error) {
        if (signal.aborted) return;
        if (!(error instanceof ChatError && error.status === 0))
          return this.options.onError(error, () => void this.resumeTurn());
        continue;
      }
      if (response) return this.follow(signal, response, true);
      // Nothing streams: the continuation has not begun yet, or it is over already (the message then shows it).
      const now = await this.latest(before.id).catch(() => undefined);
      if (now && !continuationPending(now)) {
        this.finished(now);
        return;
      }
    }
    await this.reloadHistory();
  }

  /** The newest message, if it is still `id`'s, shown as stored now (only when it changed). */
  private async latest(id: string): Promise<Message | undefined> {
    const { messages } = await this.options.api.latestMessages(this.id!, 1);
    const fresh = messages.at(-1);
    if (!fresh || fresh.id !== id) return undefined;
    if (JSON.stringify(this.options.messages.storedCopy(id)) !== JSON.stringify(fresh))
      this.options.messages.update(fresh);
    return fresh;
  }

  /** Waits `ms`; cut short when the chat leaves the page, or by `wake` (a stop); none after a stop that found no wait. */
  private pause(ms: number, signal: AbortSignal): Promise<void> {
    if (this.wakeNext) {
      this.wakeNext = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        if (this.wake === done) this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      this.wake = done;
    });
  }

  /**
   * An answer's turn ended. One that waits for tasks has not finished (it goes on when they end), nor one that waits
   * for an approval (it goes on once the person answers): the host hears of the answer once, when it is complete.
   */
  private finished(message: Message | undefined): void {
    if (message?.role !== 'assistant' || message.metadata?.waitingForTasks === true) return;
    const approvals = message.parts.flatMap((p) =>
      (p as Partial<ToolPart>).state === 'approval-requested' ? [(p as ToolPart).toolCallId] : [],
    );
    if (approvals.length) this.waiting(message, 'approval', `approval ${approvals.join(' ')}`);
    else this.options.onFinish?.(message);
  }

  private waiting(message: Message, waitingFor: 'approval' | 'question', key: string): void {
    if (this.toldWaiting.has(key)) return;
    this.toldWaiting.add(key);
    this.options.onWait?.(message, waitingFor);
  }

  private setStatus(status: ChatStatus): void {
    this.current = status;
    this.options.onStatus(status);
    if (status === 'ready') for (const resolve of this.readyWaiters.splice(0)) resolve();
  }
}

/** The last message, when it is an answer waiting for tool calls that run as tasks. */
function waitingAnswer(messages: readonly Message[]): Message | undefined {
  const last = messages.at(-1);
  return last?.role === 'assistant' && last.metadata?.waitingForTasks === true ? last : undefined;
}
