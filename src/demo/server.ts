import {
  completable,
  inputRequired,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  ResourceTemplate,
  type CacheHint,
} from '@modelcontextprotocol/server';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
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
import { TASK_BOARD_URI } from './content/task-board';
import { registerBuildReport, TASKS_EXTENSION } from './build-report';
import type { ReportTasks } from './report-tasks';
import type { DemoStore } from './store';
import { registerTaskBoardTools, registerTaskBoardView } from './task-board';
import type { SkillCatalog } from '@modelcontextprotocol/server/ext/skills';

/** "Resource not found" as 2026-07-28 has it: -32602 with the URI in `data` (2025 clients accept it too). */
export const RESOURCE_NOT_FOUND = ProtocolErrorCode.InvalidParams;

const INSTRUCTIONS = `Acme Tasks is the team's task tracker.
- Tasks: list_tasks shows open work (read-only); create_task and complete_task change it.
- show_task_board shows the open tasks as an interactive board (an MCP Apps view) the user can act on; use it when the user wants to see or work through the board.
- task://guidelines holds the team rules; read it before planning or estimating, and follow it. It changes (update_guidelines), so subscribe to it rather than remembering it.
- docs://test-matrix is the release test matrix: the product list and the report format are near its end.
- customer://{customerId}/profile gives a customer's plan, seats and account manager; customer ids complete via completion/complete.
- publish_document adds docs://published/{slug} documents (announced with resources/list_changed).
- build_report writes a status report of the board; it takes a while (seconds, 20 by default), so it runs as a task (MCP Tasks) for clients that follow tasks.
- The plan_day prompt turns the open tasks and the guidelines into a day plan; review_guidelines embeds the guidelines for review.`;

/**
 * Cache hints of the 2026-07-28 revision (only 2026 results carry them).
 * Catalogs and fixed documents are the same for everyone and change rarely
 * (and list_changed announces changes); the guidelines change often and are
 * marked private, as per-team data would be; customer profiles are private.
 */
const HOUR = 3_600_000;
export const DEMO_CACHE_HINTS = {
  methods: {
    'server/discover': { ttlMs: HOUR, cacheScope: 'public' },
    'tools/list': { ttlMs: HOUR, cacheScope: 'public' },
    'prompts/list': { ttlMs: HOUR, cacheScope: 'public' },
    'resources/list': { ttlMs: 5 * 60_000, cacheScope: 'public' },
    'resources/templates/list': { ttlMs: HOUR, cacheScope: 'public' },
    'resources/read': { ttlMs: 5 * 60_000, cacheScope: 'public' },
  },
  guidelines: { ttlMs: 30_000, cacheScope: 'private' },
  customers: { ttlMs: 60_000, cacheScope: 'private' },
  // The skills' lists and files: the same for everyone, and they change only with a deploy.
  skills: { ttlMs: HOUR, cacheScope: 'public' },
} satisfies { methods: Record<string, CacheHint>; guidelines: CacheHint; customers: CacheHint; skills: CacheHint };

/** How a change made through one request reaches everyone who follows it. */
export interface DemoChanges {
  /** `uri` changed: 2026 listen streams that asked for it, and 2025 sessions subscribed to it. */
  resourceUpdated(uri: string): void;
  /** The resource list changed (a document was published). */
  resourcesChanged(): void;
}

/** What one server instance needs from the Durable Object that hosts it. */
export interface DemoServerHost {
  store: DemoStore;
  /** build_report's tasks (MCP Tasks), kept in the same storage. */
  reports: ReportTasks;
  /** Entries per `resources/list` page. */
  pageSize: number;
  changes: DemoChanges;
  /**
   * Set for the instance of one 2025 session: the URIs it subscribed to
   * (`resources/subscribe` exists only in that era; 2026 clients ask for
   * URIs when they open `subscriptions/listen`).
   */
  legacySubscriptions?: Set<string>;
  /** The demo's skills (content/skills.ts), loaded once by the engine (hashing them is async). */
  skills?: SkillCatalog | undefined;
}

