import { runInDurableObject } from 'cloudflare:test';
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { UIMessage } from 'ai';
import type { Settings } from '../../src/config';
import type { Conversation } from '../../src/conversation/conversation';
import type { ApprovalAnswer } from '../../src/conversation/history';
import type { LiveStream } from '../../src/loop/live-stream';
import type { ResolvedModel } from '../../src/models/resolve';
import { toRpcResult, type RpcResult } from '../../src/rpc';

/*
 * What tests do inside a conversation's Durable Object that production never
 * asks of it over RPC: turns with a scripted model and settings, tool calls
 * outside a turn, waiting for background work. Built from the instance's
 * services (`instance.services`, reached through `runInDurableObject`), so
 * the production class carries no test-only entry points.
 */

/** One turn with a given model (and settings); `newMessages` empty continues the conversation (after an approval). */
export function turnIn(instance: Conversation, newMessages: UIMessage[], model: ResolvedModel, overrides: Partial<Settings> = {}): Promise<LiveStream> {
  return instance.services.startTurn(newMessages, model, overrides);
}

/** The user's decision on a waiting call, with a given model for the continued turn (undefined while others of the step wait). */
export function approveIn(
  instance: Conversation,
  answer: ApprovalAnswer | ApprovalAnswer[],
  model: ResolvedModel,
  overrides: Partial<Settings> = {},
): Promise<LiveStream | undefined> {
  return instance.services.approve(Array.isArray(answer) ? answer : [answer], model, overrides);
}

/** Calls an MCP tool in the conversation's session with that server, outside any turn. */
export function callTool(
  stub: DurableObjectStub<Conversation>,
  request: { server: string; name: string; arguments: Record<string, unknown> },
): Promise<RpcResult<CallToolResult>> {
  return runInDurableObject(stub, (instance) =>
    toRpcResult(() => instance.services.withMcp((sessions) => sessions.callTool(request.server, request.name, request.arguments))),
  );
}

/** Waits until the conversation's background KV writes and catalog refreshes are done; how many refreshes ran so far. */
export function settle(stub: DurableObjectStub<Conversation>): Promise<{ refreshes: number }> {
  return runInDurableObject(stub, settleIn);
}

export async function settleIn(instance: Conversation): Promise<{ refreshes: number }> {
  const { sessions, cache } = instance.services.live?.current ?? {};
  await sessions?.idle();
  await cache?.settled();
  return { refreshes: sessions?.refreshCount ?? 0 };
}
