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
