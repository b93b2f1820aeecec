import { tracing } from 'cloudflare:workers';
import { errorFields, type LogEvent, type LogFields, type LogLevel, logEvent } from './log';

type Attributes = Record<string, boolean | number | string | undefined>;

/** Where the runtime has no tracing (older workerd, Node), work just runs and spans record nothing. */
const hasTracing = () => typeof tracing?.enterSpan === 'function';

/**
 * Runs `work` inside a Workers tracing span (`observability.traces` in
 * wrangler.toml; exported with the platform's own fetch, KV and Durable
 * Object spans, and to OpenTelemetry destinations). The span ends when the
 * work settles; a failure is recorded on it. Attributes never carry
 * content, credentials or user text: names, ids, counts, outcomes.
 */
export function traced<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  if (!hasTracing()) return work();
  return tracing.enterSpan(name, async (span) => {
    span.setAttributes(attributes);
    try {
      const result = await work();
      span.setAttribute('outcome', 'ok');
      return result;
    } catch (error) {
      span.setAttribute('outcome', 'error');
      span.setAttribute('error.type', error instanceof Error ? error.name : typeof error);
      throw error;
    }
  });
}

/**
 * One span and one log line for one piece of work: the span as `traced`
 * makes it (named `event`, attributes prefixed with `prefix`), and a line
 * `event` with `fields`, `durationMs` and `outcome` — on failure, what
 * `failure` says of it (by default log.ts `errorFields`: its code, type and message).
 *
 * @example observed('mcp.request', 'mcp', { server: 'tracker', method: 'tools/call' }, () => client.callTool(…))
 */
export async function observed<T>(
  event: LogEvent,
  prefix: string,
  fields: LogFields,
  work: () => Promise<T>,
  failure: (error: unknown) => LogFields = errorFields,
  okLevel: LogLevel = 'info',
): Promise<T> {
  const started = Date.now();
  try {
    const result = await traced(event, prefixed(prefix, fields), work);
    logEvent(event, { ...fields, durationMs: Date.now() - started, outcome: 'ok' }, okLevel);
    return result;
  } catch (error) {
    logEvent(event, { ...fields, durationMs: Date.now() - started, ...failure(error) }, 'warn');
    throw error;
  }
}

/** Log fields as span attributes: `{server}` → `{'mcp.server'}`. */
export const prefixed = (prefix: string, fields: LogFields): Attributes =>
  Object.fromEntries(Object.entries(fields).map(([key, value]) => [`${prefix}.${key}`, value]));

/** A span that ends when its owner says so (a model call ends when its stream finishes, in a callback). */
export interface OpenSpan {
  /** Runs `work` with this span active: the spans and fetches it makes are its children. */
  run<T>(work: () => T): T;
  /** Ends the span with its final attributes (once; later calls do nothing). */
  end(attributes: Attributes): void;
}

export function openSpan(name: string, attributes: Attributes): OpenSpan {
  if (typeof tracing?.startSpan !== 'function') return { run: (work) => work(), end: () => {} };
  const span = tracing.startSpan(name);
  span.setAttributes(attributes);
  let ended = false;
  return {
    // Where the runtime cannot make it the active span (local workerd), children attach to the caller's span.
    run: (work) => (typeof tracing.withActiveSpan === 'function' ? tracing.withActiveSpan(span, work) : work()),
    end: (final) => {
      if (ended) return;
      ended = true;
      span.setAttributes(final);
      span.end();
    },
  };
}
