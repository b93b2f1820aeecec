import { PROTOCOL_VERSION_META_KEY, specTypeSchemas, type Transport } from '@modelcontextprotocol/client';
import { hookIncoming } from './incoming';

/**
 * Liberal in what we accept (docs/MCP-CLIENT.md "Lenient with servers"):
 * the SDK client validates every result whole, so one server that bends the
 * spec loses everything — a 2026 list without `ttlMs` fails, and with it the
 * server; one tool with a bad `inputSchema` fails the whole tools/list. This
 * sits between the transport and the SDK and mends exactly three things
 * before the SDK looks:
 *
 * - a 2026-07-28 result of a cacheable method without valid `ttlMs` /
 *   `cacheScope` gets ttl 0 and `private` — the strictest reading: stale at
 *   once, never shared (the SDK's own defaults, as for `server/discover`);
 * - a list entry its spec schema (the SDK's, `specTypeSchemas`) refuses is
 *   dropped, and the rest of the list kept;
 * - a 2026-07-28 result without `resultType` is read as `complete` (what an
 *   absent one means before 2026; the SDK refuses the result instead, and a
 *   tool call that ran is lost — the conformance suite's SEP-2322 check
 *   expects a client to take it as complete).
 *
 * Each is reported (`onResult`), so the catalog and /v1/servers can say
 * what was mended. Nothing else is loosened: size, depth and time limits,
 * JSON-RPC framing and every other result stay as strict as the SDK makes them.
 */

/** The 2026 methods whose results must carry cache hints (SEP-2549). */
const CACHEABLE = new Set([
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'server/discover',
  // The Skills extension's results are cacheable too (ext-skills PR #139).
  'skills/list',
  'skills/get',
  'resources/directory/read',
]);

/** Each list: where its entries are, their spec schema, and how to name one. */
const LISTS: Record<
  string,
  {
    key: string;
    schema: keyof typeof specTypeSchemas;
    noun: string;
    nameOf: (entry: Record<string, unknown>) => unknown;
  }
> = {
  'tools/list': { key: 'tools', schema: 'Tool', noun: 'tool', nameOf: (e) => e.name },
  'prompts/list': { key: 'prompts', schema: 'Prompt', noun: 'prompt', nameOf: (e) => e.name },
  'resources/list': { key: 'resources', schema: 'Resource', noun: 'resource', nameOf: (e) => e.uri ?? e.name },
  'resources/templates/list': {
    key: 'resourceTemplates',
    schema: 'ResourceTemplate',
    noun: 'resource template',
    nameOf: (e) => e.uriTemplate ?? e.name,
  },
};

export const NO_HINTS_WARNING = 'the result carries no cache hints (ttlMs, cacheScope): read as ttl 0, private';
export const NO_RESULT_TYPE_WARNING = 'the result carries no resultType: read as complete';

/** Entries named in a "dropped" warning; the rest are counted. */
const NAMED_DROPS = 3;
/** Requests remembered while unanswered (a request never answered must not grow this for good). */
const MAX_PENDING = 1_000;

/** What was mended in the results of one method so far: for a list, over its pages since the first. */
export interface Mended {
  method: string;
  /** Empty: the latest result (list: all its pages so far) needed nothing. */
  warnings: string[];
}

interface Pending {
  method: string;
  modern: boolean;
  /** A list's first page (no cursor): what was mended before is forgotten. */
  first: boolean;
}

interface ListWalk {
  noHints: boolean;
  dropped: string[];
}

/**
 * Mends the results of `transport` as described above, reporting each
 * result of a cacheable method or list to `onResult`. Patches the instance
 * (its `send`, and `onmessage` through incoming.ts), so it stays the SDK's
 * transport.
 */
