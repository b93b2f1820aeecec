/**
 * Conversation ids. The service makes random UUIDs (122 random bits from the
 * platform CSPRNG) for `POST /v1/conversations`; a chat client may name its
 * own (`useChat` makes 16 random characters) on `POST /v1/chat`, which
 * creates the conversation on first use for the caller. Either way an id
 * alone grants nothing: every route checks the owner, and anyone else gets
 * 404. The floor of 16 characters keeps client-made ids hard to guess.
 */
export const CONVERSATION_ID_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

export function newConversationId(): string {
  return crypto.randomUUID();
}

export function isConversationId(value: string): boolean {
  return CONVERSATION_ID_PATTERN.test(value);
}
