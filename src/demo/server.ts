import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  McpError,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import pkg from '../../package.json' with { type: 'json' };
import {
  CUSTOMER_TEMPLATE,
  GUIDELINES_URI,
  PUBLISHED_TEMPLATE,
  STATIC_RESOURCES,
  listAllResources,
  paginate,
  publishedUri,
} from './catalog';
import { CUSTOMERS, findCustomer } from './content/customers';
import type { DemoStore } from './store';

/** MCP's "resource not found" error code (2025-06-18 and later). */
export const RESOURCE_NOT_FOUND = -32002;

const INSTRUCTIONS = `Acme Tasks is the team's task tracker.
- Tasks: list_tasks shows open work (read-only); create_task and complete_task change it.
- task://guidelines holds the team rules; read it before planning or estimating, and follow it. It changes (update_guidelines), so subscribe to it rather than remembering it.
- docs://test-matrix is the release test matrix: the product list and the report format are near its end.
- customer://{customerId}/profile gives a customer's plan, seats and account manager; customer ids complete via completion/complete.
- publish_document adds docs://published/{slug} documents (announced with resources/list_changed).
- The plan_day prompt turns the open tasks and the guidelines into a day plan; review_guidelines embeds the guidelines for review.`;

/** What a session needs from the Durable Object that hosts it. */
export interface DemoSessionHost {
  store: DemoStore;
  /** Entries per `resources/list` page. */
  pageSize: number;
  /** URIs this session subscribed to. */
  subscriptions: Set<string>;
  /** Tells every *other* session subscribed to `uri` that it changed. */
  broadcastUpdated(uri: string): void;
  /** Tells every *other* session that the resource list changed. */
  broadcastListChanged(): void;
}

type SendNotification = (notification: ServerNotification) => Promise<void>;

/**
 * Builds the MCP server of one session. State lives in the shared store; the
 * per-session parts are the subscriptions and the SDK's protocol state.
 */
