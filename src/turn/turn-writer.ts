import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/client';
import type { UIMessageChunk } from 'ai';
import type { ServerState } from '../mcp/catalog/catalog';
import { errorFields, logEvent } from '../observability/log';
import type { Owner } from '../owner';
import { authRequiredNotices } from './assembly';
import { type ElicitationAnswer, TurnElicitations } from './elicitations';

/**
 * The running turn's own way into its stream, for what comes from outside the model's steps while it streams: a
 * server's question (a form the user answers), a Connect card when a server needs the user again. One per streaming
 * turn (the runner holds it while the turn runs, runner.ts).
 */
export class TurnWriter {
  private readonly elicitations: TurnElicitations;

  constructor(
    private readonly write: (chunk: UIMessageChunk) => void,
    private readonly env: Env,
    /** Whose turn it is (a Connect card is made for them). */
    private readonly owner: Owner,
    elicitationTimeoutMs: number,
    abortSignal: AbortSignal,
  ) {
    this.elicitations = new TurnElicitations(write, elicitationTimeoutMs, abortSignal);
  }

  /**
   * A server needs the user (again) — its grant ended, or a tool needs more access: the Connect card goes into the
   * stream now, not at the next turn. Never rejects: a card that cannot be made is a warning (`auth.link`), not the
   * turn's end.
   */
  async authRequired(state: ServerState): Promise<void> {
    try {
      for (const chunk of await authRequiredNotices(this.env, this.owner, [state])) this.write(chunk);
    } catch (error) {
      logEvent('auth.link', { server: state.id, ...errorFields(error) }, 'warn');
    }
  }

  /** A server asks the user something: a form in the stream; resolves with the answer. */
  ask(server: string, params: ElicitRequestFormParams, signal: AbortSignal | undefined): Promise<ElicitResult> {
    return this.elicitations.ask(server, params, signal);
  }

  /** The user's answer to a question this turn asked (404 when none waits with that id; 400 when it does not fit). */
  answer(id: string, answer: ElicitationAnswer): void {
    this.elicitations.answer(id, answer);
  }

  /** A part into the stream (a view's call, a tool's progress). */
  send(chunk: UIMessageChunk): void {
    this.write(chunk);
  }
}
