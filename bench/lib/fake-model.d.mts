/** Types for the part of fake-model.mjs the tests use (test/infra/global-setup.ts). */
export type Step =
  | { text: string; chunkChars?: number; delayMs?: number }
  | { toolCalls: Array<{ name: string; args: object }> };
export type Api = 'chat' | 'responses' | 'messages';
/** A request as an OpenAI chat body, whatever its wire format. */
export interface ChatBody {
  model?: string;
  messages: Array<{
    role: string;
    content: unknown;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
    tool_call_id?: string;
  }>;
  tools?: Array<{ type: 'function'; function: { name: string; description?: string; parameters?: unknown } }>;
}
export function startFakeModel(options: {
  port: number;
  decide: (chat: ChatBody, request: { bytes: number; api: Api }) => Step;
  keepBodies?: boolean;
}): Promise<{ baseUrl: string; requests: unknown[]; item(id: string): unknown; reset(): void; close(): Promise<void> }>;
export function contentText(content: unknown): string;