export function createDemoServer(host: DemoSessionHost): McpServer {
  const { store } = host;
  const server = new McpServer(
    { name: 'acme-tasks-demo', title: 'Acme Tasks (demo)', version: pkg.version },
    {
      instructions: INSTRUCTIONS,
      capabilities: { resources: { subscribe: true, listChanged: true }, tools: {}, prompts: {}, completions: {} },
      // ajv compiles validators with `new Function`, which workerd forbids.
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    },
  );

  /** The calling session hears about its own change inside its POST response stream. */
  const notifySelfUpdated = async (send: SendNotification, uri: string) => {
    if (host.subscriptions.has(uri)) await send({ method: 'notifications/resources/updated', params: { uri } });
    host.broadcastUpdated(uri);
  };

  // ---- resources -------------------------------------------------------
  for (const resource of STATIC_RESOURCES) {
    const { uri, name, ...metadata } = resource.listing;
    server.registerResource(name, uri, metadata, () => ({ contents: [resource.read(store)] }));
  }

  server.registerResource(
    'customer-profile',
    new ResourceTemplate(CUSTOMER_TEMPLATE, {
      list: undefined,
      complete: { customerId: (value) => CUSTOMERS.map((c) => c.id).filter((id) => id.startsWith(value.toLowerCase())) },
    }),
    { title: 'Customer profile', description: 'Plan, seats, account manager and open tickets of one customer.', mimeType: 'application/json' },
    (uri, { customerId }) => {
      const customer = findCustomer(String(customerId));
      if (!customer) {
        throw new McpError(
          RESOURCE_NOT_FOUND,
          `Unknown customer "${String(customerId)}". Known customer ids: ${CUSTOMERS.map((c) => c.id).join(', ')}`,
          { uri: uri.href },
        );
      }
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(customer, null, 2) }] };
    },
  );

  server.registerResource(
    'published-document',
    new ResourceTemplate(PUBLISHED_TEMPLATE, {
      list: undefined,
      complete: { slug: (value) => store.documents().map((d) => d.slug).filter((slug) => slug.startsWith(value)) },
    }),
    { title: 'Published document', description: 'A markdown document published with publish_document.', mimeType: 'text/markdown' },
    (uri, { slug }) => {
      const doc = store.document(String(slug));
      if (!doc) throw new McpError(RESOURCE_NOT_FOUND, `No published document "${String(slug)}"`, { uri: uri.href });
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: doc.markdown }] };
    },
  );

  // ---- tools -----------------------------------------------------------
  server.registerTool(
    'list_tasks',
    {
      title: 'List tasks',
      description: 'Lists tasks, open ones by default.',
      inputSchema: { status: z.enum(['open', 'done', 'all']).default('open').describe('Which tasks to list') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ status }) => {
      const tasks = store.listTasks(status);
      return { content: [{ type: 'text', text: tasks.length ? JSON.stringify(tasks, null, 2) : `No ${status === 'all' ? '' : `${status} `}tasks.` }], structuredContent: { tasks } };
    },
  );

  server.registerTool(
    'create_task',
    {
      title: 'Create task',
      description: 'Creates an open task. Follow task://guidelines (one owner, estimates of at most 8 hours).',
      inputSchema: {
        title: z.string().trim().min(1).max(200).describe('What needs doing'),
        assignee: z.string().trim().min(1).max(80).optional().describe('Owner of the task'),
        estimateHours: z.number().positive().max(8).optional().describe('Estimate in hours (at most 8)'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (input) => {
      const task = store.createTask(input);
      return { content: [{ type: 'text', text: `Created task #${task.id}: ${task.title}` }], structuredContent: { task } };
    },
  );

  server.registerTool(
    'complete_task',
    {
      title: 'Complete task',
      description: 'Marks a task as done.',
      inputSchema: { id: z.number().int().positive().describe('Task id') },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ id }) => {
      const task = store.completeTask(id);
      if (!task) return { isError: true, content: [{ type: 'text', text: `No task #${id}. Use list_tasks to see task ids.` }] };
      return { content: [{ type: 'text', text: `Task #${task.id} is done: ${task.title}` }], structuredContent: { task } };
    },
  );

  server.registerTool(
    'update_guidelines',
    {
      title: 'Update guidelines',
      description: 'Replaces the text of task://guidelines. Subscribers are notified.',
      inputSchema: { text: z.string().trim().min(1).max(20_000).describe('The new guidelines, in full') },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ text }, extra) => {
      store.setGuidelines(text);
      await notifySelfUpdated(extra.sendNotification, GUIDELINES_URI);
      return { content: [{ type: 'text', text: `Guidelines updated (${text.length} characters).` }] };
    },
  );

  server.registerTool(
    'publish_document',
    {
      title: 'Publish document',
      description: 'Publishes a markdown document as docs://published/{slug}; clients are told the resource list changed.',
      inputSchema: {
        slug: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/).describe('URL-safe name, e.g. "retro-2026-11"'),
        title: z.string().trim().min(1).max(200),
        markdown: z.string().min(1).max(200_000),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ slug, title, markdown }, extra) => {
      const { created } = store.publish({ slug, title, markdown });
      const uri = publishedUri(slug);
      if (created) {
        await extra.sendNotification({ method: 'notifications/resources/list_changed' });
        host.broadcastListChanged();
      } else {
        await notifySelfUpdated(extra.sendNotification, uri);
      }
      return { content: [{ type: 'text', text: `${created ? 'Published' : 'Updated'} ${uri}` }, { type: 'resource_link', uri, name: slug, title, mimeType: 'text/markdown' }] };
    },
  );

  // ---- prompts ---------------------------------------------------------
  server.registerPrompt(
    'plan_day',
    {
      title: 'Plan my day',
      description: 'A day plan from the open tasks and the team guidelines.',
      argsSchema: {
        hours: completable(z.string().describe('Hours available today, 0.5 to 16'), (value) =>
          ['1', '2', '4', '6', '8'].filter((h) => h.startsWith(value)),
        ),
      },
    },
    ({ hours }) => {
      const value = Number(hours.trim());
      if (hours.trim() === '' || !Number.isFinite(value) || value < 0.5 || value > 16) {
        throw new McpError(ErrorCode.InvalidParams, `Invalid argument "hours": expected a number of hours between 0.5 and 16, got "${hours}"`);
      }
      const open = store.listTasks('open');
      const taskLines = open.length
        ? open.map((t) => `- #${t.id} ${t.title}${t.estimateHours ? ` (${t.estimateHours} h)` : ''}${t.assignee ? ` — ${t.assignee}` : ''}`).join('\n')
        : '- (no open tasks)';
      return {
        description: `Day plan for ${value} hours`,
        messages: [
          {
            role: 'user',
            content: {
              type: 'text',
              text: `Plan my day: I have ${value} hours of focused time.\n\nOpen tasks:\n${taskLines}\n\nFollow the team guidelines in ${GUIDELINES_URI}. Order the work, give each item a time box, and say what does not fit today.`,
            },
          },
        ],
      };
    },
  );

  server.registerPrompt(
    'review_guidelines',
    {
      title: 'Review the guidelines',
      description: 'Embeds the current team guidelines and asks for a critical review.',
      argsSchema: { focus: z.string().max(200).optional().describe('Aspect to focus the review on, e.g. "estimates"') },
    },
    ({ focus }) => ({
      messages: [
        { role: 'user', content: { type: 'resource', resource: { uri: GUIDELINES_URI, mimeType: 'text/plain', text: store.guidelines() } } },
        {
          role: 'user',
          content: { type: 'text', text: `Review the team guidelines above${focus ? `, focusing on ${focus}` : ''}. Point out rules that conflict, are vague, or are missing.` },
        },
      ],
    }),
  );

  // ---- subscriptions and pagination (beyond what McpServer does itself) --
  const knownUri = (uri: string) => {
    if (STATIC_RESOURCES.some((r) => r.listing.uri === uri)) return true;
    const published = /^docs:\/\/published\/(.+)$/.exec(uri);
    if (published) return store.document(published[1]!) !== undefined;
    const customer = /^customer:\/\/([^/]+)\/profile$/.exec(uri);
    return customer ? findCustomer(customer[1]!) !== undefined : false;
  };
  server.server.setRequestHandler(SubscribeRequestSchema, ({ params }) => {
    if (!knownUri(params.uri)) throw new McpError(RESOURCE_NOT_FOUND, `Resource ${params.uri} not found`, { uri: params.uri });
    host.subscriptions.add(params.uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, ({ params }) => {
    host.subscriptions.delete(params.uri);
    return {};
  });
  // Replaces McpServer's own (unpaginated) resources/list so that published
  // documents are listed and clients must follow nextCursor.
  server.server.setRequestHandler(ListResourcesRequestSchema, ({ params }) => {
    try {
      const { page, nextCursor } = paginate(listAllResources(store), params?.cursor, host.pageSize);
      return nextCursor ? { resources: page, nextCursor } : { resources: page };
    } catch (error) {
      throw new McpError(ErrorCode.InvalidParams, (error as Error).message);
    }
  });

  return server;
}
