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
    requestedSchema: z.looseObject({
      properties: z.record(z.string(), ElicitationField).optional(),
      required: z.array(z.string()).optional(),
    }),
    status: z.enum(['pending', 'accept', 'decline', 'cancel', 'expired']).meta({
      description:
        '`pending` until the user answers; `expired` when nobody did in time; `cancel` too when the turn was stopped.',
    }),
    content: z.record(z.string(), z.unknown()).optional().meta({ description: 'What the user sent with `accept`.' }),
  })
  .meta({ id: 'ElicitationNotice' });
export type ElicitationNotice = z.infer<typeof ElicitationNotice>;

/** A tool call's progress (`notifications/progress`), as a transient `data-progress` part (id: the tool call's) carries it. */
export const ToolProgress = z
  .object({
    toolCallId: z.string(),
    server: ServerId,
    tool: z.string(),
    progress: z.number(),
    total: z.number().optional(),
    message: z.string().optional(),
  })
  .meta({ id: 'ToolProgress' });
export type ToolProgress = z.infer<typeof ToolProgress>;

/**
 * A tool call the server runs as a task (MCP Tasks), as the `data-task`
 * part (id: the tool call's) carries it and the message keeps it: updated
 * while the task runs, then final. The tool part stays `input-available`
 * (running) until the task's result replaces it.
 */
export const TaskNotice = z
  .object({
    toolCallId: z.string(),
    server: ServerId,
    tool: z.string(),
    taskId: z.string(),
    status: z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']),
    statusMessage: z.string().optional(),
    /** ms since epoch: when the call became a task, and when it last changed. */
    startedAt: z.number(),
    updatedAt: z.number(),
  })
  .meta({ id: 'TaskNotice' });
export type TaskNotice = z.infer<typeof TaskNotice>;
