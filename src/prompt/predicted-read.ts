import type { UIMessage } from 'ai';
import { isUsable, type ServerState } from '../mcp/catalog/catalog';
import { isTextMime } from '../mcp/contents';
import { documentTextChars } from '../documents/document-texts';
import { score, stem, terms, WEIGHT } from './relevance';

/** What a turn reads before the model is asked (turn/predicted-read-step.ts). */
export interface PredictedRead {
  server: string;
  uri: string;
  /** Why: the message names it, or it leads the ranking. */
  because: 'named' | 'leads';
}

/** The leading resource must score at least this much (a title word counts 3, a description word 1)… */
const MIN_SCORE = 2;
/** …and hold more of the message's words than the next one, or as many and weigh this many times more: "clearly leads", not a coin toss the model should make. */
const LEAD = 2;

/**
 * The resource a user's message clearly needs, when there is one: it names the resource (its URI, or its title or
 * name in full), or one resource leads the relevance ranking by far. It then rides with the question and the model
 * answers in one round trip instead of two (the read, then the answer). None when the message does not point
 * anywhere, when the resource is in the prompt already (inlined) or was read earlier in the conversation (its text is
 * in the history), is not text (nor a document whose text size is known), or is longer than one read window (or of
 * unknown size). The model can still read
 * anything else.
 */
export function predictedRead(
  states: ServerState[],
  message: string,
  { inlined, read, windowChars }: { inlined: ReadonlySet<string>; read: ReadonlySet<string>; windowChars: number },
): PredictedRead | undefined {
  const lower = message.toLowerCase();
  const query = terms(message);
  const candidates = states
    .filter(isUsable)
    .flatMap((s) =>
      s.resources.map((r) => ({ server: s.id, r, chars: isTextMime(r.mimeType) ? r.size : documentTextChars(s, r) })),
    )
    // Whole in one window, by its listed size (bytes: at least its characters), or a document's known text size: of a
    // longer document the first window is rarely the passage a question needs — the model searches it
    // (search_resource) for less. bench:cost measured it.
    .filter(
      ({ server, r, chars }) => chars !== undefined && chars <= windowChars && !inlined.has(`${server}\u0000${r.uri}`),
    );
  const named = candidates.find(
    ({ r }) =>
      lower.includes(r.uri.toLowerCase()) ||
      [r.title, r.name].some((t) => t !== undefined && t.length >= 8 && lower.includes(t.toLowerCase())),
  );
  const pick = (c: (typeof candidates)[number] | undefined, because: PredictedRead['because']) =>
    c && !read.has(`${c.server}\u0000${c.r.uri}`) ? { server: c.server, uri: c.r.uri, because } : undefined;
  if (named) return pick(named, 'named');
  if (!query.length) return undefined;
  const fieldsOf = (c: (typeof candidates)[number]) => ({
    fields: [
      [c.r.title ?? c.r.name, WEIGHT.title],
      [c.r.name, WEIGHT.name],
      [c.r.description, WEIGHT.description],
    ] as Array<[string | undefined, number]>,
  });
  // Ranked by how many different words of the message a resource's listing holds, then by weight: "queue" in a
  // title ("Design note: job queue") weighs more than "queues" and "workers" in a description, but the runbook whose
  // description holds both is what "the workers' queue depth" is about.
  const ranked = candidates
    .map((c) => {
      const fields = fieldsOf(c);
      return {
        c,
        words: new Set(query.filter((word) => score([word], fields) > 0).map(stem)).size,
        score: score(query, fields),
      };
    })
    .sort((a, b) => b.words - a.words || b.score - a.score);
  const [best, next] = ranked;
  if (!best || best.score < MIN_SCORE) return undefined;
  // One word of the message is a lead only when no other resource holds any ("releases" of the Mercury app); beside
  // another one-word match ("create_task … release notes": the release matrix, or the guidelines on tasks?) it is a
  // guess the model should make, and a command may need no reading at all.
  const leads =
    best.words >= 2 ? !next || best.words > next.words || best.score >= LEAD * next.score : !next || next.words === 0;
  if (!leads) return undefined;
  return pick(best.c, 'leads');
}

/** `server\u0000uri` of every resource the conversation has read (read_resource, search_resource calls in its history). */
export function readInHistory(messages: readonly UIMessage[]): Set<string> {
  const read = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const part of message.parts) {
      if (part.type !== 'tool-read_resource' && part.type !== 'tool-search_resource') continue;
      // The read's own answer names the server and URI it resolved (the call may name neither server nor the exact URI).
      const input = (part as { input?: { uri?: unknown; server?: unknown } }).input;
      const output = (part as { output?: { uri?: unknown; server?: unknown } }).output;
      const server = typeof output?.server === 'string' ? output.server : input?.server;
      const uri = typeof output?.uri === 'string' ? output.uri : input?.uri;
      if (typeof uri === 'string' && typeof server === 'string') read.add(`${server}\u0000${uri}`);
    }
  }
  return read;
}
