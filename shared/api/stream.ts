import { z } from 'zod';
import { ServerId } from './common';

/**
 * The data of our own parts in a turn's UI message stream (`data-<name>`),
 * next to the AI SDK's parts. (`data-auth-required` is in connections.ts.)
 */

/** One field of an elicitation form: the flat schemas MCP elicitation allows (text, number, yes/no, one or more of a list). */
const ElicitationField = z.looseObject({
  type: z.string().optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  enum: z.array(z.string()).optional(),
  default: z.unknown().optional(),
});

/** A server's question to the user, as a `data-elicitation` part carries it and the message keeps it. */
export const ElicitationNotice = z
  .object({
    id: z.string(),
    server: ServerId,
    message: z.string(),
    requestedSchema: z.looseObject({ properties: z.record(z.string(), ElicitationField).optional(), required: z.array(z.string()).optional() }),
    status: z.enum(['pending', 'accept', 'decline', 'cancel', 'expired']).meta({
      description: '`pending` until the user answers; `expired` when nobody did in time; `cancel` too when the turn was stopped.',
    }),
    content: z.record(z.string(), z.unknown()).optional().meta({ description: 'What the user sent with `accept`.' }),
  })
  .meta({ id: 'ElicitationNotice' });
export type ElicitationNotice = z.infer<typeof ElicitationNotice>;
