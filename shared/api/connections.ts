import { z } from 'zod';
import { AuthRequiredReason } from './catalog';
import { ServerId } from './common';

/** Connections to OAuth-protected MCP servers (`/v1/connections`) and the stream's Connect notice. */

export const ConnectionStatus = z
  .object({
    server: ServerId,
    auth: z.enum(['oauth', 'client_credentials']),
    status: z.enum(['connected', 'not_connected', 'step_up_required']),
    scope: z.string().optional(),
    connectedAt: z.string().optional(),
    expiresAt: z.string().optional().meta({ description: 'When the access token expires (it is refreshed before).' }),
  })
  .meta({ id: 'ConnectionStatus', description: "One of the caller's connections (never a token)." });
export type ConnectionStatus = z.infer<typeof ConnectionStatus>;

export const ConnectionList = z
  .object({
    connections: z.array(
      ConnectionStatus.extend({
        connectUrl: z.url().optional().meta({ description: 'For a server not connected: the link to open.' }),
      }),
    ),
  })
  .meta({ id: 'ConnectionList' });
export type ConnectionList = z.infer<typeof ConnectionList>;

export const ConnectLink = z
  .object({
    server: ServerId,
    url: z.url(),
    expiresAt: z.string().meta({ description: 'ISO 8601; the link is single use.' }),
  })
  .meta({ id: 'ConnectLink' });
export type ConnectLink = z.infer<typeof ConnectLink>;

/** What the callback page hands to the window that opened the connect link (a `mcp-ondemand:oauth-code` message). */
export const CompleteConnectionBody = z
  .object({
    state: z
      .string()
      .min(1)
      .max(2_000)
      .meta({ description: 'The sealed `state` of the authorization, as handed over.' }),
    code: z.string().min(1).max(4_096).meta({ description: 'The authorization code, as handed over.' }),
    iss: z
      .string()
      .max(2_000)
      .optional()
      .meta({ description: 'The authorization server’s `iss`, when it sent one (RFC 9207).' }),
  })
  .strict()
  .meta({ id: 'CompleteConnectionBody' });
export type CompleteConnectionBody = z.infer<typeof CompleteConnectionBody>;

export const Connected = z.object({ server: ServerId, status: z.literal('connected') }).meta({ id: 'Connected' });
export type Connected = z.infer<typeof Connected>;

export const Disconnected = z
  .object({
    server: ServerId,
    status: z.literal('not_connected'),
    revoked: z
      .enum(['revoked', 'unsupported', 'failed', 'nothing'])
      .meta({ description: 'What the revocation (RFC 7009) at the server did.' }),
  })
  .meta({ id: 'Disconnected' });
export type Disconnected = z.infer<typeof Disconnected>;

/** A `data-auth-required` stream part's data: transient (in the live stream only, never in the history). */
export const AuthRequiredNotice = z
  .object({
    server: ServerId,
    reason: AuthRequiredReason,
    scope: z.string().optional(),
    connectUrl: z.url().optional(),
  })
  .meta({ id: 'AuthRequiredNotice' });
export type AuthRequiredNotice = z.infer<typeof AuthRequiredNotice>;
