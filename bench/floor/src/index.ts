// The floor of the CPU benchmark: the same turn as mcp-ondemand's (the
// model calls read_resource, then answers; SSE back; the turn saved in the
// conversation's Durable Object), written as plainly as the AI SDK allows.
// What our service spends above this per turn is the cost of what it adds
// (MCP, cache, catalog prompt, limits, resumable streams…).
// Without a model (OPENAI_COMPATIBLE_BASE_URL unset: bench/load.mjs's memory
// floor) a turn stores its two rows and nothing else, and DELETE ends the
// object as ours does (src/conversation/removal.ts): what workerd keeps of a
// Durable Object that holds nothing.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { convertToModelMessages, stepCountIs, streamText, tool, type UIMessage } from 'ai';
import { DurableObject } from 'cloudflare:workers';
import { z } from 'zod';
// The demo server's task://guidelines (~600 bytes): the same text the service's model reads.
import { DEFAULT_GUIDELINES } from '../../../src/demo/content/guidelines';

interface Env {
  CONVERSATION: DurableObjectNamespace<Conversation>;
  OPENAI_COMPATIBLE_BASE_URL?: string;
}

/** About the JSON of one of a turn's messages, for a turn without a model. */
const ROW = JSON.stringify({ role: 'assistant', parts: [{ type: 'text', text: 'x'.repeat(2_000) }] });

// Same input shape as the service's read_resource, so the model request carries a comparable tool definition.
const tools = {
  read_resource: tool({
    description: 'Read one resource by URI.',
    inputSchema: z.object({
      uri: z.string().min(1),
      server: z.string().optional(),
      offset: z.number().int().min(0).optional(),
    }),
    execute: async ({ uri }) => ({ uri, text: DEFAULT_GUIDELINES }),
  }),
};

export class Conversation extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      'CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, json TEXT NOT NULL)',
    );
  }

  override async fetch(request: Request): Promise<Response> {
    if (new URL(request.url).pathname === '/create') return new Response(null, { status: 204 });
    if (request.method === 'DELETE') {
      await this.ctx.storage.deleteAll();
      // After this call has answered, as ours does: aborting now would fail the caller's request.
      setTimeout(() => this.ctx.abort('conversation deleted'), 0);
      return new Response(null, { status: 204 });
    }
    if (!this.env.OPENAI_COMPATIBLE_BASE_URL) {
      this.ctx.storage.sql.exec('INSERT INTO messages (json) VALUES (?), (?)', ROW, ROW);
      return new Response('data: {"type":"finish"}\n\ndata: [DONE]\n\n', {
        headers: { 'content-type': 'text/event-stream' },
      });
    }
    const { text } = (await request.json()) as { text: string };
    // The history goes to the model, as in any conversation.
    const history = this.ctx.storage.sql
      .exec<{ json: string }>('SELECT json FROM messages ORDER BY seq')
      .toArray()
      .map((row) => JSON.parse(row.json) as UIMessage);
    const messages: UIMessage[] = [
      ...history,
      { id: crypto.randomUUID(), role: 'user', parts: [{ type: 'text', text }] },
    ];
    const model = createOpenAICompatible({
      name: 'openai-compatible',
      baseURL: this.env.OPENAI_COMPATIBLE_BASE_URL,
    }).chatModel('fake');
    const result = streamText({
      model,
      system: 'You are a helpful assistant. Read the resources you need with read_resource.',
      messages: await convertToModelMessages(messages, { tools }),
      tools,
      stopWhen: stepCountIs(2),
    });
    return result.toUIMessageStreamResponse({
      originalMessages: messages,
      generateMessageId: () => crypto.randomUUID(),
      // The two rows of the turn: the user's message and the answer.
      onEnd: ({ messages: all }) => {
        for (const message of all.slice(-2))
          this.ctx.storage.sql.exec('INSERT INTO messages (json) VALUES (?)', JSON.stringify(message));
      },
    });
  }
}

export default {
  async fetch(request, env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === '/health') return new Response('ok');
    if (request.method === 'POST' && url.pathname === '/v1/conversations') {
      const id = crypto.randomUUID();
      await env.CONVERSATION.get(env.CONVERSATION.idFromName(id)).fetch('https://do/create', { method: 'POST' });
      return Response.json({ id }, { status: 201 });
    }
    const match = /^\/v1\/conversations\/([\w-]+)(\/messages)?$/.exec(url.pathname);
    if (match && (request.method === 'DELETE' ? !match[2] : request.method === 'POST' && match[2]))
      return env.CONVERSATION.get(env.CONVERSATION.idFromName(match[1]!)).fetch(request);
    return new Response('not found', { status: 404 });
  },
} satisfies ExportedHandler<Env>;
