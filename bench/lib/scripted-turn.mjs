// The scripted "model" of the CPU benchmark (bench/cpu.mjs), a `decide`
// policy for fake-model.mjs, the same for our service and the floor Worker:
//   step 1 (the user spoke last)      → read_resource {uri: task://guidelines, server: demo}
//   step 2 (a tool result came last)  → the answer: STEADY (≈ 40 words, word by word,
//                                       today's realistic short answer), or LONG when the
//                                       user's text contains LONG_MARK (500 tokens, one
//                                       token of ~4 characters per chunk: ~500 chunks)
import { contentText } from './fake-model.mjs';

export const LONG_MARK = '[long]';

export const STEADY_ANSWER =
  'The guidelines say to estimate in hours and never more than eight hours for a single task. Anything bigger should be split into smaller tasks, each with one owner, and picked up at the daily stand-up when nobody has claimed it yet.';

const WORDS =
  'the team plans work in small tasks each with one owner and an estimate in hours bugs found in production come first'.split(
    ' ',
  );
/** 500 tokens of ~4 characters, streamed 4 characters per chunk. */
export const LONG_TOKENS = 500;
export const LONG_ANSWER = Array.from({ length: 400 }, (_, i) => WORDS[i % WORDS.length])
  .join(' ')
  .padEnd(LONG_TOKENS * 4, '.')
  .slice(0, LONG_TOKENS * 4);

export function decide(body) {
  const messages = body.messages ?? [];
  const last = messages.at(-1);
  if (last?.role !== 'tool')
    return { toolCalls: [{ name: 'read_resource', args: { uri: 'task://guidelines', server: 'demo' } }] };
  const user = messages.findLast((m) => m.role === 'user');
  return contentText(user?.content).includes(LONG_MARK)
    ? { text: LONG_ANSWER, chunkChars: 4 }
    : { text: STEADY_ANSWER };
}