export function acceptLeniently<T extends Transport>(transport: T, onResult: (mended: Mended) => void): T {
  const pending = new Map<string | number, Pending>();
  const walks = new Map<string, ListWalk>();
  /** Other methods whose latest result was mended: their next good one clears the warning. */
  const warned = new Set<string>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ('method' in message && 'id' in message) {
      const params = (message.params ?? {}) as { cursor?: unknown; _meta?: Record<string, unknown> };
      const modern = typeof params._meta?.[PROTOCOL_VERSION_META_KEY] === 'string';
      if (modern || CACHEABLE.has(message.method) || message.method in LISTS) {
        if (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value!);
        pending.set(message.id, { method: message.method, modern, first: params.cursor === undefined });
      }
    }
    return send(message, options);
  };
  // The first hook on the transport (incoming.ts): the others see what this has mended.
  return hookIncoming(transport, (message, next) => {
    if ('id' in message && message.id !== undefined && pending.size > 0) {
      const request = pending.get(message.id as string | number);
      if (request) {
        pending.delete(message.id as string | number);
        if ('result' in message && typeof message.result === 'object' && message.result !== null) {
          const mended = mend(request, message.result as Record<string, unknown>, walks);
          // Cacheable methods and lists always report (a good result clears what was said); others only a change.
          const tracked = CACHEABLE.has(request.method) || request.method in LISTS;
          if (tracked || mended.warnings.length || warned.has(request.method)) onResult(mended);
          if (!tracked) mended.warnings.length ? warned.add(request.method) : warned.delete(request.method);
        }
      }
    }
    next(message);
  });
}

function mend(request: Pending, result: Record<string, unknown>, walks: Map<string, ListWalk>): Mended {
  // An `input_required` (or other non-complete) result is not the answer yet: nothing to mend.
  if (result.resultType !== undefined && result.resultType !== 'complete')
    return { method: request.method, warnings: [] };
  const noResultType = request.modern && result.resultType === undefined;
  if (noResultType) result.resultType = 'complete';
  const typeWarning = noResultType ? [NO_RESULT_TYPE_WARNING] : [];
  let noHints = false;
  if (request.modern && CACHEABLE.has(request.method)) {
    if (!(typeof result.ttlMs === 'number' && Number.isSafeInteger(result.ttlMs) && result.ttlMs >= 0)) {
      result.ttlMs = 0;
      noHints = true;
    }
    if (result.cacheScope !== 'public' && result.cacheScope !== 'private') {
      result.cacheScope = 'private';
      noHints = true;
    }
  }
  const list = LISTS[request.method];
  if (!list) return { method: request.method, warnings: [...(noHints ? [NO_HINTS_WARNING] : []), ...typeWarning] };
  const walk = request.first
    ? { noHints: false, dropped: [] }
    : (walks.get(request.method) ?? { noHints: false, dropped: [] });
  walks.set(request.method, walk);
  walk.noHints ||= noHints;
  const entries = result[list.key];
  if (Array.isArray(entries)) {
    const validate = specTypeSchemas[list.schema]['~standard'].validate;
    result[list.key] = entries.filter((entry: unknown) => {
      const outcome = validate(entry);
      if (outcome instanceof Promise || !outcome.issues) return true;
      const issue = outcome.issues[0];
      const path = (issue?.path ?? []).map((p) => (typeof p === 'object' ? String(p.key) : String(p))).join('.');
      const name =
        typeof entry === 'object' && entry !== null ? list.nameOf(entry as Record<string, unknown>) : undefined;
      walk.dropped.push(
        `${typeof name === 'string' ? JSON.stringify(name) : '(unnamed)'} (${path ? `${path}: ` : ''}${issue?.message ?? 'invalid'})`,
      );
      return false;
    });
  }
  const warnings = walk.noHints ? [NO_HINTS_WARNING] : [];
  if (walk.dropped.length) warnings.push(droppedWarning(list.noun, walk.dropped));
  return { method: request.method, warnings: [...warnings, ...typeWarning] };
}

function droppedWarning(noun: string, dropped: string[]): string {
  const count = dropped.length;
  const named = dropped.slice(0, NAMED_DROPS).join(', ');
  const more = count > NAMED_DROPS ? `, and ${count - NAMED_DROPS} more` : '';
  return `${count} ${noun}${count === 1 ? '' : 's'} dropped: ${named}${more}`;
}
