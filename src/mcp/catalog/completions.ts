import type { CompleteRequest, CompleteResult } from '@modelcontextprotocol/client';

const COMPLETION_CACHE_MS = 30_000;
const COMPLETION_CACHE_ENTRIES = 500;

/**
 * Answers of `completion/complete`, reused for COMPLETION_CACHE_MS per
 * (server, ref, argument, value, context): argument menus ask again on every
 * keystroke. Bounded (oldest first).
 */
export class CompletionCache {
  private readonly answers = new Map<string, { at: number; completion: CompleteResult['completion'] }>();

  async get(
    server: string,
    request: CompleteRequest['params'],
    ask: () => Promise<CompleteResult['completion']>,
  ): Promise<CompleteResult['completion']> {
    const key = JSON.stringify([server, request.ref, request.argument, request.context ?? null]);
    const cached = this.answers.get(key);
    if (cached && Date.now() - cached.at < COMPLETION_CACHE_MS) return cached.completion;
    const completion = await ask();
    if (this.answers.size >= COMPLETION_CACHE_ENTRIES) this.answers.delete(this.answers.keys().next().value!);
    this.answers.set(key, { at: Date.now(), completion });
    return completion;
  }

  clear(): void {
    this.answers.clear();
  }
}
