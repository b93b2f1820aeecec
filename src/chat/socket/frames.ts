import type { CHAT_MESSAGE_TYPES, STREAM_RESUME_NONE_REASONS as AGENTS_RESUME_NONE_REASONS } from 'agents/chat';
import type { UIMessage } from 'ai';
import { z } from 'zod';

/*
 * The frames of `agents`' chat protocol (`useAgentChat`, @cloudflare/ai-chat)
 * as this service speaks them. Client frames are parsed into one
 * discriminated union; anything else on the socket is not ours and is
 * ignored. Server frames are built by the functions below, each named for
 * what it tells the client.
 */

/**
 * The frame names: agents' own constants (`agents/chat`), checked against
 * them at compile time (`satisfies`: a rename there fails `npm run
 * typecheck`), written out here so the Worker does not ship agents' chat
 * module (19 KiB) for fourteen strings.
 */
const T = {
  CHAT_MESSAGES: 'cf_agent_chat_messages',
  USE_CHAT_REQUEST: 'cf_agent_use_chat_request',
  USE_CHAT_RESPONSE: 'cf_agent_use_chat_response',
  CHAT_CLEAR: 'cf_agent_chat_clear',
  CHAT_REQUEST_CANCEL: 'cf_agent_chat_request_cancel',
  STREAM_RESUMING: 'cf_agent_stream_resuming',
  STREAM_RESUME_ACK: 'cf_agent_stream_resume_ack',
  STREAM_RESUME_REQUEST: 'cf_agent_stream_resume_request',
  STREAM_RESUME_NONE: 'cf_agent_stream_resume_none',
  STREAM_PENDING: 'cf_agent_stream_pending',
  TOOL_RESULT: 'cf_agent_tool_result',
  TOOL_APPROVAL: 'cf_agent_tool_approval',
  MESSAGE_UPDATED: 'cf_agent_message_updated',
  CHAT_RECOVERING: 'cf_agent_chat_recovering',
} as const satisfies typeof CHAT_MESSAGE_TYPES;
const STREAM_RESUME_NONE_REASONS = {
  IDLE: 'idle',
  CONTINUATION_OWNED: 'continuation-owned',
} as const satisfies typeof AGENTS_RESUME_NONE_REASONS;

/** Ours, not the hook's: a client answers a data-elicitation part through the socket (`agent.send`). */
export const ELICITATION_RESPONSE = 'mcp_elicitation_response';
export const ELICITATION_ERROR = 'mcp_elicitation_error';

const ChatRequest = z.object({
  type: z.literal(T.USE_CHAT_REQUEST),
  /** The hook's request id: the response frames carry it (a missing one gets an id of ours). */
  id: z.unknown().optional(),
  /** The AI SDK chat body: a JSON string as the hook sends it, or already an object. */
  init: z.object({ body: z.unknown().optional() }).loose().optional(),
});
/** Optional fields a client got wrong are read as absent (the frame still counts), as the hook's own server does. */
const optional = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

const ToolApproval = z.object({
  type: z.literal(T.TOOL_APPROVAL),
  toolCallId: z.string(),
  approved: z.boolean(),
  autoContinue: optional(z.boolean()),
});
const ToolResult = z.object({
  type: z.literal(T.TOOL_RESULT),
  toolCallId: z.string(),
  output: z.unknown().optional(),
  state: optional(z.string()),
  errorText: optional(z.string()),
  autoContinue: optional(z.boolean()),
});
const Cancel = z.object({ type: z.literal(T.CHAT_REQUEST_CANCEL) });
const Clear = z.object({ type: z.literal(T.CHAT_CLEAR) });
const Messages = z.object({ type: z.literal(T.CHAT_MESSAGES), messages: z.array(z.unknown()) });
const ResumeRequest = z.object({ type: z.literal(T.STREAM_RESUME_REQUEST), probeId: optional(z.string()) });
const ResumeAck = z.object({ type: z.literal(T.STREAM_RESUME_ACK), id: optional(z.string()) });
const ElicitationResponse = z.object({
  type: z.literal(ELICITATION_RESPONSE),
  id: z.string(),
  action: z.enum(['accept', 'decline', 'cancel']),
  /** Checked against the question's schema when it is answered (turn/elicitations.ts), with an error frame if it does not fit. */
  content: z.unknown().optional(),
});

export const ClientFrame = z.discriminatedUnion('type', [
  ChatRequest,
  ToolApproval,
  ToolResult,
  Cancel,
  Clear,
  Messages,
  ResumeRequest,
  ResumeAck,
  ElicitationResponse,
]);
export type ClientFrame = z.infer<typeof ClientFrame>;

/** A frame of ours, or undefined (another protocol's message, or one of ours that does not fit: ignored). */
export function parseClientFrame(value: unknown): ClientFrame | undefined {
  const parsed = ClientFrame.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** A probe's id, echoed in the answer to it. */
type Probe = { probeId?: string | undefined };
const probed = ({ probeId }: Probe) => (probeId ? { probeId } : {});

/** The conversation's messages; `connect`: sent on connect (the hook keeps messages it sent while the socket was opening). */
export const messagesFrame = (messages: UIMessage[], connect?: boolean) => ({
  type: T.CHAT_MESSAGES,
  messages,
  ...(connect ? { connect: true } : {}),
});
export const clearFrame = () => ({ type: T.CHAT_CLEAR });
export const messageUpdatedFrame = (message: UIMessage) => ({ type: T.MESSAGE_UPDATED, message });

/** One frame of a turn's response: a chunk (`body`), or its end (`done`). */
export interface ResponseFrame {
  id: string;
  body: string;
  done: boolean;
  error?: true;
  /** A chunk sent again to a tab that resumed; `seq` is the chunk's place in the turn. */
  replay?: true;
  replayComplete?: true;
  seq?: number;
  outcome?: 'completed' | 'error' | 'aborted';
  /** The turn continues the client's last assistant message (after an approval or a tool result). */
  continuation?: true;
}
export const responseFrame = (frame: ResponseFrame) => ({ type: T.USE_CHAT_RESPONSE, ...frame });

/** A turn is streaming: the tab asks for what it missed (`cf_agent_stream_resume_ack`). */
export const resumingFrame = (id: string, probe: Probe = {}) => ({ type: T.STREAM_RESUMING, id, ...probed(probe) });
/** Nothing to resume (`reason` null: none given — a continuation that failed to start). */
export const resumeNoneFrame = (probe: Probe = {}, reason: string | null = STREAM_RESUME_NONE_REASONS.IDLE) => ({
  type: T.STREAM_RESUME_NONE,
  ...(reason ? { reason } : {}),
  ...probed(probe),
});
/** A turn is being started (its MCP sessions, its context): announced with `resumingFrame` once it streams. */
export const pendingFrame = (probe: Probe = {}) => ({ type: T.STREAM_PENDING, ...probed(probe) });

export const elicitationErrorFrame = (id: string, code: string, message: string) => ({
  type: ELICITATION_ERROR,
  id,
  error: { code, message },
});
