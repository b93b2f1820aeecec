import { type CacheHint, createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
import pkg from '../../package.json' with { type: 'json' };
import { uploadUri } from '../../shared/api/files';
import { base64OfBytes } from '../../shared/base64';
import { errorFields, logEvent } from '../observability/log';
import { isTextType } from './content-type';
import type { UploadScope, UploadStore } from './store';

const INSTRUCTIONS =
  'Files the user uploaded to this conversation. Read one with read_resource when the question needs it.';

/**
 * Private, and kept an hour (the conversation caps it by CACHE_MAX_AGE_MS, in its memory only: see
 * conversation/live-sessions.ts). An upload's URI never names two contents (a second upload of a name gets a
 * suffix), and the conversation drops its copies and lists again itself after every upload or deletion.
 */
const HOUR = 3_600_000;
const PRIVATE: CacheHint = { ttlMs: HOUR, cacheScope: 'private' };
const CACHE_HINTS: Record<string, CacheHint> = {
  'server/discover': PRIVATE,
  'resources/list': PRIVATE,
  'resources/read': PRIVATE,
};

/**
 * The built-in MCP server `uploads` for one conversation (SDK v2, 2026-07-28 only, stateless): its files as
 * resources `upload://<conversation>/<name>` with their title, type and size, read from R2 — text types as `text`
 * (when every byte is UTF-8), anything else as base64 `blob`. No tools, no prompts. Listed anew for every request:
 * a conversation holds at most UPLOADS_PER_CONVERSATION files, and this server is asked only after a change, when a
 * hint expires, or for a read.
 */
export async function serveUploads(request: Request, store: UploadStore, scope: UploadScope): Promise<Response> {
  const handler = createMcpHandler(async () => buildServer(store, scope), {
    legacy: 'reject',
    onerror: (error) => logEvent('uploads', { what: 'mcp', ...errorFields(error) }, 'warn'),
  });
  return handler.fetch(request);
}

async function buildServer(store: UploadStore, { conversation }: UploadScope): Promise<McpServer> {
  const server = new McpServer(
    { name: 'uploads', title: 'Uploaded files', version: pkg.version },
    {
      instructions: INSTRUCTIONS,
      // Nothing to listen for: the conversation lists again itself after each change (no list_changed, no subscribe).
      capabilities: { resources: { listChanged: false } },
      cacheHints: CACHE_HINTS,
      // ajv compiles validators with `new Function`, which workerd forbids.
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    },
  );
  for (const upload of await store.list()) {
    const uri = uploadUri(conversation, upload.name);
    server.registerResource(
      upload.name,
      uri,
      { title: upload.title, mimeType: upload.mimeType, size: upload.size },
      async () => {
        const found = await store.get(upload.name);
        if (!found) return { contents: [] };
        return { contents: [contentsOf(uri, found.upload.mimeType, found.bytes)] };
      },
    );
  }
  return server;
}

/** Text only when the type says so and every byte is UTF-8; otherwise the bytes as they are (base64). */
function contentsOf(uri: string, mimeType: string, bytes: ArrayBuffer) {
  if (isTextType(mimeType)) {
    try {
      return { uri, mimeType, text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes) };
    } catch {
      return { uri, mimeType: 'application/octet-stream', blob: base64OfBytes(new Uint8Array(bytes)) };
    }
  }
  return { uri, mimeType, blob: base64OfBytes(new Uint8Array(bytes)) };
}
