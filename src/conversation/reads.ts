import type { Catalog } from '../../shared/api/catalog';
import type * as Api from '../../shared/api/conversations';
import type { ReadResourceBody, ResourceView } from '../../shared/api/resources';
import { takeViewCall } from '../limits/turn-limits';
import { requireSkills } from '../mcp/extensions';
import { catalogPlan } from '../prompt/catalog-plan';
import { readForDisplay } from '../prompt/resource-view';
import { type RpcResult, toRpcResult } from '../rpc';
import { modelStates } from '../turn/context';
import type { ConversationTerms } from './terms';
import type { LiveSessions } from './live-sessions';
import type { TurnPace } from './pace';
import type { Thread } from './thread';
import type { SqlViewNonces } from './view-nonces';
import { answerView, type ViewAnswer, type ViewRequest } from './views';

export interface ReadsHost {
  terms: ConversationTerms;
  live: LiveSessions;
  pace: TurnPace;
  thread: Thread;
  viewNonces: SqlViewNonces;
}

/**
 * What the routes read of the conversation outside a turn — its thread, the
 * MCP catalogs, a resource, a view, a completion — each an `RpcResult`
 * (a missing conversation is 404, ARCHITECTURE.md "Errors across RPC").
 */
export class ConversationReads {
  constructor(private readonly host: ReadsHost) {}

  /** Creates the conversation for its owner (idempotent) and answers its snapshot. */
  async create(
    owner: Parameters<Thread['create']>[0],
    servers?: string[],
  ): Promise<RpcResult<Api.ConversationSnapshot>> {
    await this.host.thread.create(owner, servers);
    return this.snapshot();
  }

  snapshot(): Promise<RpcResult<Api.ConversationSnapshot>> {
    return this.ofExisting(() => this.host.thread.snapshot(this.host.terms.existing()));
  }

  setTitle(title: string): Promise<RpcResult<Api.TitleSet>> {
    return this.ofExisting(() => this.host.thread.setTitle(this.host.terms.existing(), title));
  }

  transcript(): Promise<RpcResult<Api.ConversationSnapshot['messages']>> {
    return this.ofExisting(() => this.host.thread.transcript());
  }

  messagesPage(before: string | undefined, limit: number): Promise<RpcResult<Api.MessagesPage>> {
    return this.ofExisting(() => this.host.thread.messagesPage(before, limit));
  }

  /** Per server: status, info, capabilities, instructions, every catalog — and what the next turn's cost planner decides. */
  catalog(): Promise<RpcResult<Catalog>> {
    const { terms, pace } = this.host;
    return toRpcResult(() =>
      this.host.live.use(async (sessions) => {
        const servers = await sessions.catalog();
        const plan = catalogPlan(modelStates(servers), {
          model: terms.model(),
          gapsMs: pace.gaps(),
          settings: terms.settings(),
        });
        return { servers, plan };
      }),
    );
  }

  pinnedSkills(): Promise<RpcResult<Api.PinnedSkills>> {
    return this.ofExisting(() => ({ skills: this.host.thread.pinnedSkills() }));
  }

  /** Pins skills for every turn: each one the catalogs offer now (404 `skill_not_found` otherwise). */
  pinSkills(body: Api.PinnedSkillsBody): Promise<RpcResult<Api.PinnedSkills>> {
    return this.ofExisting(async () => {
      if (body.skills.length)
        await this.host.live.use(async (sessions) => requireSkills(await sessions.catalog(), body.skills));
      return this.host.thread.pinSkills(body.skills);
    });
  }

  /** A resource read for display (resource-view.ts): the stored contents and, under `model`, what the model would see. */
  readResource(request: ReadResourceBody): Promise<RpcResult<ResourceView>> {
    const { terms } = this.host;
    return toRpcResult(() =>
      this.host.live.use((sessions) => readForDisplay(sessions, request, terms.settings(), terms.acceptsImages())),
    );
  }

  /** MCP Apps (views.ts): a link to a view, the view's document by its link's nonce, a view's own tool call. */
  view<R extends ViewRequest>(request: R): Promise<RpcResult<ViewAnswer<R> & { tenant: string }>> {
    const { terms, live, viewNonces } = this.host;
    return toRpcResult(async () => {
      const owner = terms.owner();
      if (request.kind === 'call') await takeViewCall(terms.env, terms.config(), owner);
      return {
        ...((await live.use((sessions) => answerView(sessions, viewNonces, request))) as ViewAnswer<R>),
        tenant: owner.tenant,
      };
    });
  }

  /** `completion/complete` for a prompt or resource-template argument (the sessions check the reference). */
  complete({ server, ...params }: Api.CompleteBody): Promise<RpcResult<Api.CompleteResponse>> {
    return toRpcResult(() =>
      this.host.live.use(async (sessions) => ({ server, completion: await sessions.complete(server, params) })),
    );
  }

  /** `work`'s answer, or 404 when the conversation does not exist. */
  private ofExisting<T>(work: () => T | Promise<T>): Promise<RpcResult<T>> {
    return toRpcResult(async () => (this.host.terms.existing(), work()));
  }
}
