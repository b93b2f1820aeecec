import { tracing } from 'cloudflare:workers';

type Attributes = Record<string, boolean | number | string | undefined>;

/**
 * Runs `work` inside a Workers tracing span (`[observability.traces]` in
 * wrangler.toml; exported with the platform's own fetch, KV and Durable
 * Object spans, and to OpenTelemetry destinations). The span ends when the
 * work settles; a failure is recorded on it. Attributes never carry
 * content, credentials or user text: names, ids, counts, outcomes.
 * Where the runtime has no tracing (older workerd), `work` just runs.
 */
export function traced<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  if (typeof tracing?.enterSpan !== 'function') return work();
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
