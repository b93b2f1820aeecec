import type { Conversation } from '../conversation/conversation';
import { liveConversationsOf } from '../limits/live-conversations';

/**
 * The end user connected or disconnected `server`: each of their
 * conversations holding live MCP sessions drops that server's connection
 * (and what it cached under the old authorization), so the next message
 * uses the new one without a reload. Conversations without live sessions
 * connect afresh anyway. `grant`: the new authorization (absent: disconnected);
 * a conversation already using it keeps its connection. Best effort: one that cannot be reached is told
 * nothing, and its next 401 leads it to the vault all the same.
 */
export async function announceAuthorizationChange(
  env: Env,
  owner: { tenant: string; user: string },
  server: string,
  grant?: string,
): Promise<void> {
  const ids = await liveConversationsOf(env, owner).ids();
  await Promise.allSettled(
    ids.map((id) =>
      (env.CONVERSATION.getByName(id) as DurableObjectStub<Conversation>).authorizationChanged(server, grant),
    ),
  );
}
