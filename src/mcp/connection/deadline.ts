import { AsyncLocalStorage } from 'node:async_hooks';
import { isJSONRPCRequest, type Transport } from '@modelcontextprotocol/client';

/**
 * A request's time limit that stops counting while the user is asked
 * something for it (an elicitation): a 2025 server keeps its `tools/call`
 * open while it waits for the answer, and the user's thinking time is not
 * the server being slow. The SDK's own timeout cannot pause, so requests
 * carry this one as an abort signal. A request whose server reports
 * progress starts its time again at each report (`restart`), up to a hard
 * total (`maxTotalMs`), which nothing pauses or restarts.
 */
export class PausableDeadline {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private hardTimer: ReturnType<typeof setTimeout> | undefined;
  private remaining: number;
  private startedAt = 0;
  private pauses = 0;

  constructor(
    private readonly timeoutMs: number,
    private readonly reason: () => unknown,
    maxTotal?: { ms: number; reason: () => unknown },
  ) {
    this.remaining = timeoutMs;
    this.run();
    if (maxTotal) this.hardTimer = setTimeout(() => this.controller.abort(maxTotal.reason()), maxTotal.ms);
  }

  /** The server showed it is working (progress): the time limit starts again. */
  restart(): void {
    if (this.controller.signal.aborted) return;
    this.remaining = this.timeoutMs;
    if (this.pauses > 0) return; // counts again from the full time when the question is answered
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.run();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  pause(): void {
    if (this.pauses++ > 0 || this.controller.signal.aborted) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.remaining -= Date.now() - this.startedAt;
  }

  resume(): void {
    if (this.pauses === 0) return; // never paused (it started while another request's question was open)
    if (--this.pauses > 0 || this.controller.signal.aborted) return;
    this.run();
  }

  clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.hardTimer !== undefined) clearTimeout(this.hardTimer);
  }

  private run(): void {
    this.startedAt = Date.now();
    this.timer = setTimeout(() => this.controller.abort(this.reason()), Math.max(0, this.remaining));
  }
}

/** Aborts when any of `signals` does (with its reason). */
export function anySignal(...signals: Array<AbortSignal | undefined>): AbortSignal {
  return AbortSignal.any(signals.filter((s): s is AbortSignal => s !== undefined));
}

/**
 * The abort signal of the MCP request being sent (its deadline and its
 * caller's stop, McpConnection.call), per async flow.
 */
const requestSignals = new AsyncLocalStorage<AbortSignal>();

/** Runs `send` (one request, with the SDK's pages and retries of it) so that its HTTP requests end with `signal`. */
export function withRequestSignal<T>(signal: AbortSignal, send: () => T): T {
  return requestSignals.run(signal, send);
}

/**
 * Binds each JSON-RPC request a Streamable HTTP transport POSTs to the signal
 * of the call that sent it, so a request out of time (or stopped) aborts its
 * HTTP request and cancels its response body. Why: the SDK does that itself
 * only in the 2026 era (its per-request stream); a 2025 request that times
 * out gets `notifications/cancelled` and a rejected promise, while its POST —
 * an SSE stream or JSON body the server never finishes — stayed open until
 * the session ended, holding a connection (and the server's work) for
 * nothing. Passed as the SDK's own `requestSignal`, the abort is one it
 * knows: no error reported, no attempt to resume the stream. Notifications
 * and answers to the server's questions are not bound (a `notifications/
 * cancelled` is sent after the abort, and must go out).
 */
export function bindRequestSignals<T extends Transport>(transport: T): T {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const signal = requestSignals.getStore();
    if (!signal || options?.requestSignal || !isJSONRPCRequest(message)) return send(message, options);
    return send(message, { ...options, requestSignal: signal });
  };
  return transport;
}
