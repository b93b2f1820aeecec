import { currentRequest } from './current-request';
import { redactForLog } from './redact';

/**
 * The events we log (docs/DEPLOY.md, "Watching a deployment", lists their
 * fields). Names are stable: dashboards, queries and alerts select on them.
 */
export type LogEvent =
  // Worker
  | 'http.request'
  | 'http.error'
  | 'auth.config'
  // a conversation's turns
  | 'turn.end'
  | 'turn.compacted'
  | 'turn.predicted_read'
  | 'model.call'
  | 'model.unpriced'
  | 'tool.call'
  | 'program.run'
  | 'program.config'
  | 'view.call'
  | 'pin.skipped'
  | 'ws.error'
  | 'turn.listener'
  | 'usage.ledger'
  | 'usage.budget'
  | 'ws.refused'
  | 'auth.link'
  // MCP sessions
  | 'mcp.connect'
  | 'mcp.request'
  | 'mcp.notification'
  | 'mcp.channel'
  | 'mcp.subscribe'
  | 'catalog.refresh'
  | 'catalog.truncated'
  | 'mcp.tool_changed'
  | 'mcp.instructions_changed'
  | 'mcp.definition_confirmed'
  | 'skill.integrity'
  | 'task.started'
  | 'task.refused'
  | 'task.poll'
  | 'task.timeout'
  | 'task.gone'
  | 'task.ended'
  | 'task.continue'
  | 'task.question'
  | 'task.result'
  | 'sessions.release'
  // caches, authorization, the demo server
  | 'cache.kv'
  | 'auth.refresh'
  | 'auth.changed'
  | 'auth.connect'
  | 'demo.mcp'
  // the user's files (uploads/)
  | 'uploads';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const RANK: Record<LogLevel, number> = { debug: -1, info: 0, warn: 1, error: 2 };
/** Lines below this level are never built (`LOG_LEVEL`, set by the entry points: src/index.ts, the conversation). */
let threshold = RANK.info;

/** `json`: each line an object (Workers Logs indexes its fields); `line`: one line of text (a terminal: `npm start`). */
export type LogFormat = 'json' | 'line';
let format: LogFormat = 'json';

/** The least level written from now on, in this isolate. */
export function setLogLevel(level: LogLevel): void {
  threshold = RANK[level];
}

/** `LOG_LEVEL` and `LOG_FORMAT` for this isolate (set by the entry points: src/index.ts, the conversation). */
export function configureLog(settings: { LOG_LEVEL: LogLevel; LOG_FORMAT: LogFormat }): void {
  setLogLevel(settings.LOG_LEVEL);
  format = settings.LOG_FORMAT;
}

/** Flat fields only: ids, names, counts, durations, outcomes. Never content, user text or credentials. */
export type LogFields = Record<string, string | number | boolean | undefined>;

/**
 * Keys whose values are never written, whatever a caller passes: the
 * redaction guard behind the rule above. Matched on the key lowercased
 * without `-` and `_`, at its end (`accessToken`, `x-api-key`; not `inputTokens`).
 */
const DENIED_KEYS =
  /(authorization|cookie|password|passwd|secret|token|apikey|credential|credentials|privatekey|signature|bearer)$/;
const MAX_CHARS = 1_000;
const MAX_STACK_CHARS = 4_000;

/**
 * One event, one line: a JSON object (Workers Logs indexes its fields; the
 * object, not a string, is what it parses) — or, with `LOG_FORMAT=line`, one
 * line of text (asLine) — with `event`, the request scope
 * (`requestId`, `tenant`, `conversation`: current-request.ts) and `fields`. String
 * values pass the redaction guard (redact.ts): known secrets and
 * credential-shaped values masked, URLs without their query.
 *
 * @example logEvent('mcp.request', { server: 'tracker', method: 'tools/call', durationMs: 42, outcome: 'ok' })
 */
