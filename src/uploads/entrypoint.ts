import { WorkerEntrypoint } from 'cloudflare:workers';
import { type UploadScope, UploadStore } from './store';

/**
 * The built-in MCP server `uploads`, as a named entrypoint of this Worker.
 * It has no route: only this Worker reaches it, through the runtime's
 * loopback binding `exports.UploadsMcp({ props })` (uploads/loopback.ts), and
 * its props — set by the conversation that calls it, never by a request —
 * are its whole scope: one tenant's one conversation. No request from the
 * internet can reach it or name another conversation.
 *
 * The MCP server SDK is imported on the first request, not at the isolate's
 * start (as the demo server's): conversations without uploads never load it.
 */
export class UploadsMcp extends WorkerEntrypoint<Env, UploadScope> {
  override async fetch(request: Request): Promise<Response> {
    const { tenant, conversation } = this.ctx.props;
    const { serveUploads } = await import('./server');
    const scope = { tenant, conversation };
    return serveUploads(request, new UploadStore(this.env.UPLOADS, scope), scope);
  }
}
