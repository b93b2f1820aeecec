/**
 * A request's time limit that stops counting while the user is asked
 * something for it (an elicitation): a 2025 server keeps its `tools/call`
 * open while it waits for the answer, and the user's thinking time is not
 * the server being slow. The SDK's own timeout cannot pause, so requests
 * carry this one as an abort signal.
 */
export class PausableDeadline {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private remaining: number;
  private startedAt = 0;
  private pauses = 0;

  constructor(
    timeoutMs: number,
    private readonly reason: () => unknown,
  ) {
    this.remaining = timeoutMs;
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
