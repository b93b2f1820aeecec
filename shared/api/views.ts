import { z } from 'zod';
import { ServerId } from './common';

/**
 * MCP Apps (extension `io.modelcontextprotocol/ui`): a tool's interactive
 * view, a `ui://` resource (`text/html;profile=mcp-app`) the widget renders in
 * a sandboxed iframe. The contract between the service and the widget.
 */

/** The view's declared sandbox needs (the resource's `_meta.ui`), as the service applied them. */
export const ViewSecurity = z
  .object({
    csp: z
      .object({
        connectDomains: z.array(z.string()).optional(),
        resourceDomains: z.array(z.string()).optional(),
        frameDomains: z.array(z.string()).optional(),
        baseUriDomains: z.array(z.string()).optional(),
      })
      .optional(),
    permissions: z
      .object({
        camera: z.object({}).optional(),
        microphone: z.object({}).optional(),
        geolocation: z.object({}).optional(),
        clipboardWrite: z.object({}).optional(),
      })
      .optional(),
    prefersBorder: z.boolean().optional(),
  })
  .meta({ id: 'ViewSecurity' });
export type ViewSecurity = z.infer<typeof ViewSecurity>;

/**
 * A `data-mcp-app` stream part's data: a tool with a view was called (sent
 * with the call, again with the result under the same part id). Kept in the
 * history, so a reload shows the view again. The model never sees it.
 */
export const AppToolCall = z
  .object({
    toolCallId: z.string(),
    server: ServerId,
    tool: z.string().meta({ description: "The tool's name at its server." }),
    resourceUri: z.string().meta({ description: 'The `ui://` resource of the view.' }),
    input: z.record(z.string(), z.unknown()),
    /** The MCP `CallToolResult` (content, structuredContent, isError) once the call ended. */
    result: z
      .looseObject({
        content: z.array(z.unknown()).optional(),
        structuredContent: z.unknown().optional(),
        isError: z.boolean().optional(),
      })
      .optional(),
    /** Set when the call failed before any result (the view gets `tool-cancelled`). */
    error: z.string().optional(),
  })
  .meta({ id: 'AppToolCall' });
export type AppToolCall = z.infer<typeof AppToolCall>;

/** `POST /v1/conversations/:id/views`: a link to one view document. */
export const ViewLinkBody = z
  .object({ server: ServerId, uri: z.string().min(1).max(4096) })
  .strict()
  .meta({ id: 'ViewLinkBody' });
export type ViewLinkBody = z.infer<typeof ViewLinkBody>;

export const ViewLink = z
  .object({
    url: z.string().meta({
      description:
        'The view document: `/views/<conversation>/<nonce>`, a capability URL (10 minutes), sandboxed by its own CSP.',
    }),
    expiresAt: z.string(),
    security: ViewSecurity,
  })
  .meta({ id: 'ViewLink' });
export type ViewLink = z.infer<typeof ViewLink>;

/** `POST /v1/conversations/:id/views/call`: a view calls a tool of its own server (never another's), with the model's approval rules. */
export const ViewToolCallBody = z
  .object({
    server: ServerId,
    name: z.string().min(1).max(200),
    arguments: z.record(z.string(), z.unknown()).default({}),
    approved: z
      .boolean()
      .optional()
      .meta({ description: "The user's yes, given in the widget (outside the view) after a 409 `approval_required`." }),
    onApprovalRequired: z.enum(['409', '202']).optional().meta({
      description:
        'A call that waits for the user: `409 approval_required` (the default), or `202 {approvalRequired}`, not an HTTP error (the widget’s choice).',
    }),
  })
  .strict()
  .meta({ id: 'ViewToolCallBody' });
export type ViewToolCallBody = z.infer<typeof ViewToolCallBody>;

export const ViewToolCallResult = z
  .object({
    result: z.looseObject({
      content: z.array(z.unknown()),
      structuredContent: z.unknown().optional(),
      isError: z.boolean().optional(),
    }),
  })
  .meta({ id: 'ViewToolCallResult' });
export type ViewToolCallResult = z.infer<typeof ViewToolCallResult>;

/** The answer (202) to a view's call that waits for the user, when the call asked for it (`onApprovalRequired: '202'`). */
export const ViewToolCallApprovalRequired = z
  .object({
    approvalRequired: z.object({
      server: ServerId,
      name: z.string(),
      message: z.string(),
    }),
  })
  .meta({ id: 'ViewToolCallApprovalRequired' });
export type ViewToolCallApprovalRequired = z.infer<typeof ViewToolCallApprovalRequired>;
