import { z } from 'zod';
import { LanguageTag, Message, ServerId } from './common';

/** Conversations: their bodies and answers (`/v1/conversations`, `/v1/chat`). */

/** Most characters a conversation's title has. */
export const TITLE_MAX_CHARS = 120;

/** A resource the user (or the application) attaches to a message: read by the host, not by the model. */
export const Attachment = z
  .object({ server: ServerId.optional(), uri: z.string().min(1).max(4096) })
  .strict()
  .meta({ id: 'Attachment' });
export type Attachment = z.infer<typeof Attachment>;

const TextPart = z.object({ type: z.literal('text'), text: z.string() }).strict();
/**
 * A file the user sent with the message (the AI SDK's `FileUIPart`, as `useChat`'s `sendMessage({files})` makes it):
 * stored as an upload of the conversation and attached by reference, never pasted into the prompt.
 */
export const FilePart = z
  .object({
    type: z.literal('file'),
    mediaType: z.string().max(255),
    filename: z.string().max(1024).optional(),
    url: z.string().meta({
      description:
        'A `data:` URL with the file’s bytes (stored as an upload: the limits of POST …/files apply), or the `upload://` URI of a file this conversation has. Other URLs (`https:`, `blob:`) are refused (400 `unsupported_file_url`).',
    }),
    providerMetadata: z.unknown().optional(),
  })
  .strict()
  .meta({ id: 'FilePart' });
export type FilePart = z.infer<typeof FilePart>;
/** A user's message as clients send it: text parts, and files. */
export const UserMessage = z.object({
  id: z.string().min(1).max(100).optional(),
  role: z.literal('user'),
  parts: z
    .array(z.discriminatedUnion('type', [TextPart, FilePart]))
    .min(1)
    .max(20),
});

/**
 * One user turn, in any of three shapes: `{text}` (curl), `{message}`, or
 * `{messages}` as `useChat` / `useAgentChat` send it (the last message is the
 * new one; the server's own history is authoritative).
 */
export const SendMessageBody = z
  .looseObject({
    text: z.string().optional(),
    message: UserMessage.optional(),
    messages: z.array(z.unknown()).optional(),
    attachments: z.array(Attachment).max(100).optional(),
    language: LanguageTag.optional(),
  })
  .meta({
    id: 'SendMessageBody',
    description:
      'One of `text`, `message` or `messages`. `messages` is read as the AI SDK chat body (ChatRequestBody), exactly as on POST /v1/chat: a message, a regeneration (`trigger: "regenerate-message"`, `messageId`) or approval answers (the last message is the assistant message with them).',
  });
export type SendMessageBody = z.infer<typeof SendMessageBody>;

/**
 * The body the AI SDK's chat clients send — `useChat` over HTTP
 * (`DefaultChatTransport`) and `useAgentChat` over the WebSocket alike:
 * the chat id, the client's whole message list, and what to do with it.
 * The server's history is authoritative: only the last message (or the
 * message named by `messageId`) is read.
 */
export const ChatRequestBody = z
  .looseObject({
    id: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .meta({ description: 'The chat id (required on POST /v1/chat): names the caller’s conversation.' }),
    messages: z.array(z.unknown()).min(1).max(10_000),
    trigger: z.enum(['submit-message', 'regenerate-message']).default('submit-message'),
    messageId: z.string().min(1).max(200).optional(),
    attachments: z.array(Attachment).max(100).optional(),
    /** The user's language (`useChat`: `sendMessage(message, { body: { language } })`); kept with the message. */
    language: LanguageTag.optional(),
    /** `useAgentChat`'s tools that run in the browser (name, description, JSON schema). */
    clientTools: z
      .array(
        z.object({
          name: z.string().min(1).max(64),
          description: z.string().max(2_000).optional(),
          parameters: z.unknown().optional(),
        }),
      )
      .max(64)
      .optional(),
  })
  .meta({
    id: 'ChatRequestBody',
    description: "The AI SDK chat protocol's request; an application's own `body` fields ride along and are ignored.",
  });
export type ChatRequestBody = z.infer<typeof ChatRequestBody>;

export const TitleBody = z
  .object({ title: z.string().trim().max(TITLE_MAX_CHARS).meta({ description: 'The new title; "" clears it.' }) })
  .strict()
  .meta({ id: 'TitleBody' });

export const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(500).optional().meta({ description: '`nextCursor` of the previous page.' }),
});

