import { runInDurableObject } from 'cloudflare:test';
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { UIMessage } from 'ai';
import type { Settings } from '../../src/config';
import type { Conversation } from '../../src/conversation/conversation';
import type { ApprovalAnswer } from '../../src/turn/messages';
import type { LiveStream } from '../../src/turn/live-stream';
import type { ResolvedModel } from '../../src/models/resolve';
import { toRpcResult, type RpcResult } from '../../src/rpc';

/*
 * What tests do inside a conversation's Durable Object that production never
 * asks of it over RPC: turns with a scripted model and settings, tool calls
 * outside a turn, waiting for background work. Built from the instance's
 * parts (`instance.parts`, reached through `runInDurableObject`): the model
 * and settings are set on its terms (ConversationTerms.override), so
 * the production class carries no test-only entry points.
 */

/**
 * One turn with a given model (and settings); `newMessages` empty continues the answer when nothing of it waits
 * (TurnRunner.continueIfReady: after an approval) — and throws when it may not go on.
 */
export function turnIn(
  instance: Conversation,
  newMessages: UIMessage[],
  model: ResolvedModel,
  overrides: Partial<Settings> = {},
): Promise<LiveStream> {
  return withModel(instance, model, overrides, () =>
    newMessages.length
      ? instance.parts.turns.start({ kind: 'message', newMessages })
      : instance.parts.turns.continueIfReady().then((live) => {
          if (!live) throw new Error('the answer may not go on: something of it still waits');
          return live;
        }),
  );
}

/**
 * Runs `work` (the start of a turn) with `model` and `overrides` set on the
 * conversation's terms, then puts the terms back: a later turn of the
 * same conversation (over HTTP, say) uses the tenant's model again.
 */
export async function withModel<T>(
  instance: Conversation,
  model: ResolvedModel,
  overrides: Partial<Settings>,
  work: () => Promise<T>,
): Promise<T> {
  instance.parts.terms.override({ model, settings: overrides });
  try {
    return await work();
  } finally {
    instance.parts.terms.override({});
  }
}

/** The user's decision on a waiting call, with a given model for the continued turn (undefined while others of the step wait). */
export function approveIn(
  instance: Conversation,
  answer: ApprovalAnswer | ApprovalAnswer[],
  model: ResolvedModel,
  overrides: Partial<Settings> = {},
): Promise<LiveStream | undefined> {
  return withModel(instance, model, overrides, () =>
    instance.parts.turns.approve(Array.isArray(answer) ? answer : [answer]),
  );
}

/** Calls an MCP tool in the conversation's session with that server, outside any turn. */
export function callTool(
  stub: DurableObjectStub<Conversation>,
  request: { server: string; name: string; arguments: Record<string, unknown> },
): Promise<RpcResult<CallToolResult>> {
  return runInDurableObject(stub, (instance) =>
    toRpcResult(() =>
      instance.parts.live.use((sessions) => sessions.callToolToEnd(request.server, request.name, request.arguments)),
    ),
  );
}

/** Waits until the conversation's background KV writes and catalog refreshes are done; how many refreshes ran so far. */
export function settle(stub: DurableObjectStub<Conversation>): Promise<{ refreshes: number }> {
  return runInDurableObject(stub, settleIn);
}

export async function settleIn(instance: Conversation): Promise<{ refreshes: number }> {
  const { sessions, cache } = instance.parts.live?.current ?? {};
  await sessions?.idle();
  await cache?.settled();
  return { refreshes: sessions?.refreshCount ?? 0 };
}
