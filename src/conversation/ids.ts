/**
 * Conversation ids are random UUIDs (122 random bits from the platform CSPRNG):
 * unguessable, so an id alone reveals nothing and cannot be enumerated.
 */
export const CONVERSATION_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export function newConversationId(): string {
  return crypto.randomUUID();
}

export function isConversationId(value: string): boolean {
  return CONVERSATION_ID_PATTERN.test(value);
}