export const PageQuery = z.object({
  before: z.string().min(1).max(200).optional().meta({ description: 'A message id: the page ends before it.' }),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const CompleteBody = z
  .object({
    server: ServerId,
    ref: z.discriminatedUnion('type', [
      z.object({ type: z.literal('ref/prompt'), name: z.string().min(1).max(200) }).strict(),
      z.object({ type: z.literal('ref/resource'), uri: z.string().min(1).max(4096) }).strict(),
    ]),
    argument: z.object({ name: z.string().min(1).max(200), value: z.string().max(1_000) }).strict(),
    context: z
      .object({ arguments: z.record(z.string(), z.string().max(10_000)).optional() })
      .strict()
      .optional(),
  })
  .strict()
  .meta({
    id: 'CompleteBody',
    description: 'An MCP `completion/complete` for a prompt or resource-template argument.',
  });
export type CompleteBody = z.infer<typeof CompleteBody>;

export const CompleteResponse = z
  .object({
    server: ServerId,
    completion: z.looseObject({
      values: z.array(z.string()),
      total: z.number().optional(),
      hasMore: z.boolean().optional(),
    }),
  })
  .meta({ id: 'CompleteResponse' });
export type CompleteResponse = z.infer<typeof CompleteResponse>;

export const RunPromptBody = z
  .object({
    server: ServerId,
    name: z.string().min(1).max(200),
    arguments: z.record(z.string(), z.unknown()).default({}),
    /** The user's language: the model is asked to answer the prompt in it (as with a message). */
    language: LanguageTag.optional(),
  })
  .strict()
  .meta({ id: 'RunPromptBody' });
export type RunPromptBody = z.infer<typeof RunPromptBody>;

export const PreviewQuery = z.object({
  preview: z
    .enum(['1', 'true', '0', 'false'])
    .optional()
    .meta({ description: '`1`: answer with the prompt’s messages as JSON, run nothing.' }),
});

/** `…/prompts/run?preview=1`: what the prompt would put into the conversation. */
export const PromptPreview = z
  .object({ server: ServerId, name: z.string(), description: z.string().optional(), messages: z.array(Message) })
  .meta({ id: 'PromptPreview' });
export type PromptPreview = z.infer<typeof PromptPreview>;

export const ElicitationAnswerBody = z
  .object({
    action: z.enum(['accept', 'decline', 'cancel']),
    content: z
      .record(
        z.string(),
        z.union([z.string().max(10_000), z.number(), z.boolean(), z.array(z.string().max(1_000)).max(100)]),
      )
      .optional()
      .meta({ description: "With `accept`: the form's values, checked against the server's schema." }),
  })
  .strict()
  .meta({ id: 'ElicitationAnswerBody' });
export type ElicitationAnswerBody = z.infer<typeof ElicitationAnswerBody>;

export const ApprovalBody = z
  .object({ toolCallId: z.string().min(1).max(200), approved: z.boolean(), reason: z.string().max(1_000).optional() })
  .strict()
  .meta({ id: 'ApprovalBody', description: "The user's decision on a tool call waiting for approval." });
export type ApprovalBody = z.infer<typeof ApprovalBody>;

/** A tool call waiting for the user's decision. */
export const PendingApproval = z
  .object({
    toolCallId: z.string(),
    toolName: z.string(),
    input: z.unknown(),
    approvalId: z.string(),
  })
  .meta({ id: 'PendingApproval' });
export type PendingApproval = z.infer<typeof PendingApproval>;

export const Conversation = z
  .object({
    id: z.string(),
    createdAt: z.string().meta({ description: 'ISO 8601.' }),
    title: z.string().optional().meta({ description: 'The title the user set, if any.' }),
    messages: z.array(Message),
    pendingApprovals: z.array(PendingApproval),
  })
  .meta({ id: 'Conversation', description: 'A conversation with its whole history.' });
export type ConversationSnapshot = z.infer<typeof Conversation>;

export const ThreadSummary = z
  .object({ id: z.string(), title: z.string(), createdAt: z.string(), lastActivityAt: z.string() })
  .meta({ id: 'ThreadSummary', description: 'One conversation as lists show it.' });
export type ThreadSummary = z.infer<typeof ThreadSummary>;

export const ThreadList = z
  .object({ conversations: z.array(ThreadSummary), nextCursor: z.string().nullable() })
  .meta({ id: 'ThreadList', description: "The caller's conversations, most recent activity first." });
export type ThreadList = z.infer<typeof ThreadList>;

export const MessagesPage = z.object({ messages: z.array(Message), hasMore: z.boolean() }).meta({ id: 'MessagesPage' });
export type MessagesPage = z.infer<typeof MessagesPage>;

export const TitleSet = z.object({ id: z.string(), title: z.string() }).meta({ id: 'TitleSet' });
export type TitleSet = z.infer<typeof TitleSet>;

/** Most skills one conversation pins. */
export const MAX_PINNED_SKILLS = 8;

/** A server's skill (MCP Skills extension) by name. */
export const SkillRef = z
  .object({ server: ServerId, name: z.string().min(1).max(64) })
  .strict()
  .meta({ id: 'SkillRef' });
export type SkillRef = z.infer<typeof SkillRef>;

export const PinnedSkillsBody = z
  .object({
    skills: z
      .array(SkillRef)
      .max(MAX_PINNED_SKILLS)
      .meta({
        description: `The skills every turn of this conversation loads (replacing the ones pinned before; [] unpins all). At most ${MAX_PINNED_SKILLS}.`,
      }),
  })
  .strict()
  .meta({ id: 'PinnedSkillsBody' });
export type PinnedSkillsBody = z.infer<typeof PinnedSkillsBody>;

export const PinnedSkills = z
  .object({ skills: z.array(SkillRef).meta({ description: 'In the order they were pinned.' }) })
  .meta({
    id: 'PinnedSkills',
    description:
      'The skills pinned for this conversation: their SKILL.md is in the system prompt of each turn, read and verified then.',
  });
export type PinnedSkills = z.infer<typeof PinnedSkills>;

export const ElicitationAnswered = z.object({ answered: z.string() }).meta({ id: 'ElicitationAnswered' });
export type ElicitationAnswered = z.infer<typeof ElicitationAnswered>;

export const Stopped = z
  .object({ stopped: z.boolean().meta({ description: 'Whether a turn was running.' }) })
  .meta({ id: 'Stopped' });
export type Stopped = z.infer<typeof Stopped>;
