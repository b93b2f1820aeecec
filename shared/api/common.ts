import { z } from 'zod';

/**
 * Building blocks of the HTTP API's schemas (shared/api/). Plain zod with
 * `.meta({ id })`: the id names the schema in the OpenAPI document's
 * components, and @hono/zod-openapi reads it from zod's own registry, so
 * these files need no HTTP framework and the widget can import their types.
 */

/** Every error answer: `{ error: { code, message } }` with the HTTP status. */
export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().meta({
        description: 'Stable, machine-readable (`not_found`, `invalid_body`, `rate_limited`, …).',
        example: 'not_found',
      }),
      message: z.string().meta({ description: 'For people; never a stack trace, upstream URL or credential.' }),
    }),
  })
  .meta({ id: 'Error', description: 'The one error shape of the API.' });
export type ErrorBody = z.infer<typeof ErrorBody>;

/** An identifier chosen by the service (conversation ids) or by a client (`useChat`'s chat id). */
export const ConversationId = z
  .string()
  .min(1)
  .max(128)
  .meta({ description: 'A conversation id.', example: 'c_01JZ8Q6Y3M1D7K2W5X9V4T0R8S' });

/** A configured MCP server's id (`MCP_SERVERS`, or the tenant's `mcpServers`). */
export const ServerId = z
  .string()
  .min(1)
  .max(64)
  .meta({ description: "An MCP server's id from the configuration.", example: 'demo' });

/** Longest language tag accepted (BCP 47 allows more, no real tag needs it). */
export const LANGUAGE_TAG_MAX_CHARS = 35;

/**
 * The user's language, a BCP 47 tag (`de`, `pt-BR`, `zh-Hant-TW`): user input, so bounded, shaped, and well-formed
 * by `Intl` (its canonical form is what the model is told).
 */
export const LanguageTag = z
  .string()
  .min(2)
  .max(LANGUAGE_TAG_MAX_CHARS)
  .regex(/^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$/)
  .refine(
    (tag) => {
      try {
        return Intl.getCanonicalLocales(tag).length === 1;
      } catch {
        return false;
      }
    },
    { message: 'Not a BCP 47 language tag' },
  )
  .meta({
    id: 'LanguageTag',
    description:
      'The user’s language (BCP 47, at most 35 characters). The model is asked to answer in it, unless the user writes in another.',
    example: 'de',
  });

/**
 * A part of a message: the AI SDK's `UIMessage` parts (`text`, `reasoning`,
 * `tool-<name>`, `dynamic-tool`, `file`, `data-<name>`, `step-start`, …).
 * Only `type` is fixed here: the AI SDK owns the rest (ai-sdk.dev, "UIMessage").
 */
export const MessagePart = z.looseObject({ type: z.string() }).meta({
  id: 'MessagePart',
  description: 'An AI SDK `UIMessage` part; `type` says which (see the AI SDK docs, "UIMessage").',
});

/** A message of the conversation, as the AI SDK's `UIMessage`. */
export const Message = z
  .object({
    id: z.string(),
    role: z.enum(['user', 'assistant', 'system']),
    parts: z.array(MessagePart),
    metadata: z
      .looseObject({
        attachments: z.array(z.object({ server: z.string(), uri: z.string() })).optional(),
        prompt: z.object({ server: z.string(), name: z.string() }).optional(),
        finishReason: z.string().optional(),
        language: z
          .string()
          .optional()
          .meta({ description: 'The language the user message was sent with (LanguageTag).' }),
        feedback: z
          .object({ rating: z.enum(['up', 'down']), comment: z.string().optional(), at: z.string() })
          .optional()
          .meta({ description: 'An answer’s rating (`POST …/messages/{messageId}/feedback`), the newest.' }),
      })
      .optional(),
  })
  .meta({ id: 'Message', description: 'An AI SDK `UIMessage`.' });
export type Message = z.infer<typeof Message>;

/**
 * An object the MCP specification defines (a `Resource`, a `Tool`, …), as
 * the server sent it: the fields named here are the ones every server sends,
 * the rest pass through. Typed as the MCP SDK's own type, which is the
 * source of truth for its shape.
 */
export function mcpObject<T>(name: string, shape: z.ZodRawShape): z.ZodType<T> {
  return z.looseObject(shape).meta({
    id: `Mcp${name}`,
    description: `An MCP \`${name}\` as the server sent it (modelcontextprotocol.io, specification 2026-07-28, "${name}").`,
  }) as unknown as z.ZodType<T>;
}