/**
 * Builds one instance of the demo MCP server (SDK v2 `McpServer`): per
 * request for 2026-07-28 traffic, per session for 2025-11-25. State lives in
 * the shared store, so every instance sees the same tasks and documents.
 */
export function createDemoServer(host: DemoServerHost): McpServer {
  const { store, changes } = host;
  // Tasks (build_report) are a 2026-07-28 extension: declared to those requests only (2025 sessions get the report inline).
  const modern = !host.legacySubscriptions;
  const server = new McpServer(
    { name: 'acme-tasks-demo', title: 'Acme Tasks (demo)', version: pkg.version },
    {
      instructions: INSTRUCTIONS,
      capabilities: {
        resources: { subscribe: true, listChanged: true },
        tools: {},
        prompts: {},
        completions: {},
        ...(modern ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
      },
      cacheHints: DEMO_CACHE_HINTS.methods,
      // ajv compiles validators with `new Function`, which workerd forbids.
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    },
  );

  // ---- resources -------------------------------------------------------
  for (const resource of STATIC_RESOURCES) {
    const { uri, name, ...metadata } = resource.listing;
    const cacheHint = uri === GUIDELINES_URI ? DEMO_CACHE_HINTS.guidelines : undefined;
    server.registerResource(name, uri, { ...metadata, ...(cacheHint ? { cacheHint } : {}) }, () => ({
      contents: [resource.read(store)],
    }));
  }

  server.registerResource(
    'customer-profile',
    new ResourceTemplate(CUSTOMER_TEMPLATE, {
      list: undefined,
      complete: {
        customerId: (value) => CUSTOMERS.map((c) => c.id).filter((id) => id.startsWith(value.toLowerCase())),
      },
    }),
    {
      title: 'Customer profile',
      description: 'Plan, seats, account manager and open tickets of one customer.',
      mimeType: 'application/json',
      cacheHint: DEMO_CACHE_HINTS.customers,
    },
    (uri, { customerId }) => {
      const customer = findCustomer(String(customerId));
      if (!customer) {
        throw new ProtocolError(
          RESOURCE_NOT_FOUND,
          `Unknown customer "${String(customerId)}". Known customer ids: ${CUSTOMERS.map((c) => c.id).join(', ')}`,
          {
            uri: uri.href,
          },
        );
      }
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(customer, null, 2) }] };
    },
  );

  server.registerResource(
    'published-document',
    new ResourceTemplate(PUBLISHED_TEMPLATE, {
      list: undefined,
      complete: {
        slug: (value) =>
          store
            .documents()
            .map((d) => d.slug)
            .filter((slug) => slug.startsWith(value)),
      },
    }),
    {
      title: 'Published document',
      description: 'A markdown document published with publish_document.',
      mimeType: 'text/markdown',
    },
    (uri, { slug }) => {
      const doc = store.document(String(slug));
      if (!doc)
        throw new ProtocolError(RESOURCE_NOT_FOUND, `No published document "${String(slug)}"`, { uri: uri.href });
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: doc.markdown }] };
    },
  );

  /**
   * A 2025 session that changed something hears of it inside its own POST
   * response stream (as the spec allows for related messages); everyone
   * else through `changes`. 2026 responses carry no change notifications:
   * those travel only on listen streams.
   */
  const updated = async (
    uri: string,
    notify: (n: { method: 'notifications/resources/updated'; params: { uri: string } }) => Promise<void>,
  ) => {
    if (host.legacySubscriptions?.has(uri))
      await notify({ method: 'notifications/resources/updated', params: { uri } });
    changes.resourceUpdated(uri);
  };

  // ---- the task board view (MCP Apps: task-board.ts) ----------------------
  registerTaskBoardView(server, store);

  // ---- tools -----------------------------------------------------------
  server.registerTool(
    'list_tasks',
    {
      title: 'List tasks',
      description: 'Lists tasks, open ones by default.',
      inputSchema: z.object({
        status: z.enum(['open', 'done', 'all']).default('open').describe('Which tasks to list'),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ status }) => {
      const tasks = store.listTasks(status);
      return {
        content: [
          {
            type: 'text',
            text: tasks.length ? JSON.stringify(tasks, null, 2) : `No ${status === 'all' ? '' : `${status} `}tasks.`,
          },
        ],
        structuredContent: { tasks },
      };
    },
  );

  registerTaskBoardTools(server, store);

  server.registerTool(
    'create_task',
    {
      title: 'Create task',
      description: 'Creates an open task. Follow task://guidelines (one owner, estimates of at most 8 hours).',
      inputSchema: z.object({
        title: z.string().trim().min(1).max(200).describe('What needs doing'),
        assignee: z.string().trim().min(1).max(80).optional().describe('Owner of the task'),
        estimateHours: z.number().positive().max(8).optional().describe('Estimate in hours (at most 8)'),
      }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (input) => {
      const task = store.createTask(input);
      return {
        content: [{ type: 'text', text: `Created task #${task.id}: ${task.title}` }],
        structuredContent: { task },
      };
    },
  );

  server.registerTool(
    'complete_task',
    {
      title: 'Complete task',
      description: 'Marks a task as done.',
      inputSchema: z.object({ id: z.number().int().positive().describe('Task id') }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ id }) => {
      const task = store.completeTask(id);
      if (!task)
        return { isError: true, content: [{ type: 'text', text: `No task #${id}. Use list_tasks to see task ids.` }] };
      return {
        content: [{ type: 'text', text: `Task #${task.id} is done: ${task.title}` }],
        structuredContent: { task },
      };
    },
  );

  // Asks the user before it answers (elicitation): a form in the chat, in both protocol eras (2025 gets elicitation/create).
  server.registerTool(
    'weekly_report',
    {
      title: 'Weekly report',
      description: 'A report of the tasks; asks the user which tasks and how detailed.',
      inputSchema: z.object({}),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (_args, ctx) => {
      const answer = ctx.mcpReq.inputResponses?.scope as
        | { action?: string; content?: { status?: 'open' | 'done' | 'all'; detailed?: boolean } }
        | undefined;
      if (!answer) {
        const requestedSchema = z.object({
          status: z.enum(['open', 'done', 'all']).describe('Which tasks'),
          detailed: z.boolean().default(false).describe('One line per task'),
        });
        return inputRequired({
          inputRequests: {
            scope: inputRequired.elicit({ message: 'Which tasks should the weekly report cover?', requestedSchema }),
          },
        });
      }
      if (answer.action !== 'accept' || !answer.content?.status)
        return { content: [{ type: 'text', text: `No report: the user chose "${answer.action}".` }] };
      const tasks = store.listTasks(answer.content.status);
      const lines = answer.content.detailed ? tasks.map((t) => `- #${t.id} ${t.title} (${t.status})`) : [];
      return {
        content: [
          {
            type: 'text',
            text: [`Weekly report: ${tasks.length} ${answer.content.status} task(s).`, ...lines].join('\n'),
          },
        ],
      };
    },
  );

  // Long-running: a task for clients that follow MCP Tasks, else the report after the wait (build-report.ts).
  registerBuildReport(server, { store, reports: host.reports, tasks: modern });

  server.registerTool(
    'update_guidelines',
    {
      title: 'Update guidelines',
      description: 'Replaces the text of task://guidelines. Subscribers are notified.',
      inputSchema: z.object({ text: z.string().trim().min(1).max(20_000).describe('The new guidelines, in full') }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ text }, ctx) => {
      store.setGuidelines(text);
      await updated(GUIDELINES_URI, ctx.mcpReq.notify);
      await updated(TASK_BOARD_URI, ctx.mcpReq.notify); // the board shows the guidelines' first line
      return { content: [{ type: 'text', text: `Guidelines updated (${text.length} characters).` }] };
    },
  );

  server.registerTool(
    'publish_document',
    {
      title: 'Publish document',
      description:
        'Publishes a markdown document as docs://published/{slug}; clients are told the resource list changed.',
      inputSchema: z.object({
        slug: z
          .string()
          .regex(/^[a-z0-9][a-z0-9-]{0,63}$/)
          .describe('URL-safe name, e.g. "retro-2026-11"'),
        title: z.string().trim().min(1).max(200),
        markdown: z.string().min(1).max(200_000),
      }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ slug, title, markdown }, ctx) => {
      const { created } = store.publish({ slug, title, markdown });
      const uri = publishedUri(slug);
      if (created) {
        if (host.legacySubscriptions) await ctx.mcpReq.notify({ method: 'notifications/resources/list_changed' });
        changes.resourcesChanged();
      } else {
        await updated(uri, ctx.mcpReq.notify);
      }
      return {
        content: [
          { type: 'text', text: `${created ? 'Published' : 'Updated'} ${uri}` },
          { type: 'resource_link', uri, name: slug, title, mimeType: 'text/markdown' },
        ],
      };
    },
  );

  // ---- prompts ---------------------------------------------------------
  server.registerPrompt(
    'plan_day',
    {
      title: 'Plan my day',
      description: 'A day plan from the open tasks and the team guidelines.',
      argsSchema: z.object({
        hours: completable(z.string().describe('Hours available today, 0.5 to 16'), (value) =>
          ['1', '2', '4', '6', '8'].filter((h) => h.startsWith(value)),
        ),
      }),
    },
    ({ hours }) => {
      const value = Number(hours.trim());
      if (hours.trim() === '' || !Number.isFinite(value) || value < 0.5 || value > 16) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Invalid argument "hours": expected a number of hours between 0.5 and 16, got "${hours}"`,
        );
      }
      const open = store.listTasks('open');
      const taskLines = open.length
        ? open
            .map(
              (t) =>
                `- #${t.id} ${t.title}${t.estimateHours ? ` (${t.estimateHours} h)` : ''}${t.assignee ? ` — ${t.assignee}` : ''}`,
            )
            .join('\n')
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
      argsSchema: z.object({
        focus: z.string().max(200).optional().describe('Aspect to focus the review on, e.g. "estimates"'),
      }),
    },
    ({ focus }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: { uri: GUIDELINES_URI, mimeType: 'text/plain', text: store.guidelines() },
          },
        },
        {
          role: 'user',
          content: {
            type: 'text',
            text: `Review the team guidelines above${focus ? `, focusing on ${focus}` : ''}. Point out rules that conflict, are vague, or are missing.`,
          },
        },
      ],
    }),
  );

  // ---- pagination, and subscriptions of 2025 sessions (beyond what McpServer does itself) --
  // Replaces McpServer's own (unpaginated) resources/list so that published
  // documents are listed and clients must follow nextCursor.
  // The skills extension: skills/list, skills/get, and each skill file readable as skill://<skill>/<file>. (Our own
  // resources/list below replaces the one it would extend: the skills are found through skills/list.)
  host.skills?.attach(server);

  server.server.setRequestHandler('resources/list', ({ params }) => {
    try {
      const { page, nextCursor } = paginate(listAllResources(store), params?.cursor, host.pageSize);
      return nextCursor ? { resources: page, nextCursor } : { resources: page };
    } catch (error) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, (error as Error).message);
    }
  });
  const subscriptions = host.legacySubscriptions;
  if (subscriptions) {
    server.server.setRequestHandler('resources/subscribe', ({ params }) => {
      if (!knownUri(store, params.uri))
        throw new ProtocolError(RESOURCE_NOT_FOUND, `Resource ${params.uri} not found`, { uri: params.uri });
      subscriptions.add(params.uri);
      return {};
    });
    server.server.setRequestHandler('resources/unsubscribe', ({ params }) => {
      subscriptions.delete(params.uri);
      return {};
    });
  }
  return server;
}

function knownUri(store: DemoStore, uri: string): boolean {
  if (uri === TASK_BOARD_URI || STATIC_RESOURCES.some((r) => r.listing.uri === uri)) return true;
  const published = /^docs:\/\/published\/(.+)$/.exec(uri);
  if (published) return store.document(published[1]!) !== undefined;
  const customer = /^customer:\/\/([^/]+)\/profile$/.exec(uri);
  return customer ? findCustomer(customer[1]!) !== undefined : false;
}