export function logEvent(event: LogEvent, fields: LogFields = {}, level: LogLevel = 'info'): void {
  if (RANK[level] < threshold) return;
  const scope = currentRequest();
  const entry: Record<string, string | number | boolean> = { event };
  const all: LogFields = {
    requestId: scope?.requestId,
    tenant: scope?.tenant,
    conversation: scope?.conversation,
    ...fields,
  };
  for (const [key, value] of Object.entries(all)) {
    if (value === undefined || key === 'event') continue;
    if (DENIED_KEYS.test(key.toLowerCase().replace(/[-_]/g, ''))) entry[key] = '[redacted]';
    else
      entry[key] =
        typeof value === 'string' ? redactForLog(value).slice(0, key === 'stack' ? MAX_STACK_CHARS : MAX_CHARS) : value;
  }
  const line = format === 'line' ? asLine(entry, level) : entry;
  if (level === 'error') console.error(line);
  else if (level === 'warn') console.warn(line);
  else if (level === 'debug') console.debug(line);
  else console.log(line);
}

/** Scope fields, written last on a text line: the event's own fields are what a reader looks for first. */
const SCOPE = new Set(['requestId', 'tenant', 'conversation']);

/**
 * An entry as one line of text (`LOG_FORMAT=line`): `GET /v1/conversations 201 12ms tenant=default requestId=…` for a
 * request, `<event> key=value …` for the rest, `WARN`/`ERROR` first when it is one. A value with a space, quote,
 * `=` or line break (an error message, a stack) is JSON-quoted, so the event stays on one line.
 */
function asLine(entry: Record<string, string | number | boolean>, level: LogLevel): string {
  const { event, ...fields } = entry;
  let head = String(event);
  if (event === 'http.request') {
    head = `${fields.method} ${fields.route} ${fields.status} ${fields.durationMs}ms`;
    for (const key of ['method', 'route', 'status', 'durationMs']) delete fields[key];
  }
  const keys = Object.keys(fields);
  const pairs = [...keys.filter((k) => !SCOPE.has(k)), ...keys.filter((k) => SCOPE.has(k))].map((key) => {
    const value = fields[key]!;
    return `${key}=${typeof value === 'string' && (value === '' || /[\s"=]/.test(value)) ? JSON.stringify(value) : value}`;
  });
  return [...(level === 'info' ? [] : [level.toUpperCase()]), head, ...pairs].join(' ');
}

/**
 * What a log line says of a failure: `outcome` (an API error's code,
 * `aborted`, or `error`), `errorType` and the message (cut at 300
 * characters). The stack only when asked — unhandled errors, server side.
 */
export function errorFields(error: unknown, { stack = false }: { stack?: boolean } = {}): LogFields {
  const err = error instanceof Error ? error : undefined;
  const code = (error as { code?: unknown } | undefined)?.code;
  return {
    outcome: err?.name === 'AbortError' ? 'aborted' : typeof code === 'string' ? code : 'error',
    errorType: err?.name ?? typeof error,
    error: (err?.message ?? String(error)).slice(0, 300),
    ...(stack && err?.stack ? { stack: err.stack } : {}),
  };
}

/**
 * `logEvent` with at most `max` lines per key per `windowMs` (a storm of
 * 10,000 notifications is a few lines, not 10,000): the first line after a
 * window with lines left out says how many (`suppressed`).
 */
export function throttledLog(max = 10, windowMs = 1_000): (key: string, event: LogEvent, fields: LogFields) => void {
  const windows = new Map<string, { start: number; written: number; suppressed: number }>();
  return (key, event, fields) => {
    const now = Date.now();
    let window = windows.get(key);
    let suppressed = 0;
    if (!window || now - window.start >= windowMs) {
      suppressed = window?.suppressed ?? 0;
      window = { start: now, written: 0, suppressed: 0 };
      windows.set(key, window);
    }
    if (window.written >= max) {
      window.suppressed++;
      return;
    }
    window.written++;
    logEvent(event, suppressed ? { ...fields, suppressed } : fields);
  };
}
