import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/client';
import type { ElicitationAnswered, Stopped } from '../../shared/api/conversations';
import { type RpcResult, toRpcResult } from '../rpc';
import type { ElicitationAnswer } from '../turn/elicitations';
import { PendingStep } from '../turn/pending-step';
import type { TurnRunner } from '../turn/runner';
import type { ConversationTerms } from './terms';
import type { History } from './history';
import type { TaskFollower } from '../turn/tasks/task-follower';

export interface TurnControlsHost {
  terms: ConversationTerms;
  history: History;
  turns: TurnRunner;
  tasks: TaskFollower;
}

/**
 * What a user (over HTTP or the WebSocket) and a server do to the work in
 * flight, routed to whichever holds it: the running turn (in memory) or a
 * task its tool calls became (saved in the answer, followed from the alarm).
 */
export class TurnControls {
  constructor(private readonly host: TurnControlsHost) {}

  /** Stops the running turn and the tasks its tool calls became; whether anything was running. */
  async stop(): Promise<boolean> {
    const { turns, tasks } = this.host;
    const turn = turns.stop();
    if (turn) await turns.whenIdle();
    return (await tasks.stop()) || turn;
  }

  /** A server's question answered: a task's (a call of the saved answer waits on it) or the running turn's. */
  async answerElicitation(id: string, answer: ElicitationAnswer): Promise<void> {
    const pending = PendingStep.of(this.host.history.load()).find(id);
    if (pending?.kind === 'question') return this.host.tasks.answer(pending, answer);
    this.host.turns.answerElicitation(id, answer);
  }

  /** The routes' stop: whether anything was running (404 when the conversation does not exist). */
  stopped(): Promise<RpcResult<Stopped>> {
    return toRpcResult(async () => (this.host.terms.existing(), { stopped: await this.stop() }));
  }

  /** The routes' answer to a server's question (404 when the conversation does not exist, or nothing asks `id`). */
  answered(id: string, answer: ElicitationAnswer): Promise<RpcResult<ElicitationAnswered>> {
    return toRpcResult(
      async () => (this.host.terms.existing(), await this.answerElicitation(id, answer), { answered: id }),
    );
  }

  /** A server asks: a 2025 task's question is the task's (it may come while no turn runs); any other, the running turn's. */
  elicit(
    server: string,
    params: ElicitRequestFormParams,
    signal: AbortSignal | undefined,
    relatedTask?: string,
  ): Promise<ElicitResult> {
    return relatedTask !== undefined
      ? this.host.tasks.elicit(server, relatedTask, params, signal)
      : this.host.turns.elicit(server, params, signal);
  }
}
