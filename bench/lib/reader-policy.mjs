// "A tiny model that behaves as a user would expect", as a decide(body)
// policy for bench/lib/fake-model.mjs. It reads only what the service sends
// (system prompt, messages, offered tools), so it works whatever the service
// offers: today's catalog + read_resource, and later features (corpora
// inlined in the system prompt, search_resource, list_resources when the
// catalog hides entries). On every model call:
//   1. the answer is already in context (system prompt — e.g. inlined
//      documents — or any tool result still sent) → answer, quoting it;
//   2. this turn's last tool result was
//      - a read_resource window: in "full read" mode follow its continuation
//        to the end; otherwise, if the fact is not in it, read on (the
//        service's MAX_STEPS bounds this hunt);
//      - a search_resource result → read_resource at the first offset it gives;
//      - a list_resources result → read the best-matching entry;
//   3. first call of the turn: pick the catalog line with the most words in
//      common with the question (list_resources with a query if the catalog
//      says entries are hidden and none matches); for a doc longer than one
//      read window, search_resource when offered; else read_resource;
//   4. nothing to go on (no tools, step limit) → say what was read and not found.
// A fact is "found" in a sentence (or log line) that holds every key of the
// question (proper nouns and words with digits) and at least two more of its
// words; the answer quotes that sentence, so correctness is checkable.

const STOP = new Set(
  'a an and are as at be by can do does did for from has have how i in is it its me my of on or our please show tell that the their them there these this to us was we what when where which who whom why will with you your about into according much many often long must may should would could after before under over whole entire start end read'.split(
    ' ',
  ),
);
const stem = (w) => w.replace(/(ings|ing|ies|es|s|ed)$/, '').replace(/e$/, '') || w;
/** A text's words as the policy compares them: lower case, stop words out, crudely stemmed (exported for skills-policy.mjs). */
export const words = (text) =>
  (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && !STOP.has(w)).map(stem);

/** The question's words, and its keys: capitalised words past the first, and words with digits. */
export function analyse(question) {
  const raw = question.match(/[\p{L}\p{N}][\p{L}\p{N}-]*/gu) ?? [];
  const keys = new Set(
    raw
      .slice(1)
      .filter((w) => w.length > 1 && (/\p{Lu}/u.test(w[0]) || /\d/.test(w)))
      .flatMap(words),
  );
  for (const w of raw.slice(0, 1)) if (/\d/.test(w)) for (const k of words(w)) keys.add(k);
  return {
    text: question,
    terms: new Set(words(question)),
    keys,
    full: /\b(whole|entire|from start to end|every line)\b/i.test(question),
  };
}

/** The sentence or line of `texts` that answers `q`, or undefined. */
export function findFact(q, texts) {
  const keys = [...q.keys];
  const need = keys.length ? keys.length + 2 : Math.max(3, Math.ceil(q.terms.size * 0.6));
  let best;
  for (const text of texts) {
    const lower = text.toLowerCase();
    // Cheap skip: most context (megabytes of log) cannot hold the first key.
    if (keys.length && !lower.includes(keys[0])) continue;
    for (const line of text.split('\n')) {
      // The service's own bracketed notes (a search result's header repeats the query) are not content.
      if (line.startsWith('[') || (keys.length && !line.toLowerCase().includes(keys[0]))) continue;
      for (const piece of line.split(/(?<=[.!?])\s+(?=[A-Z<])/)) {
        const seen = new Set(words(piece));
        if (!keys.every((k) => seen.has(k))) continue;
        const score = [...q.terms].filter((t) => seen.has(t)).length;
        if (score >= need && (!best || score > best.score))
          best = {
            sentence: piece
              .replace(/<[^>]+>/g, '')
              .trim()
              .slice(0, 300),
            score,
          };
      }
    }
  }
  return best?.sentence;
}

const SIZE_UNITS = {
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
  chars: 1,
  characters: 1,
  bytes: 1,
};

/** Resource entries in a catalog or a list_resources result: any line naming a URI (resource texts left out). */
export function entries(text) {
  let server;
  const out = [];
  // An inlined document is `<resource uri="…" …>…</resource>` (the prompt's own mention of "<resource …> tags" is not).
  for (const line of text.replace(/<resource\s[^>]*\buri="[\s\S]*?<\/resource>/g, '').split('\n')) {
    const header = /^#+\s.*Server "([^"]+)"/.exec(line);
    if (header) server = header[1];
    const uri = /\b[a-z][a-z0-9+.-]*:\/\/[^\s)\]>,"'`]+/i.exec(line)?.[0];
    if (!uri || /read_resource with/.test(line)) continue;
    const size = /\b(\d+(?:\.\d+)?)\s?(B|K|KB|kB|KiB|M|MB|MiB|G|GB|GiB|chars|characters|bytes)\b/.exec(
      line.slice(line.indexOf(uri) + uri.length).replace(/(?<=\d),(?=\d{3}\b)/g, ''),
    );
    out.push({
      uri,
      server: /\[server ([^\]\s]+)\]/.exec(line)?.[1] ?? /\bserver[=: ]+"?([a-z0-9_-]+)/i.exec(line)?.[1] ?? server,
      size: size ? Number(size[1]) * SIZE_UNITS[size[2].toLowerCase()] : undefined,
      line,
    });
  }
  return out;
}

/** The entry sharing most words with the question; words before the URI (the title, in every catalog format seen) count twice. */
export function bestEntry(q, list) {
  let best;
  for (const e of list) {
    const at = e.line.indexOf(e.uri);
    const title = new Set(words(e.line.slice(0, at)));
    const rest = new Set(words(e.line.slice(at).replace(/[/_.:-]/g, ' ')));
    const score = [...q.terms].reduce((sum, t) => sum + (title.has(t) ? 2 : rest.has(t) ? 1 : 0), 0);
    if (score > 0 && (!best || score > best.score)) best = { ...e, score };
  }
  return best;
}

/** The `{uri, server, offset}` a read window ends with, if there is more. */
export function continuation(text) {
  const m =
    /call read_resource with (\{[^\n]*?\}) for the next part/.exec(text) ??
    [...text.matchAll(/(\{"uri":"[^"\n]+"[^{}\n]*"offset":\d+[^{}\n]*\})/g)].at(-1);
  try {
    return m ? JSON.parse(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Where a read window sits: "characters A-B of N" (from the continuation line or the resource tag). */
const windowOf = (text) => {
  const m = /characters (\d+)-(\d+) of (\d+)/.exec(text);
  return m ? { from: Number(m[1]), to: Number(m[2]), total: Number(m[3]) } : undefined;
};

/** What a model would type as a search query: the question's words, stop words left out ("c0ffee42 incident gateway log"). */
const queryOf = (q) =>
  (q.text.match(/[\p{L}\p{N}][\p{L}\p{N}-]*/gu) ?? [])
    .filter((w) => w.length > 1 && !STOP.has(w.toLowerCase()))
    .join(' ');

const text = (t) => ({ text: t });
const call = (name, args) => ({ toolCalls: [{ name, args }] });
const withServer = (args, server) => (server ? { ...args, server } : args);

/**
 * @param {{ fullReadByteCap?: number, windowChars?: number }} [options]
 *   fullReadByteCap: in full-read mode, stop following continuations once the
 *   turn's requests add up to this many bytes (a benchmark guard: a quadratic
 *   loop would otherwise send hundreds of MB). windowChars: a document larger
 *   than this is "long" (worth a search_resource when offered).
 */
export function createReaderPolicy({ fullReadByteCap = Infinity, windowChars = 24_000 } = {}) {
  const turnBytes = new Map();
  return function decide(body, request = { bytes: 0 }) {
    const messages = body.messages ?? [];
    const contentOf = (m) =>
      typeof m.content === 'string'
        ? m.content
        : Array.isArray(m.content)
          ? m.content.map((p) => p?.text ?? '').join('')
          : '';
    const system = messages
      .filter((m) => m.role === 'system')
      .map(contentOf)
      .join('\n');
    const lastUser = messages.findLastIndex((m) => m.role === 'user');
    const q = analyse(contentOf(messages[lastUser] ?? {}));
    const offered = new Set((body.tools ?? []).map((t) => t.function?.name ?? t.name));
    const turnKey = `${lastUser}:${q.text}`;
    const sent = (turnBytes.get(turnKey) ?? 0) + request.bytes;
    turnBytes.set(turnKey, sent);

    // This turn's tool results, each with the call that asked for it.
    const calls = new Map();
    const results = [];
    messages.forEach((m, i) => {
      for (const c of m.tool_calls ?? []) {
        let args = {};
        try {
          args = JSON.parse(c.function.arguments || '{}');
        } catch {}
        calls.set(c.id, { name: c.function.name, args });
      }
      if (m.role === 'tool')
        results.push({
          ...(calls.get(m.tool_call_id) ?? { name: '?', args: {} }),
          text: contentOf(m),
          current: i > lastUser,
        });
    });
    const current = results.filter((r) => r.current);
    const reads = current.filter((r) => r.name === 'read_resource');

    if (!q.full) {
      // Listings only echo the query back: facts come from the system prompt and what was read or searched.
      const fact = findFact(q, [system, ...results.filter((r) => r.name !== 'list_resources').map((r) => r.text)]);
      if (fact) return text(`I found it: "${fact}"`);
    }

    const last = current.at(-1);
    if (last?.name === 'read_resource') {
      const next = continuation(last.text);
      const where = windowOf(last.text);
      if (q.full) {
        if (next && offered.has('read_resource') && sent < fullReadByteCap) return call('read_resource', next);
        if (next)
          return text(
            `I stopped reading ${last.args.uri} at character ${where?.to ?? '?'} of ${where?.total ?? '?'} after ${reads.length} parts${sent >= fullReadByteCap ? ' (the benchmark cap on bytes per turn)' : ''}.`,
          );
        const lines = last.text.split('\n').filter((l) => l.trim() && !/^<\/?resource\b|^\[/.test(l.trim()));
        return text(
          `I read ${last.args.uri} to the end in ${reads.length} parts. Its last line is: "${lines.at(-1) ?? ''}"`,
        );
      }
      // Not in this window: search the rest when the service can (the catalog may not have said the doc was long), else read on.
      if (next && offered.has('search_resource') && !current.some((r) => r.name === 'search_resource')) {
        return call('search_resource', withServer({ uri: last.args.uri, query: queryOf(q) }, last.args.server));
      }
      if (next && offered.has('read_resource')) return call('read_resource', next);
    } else if (last?.name === 'search_resource' && offered.has('read_resource')) {
      const offset = /offset"?\s*[:=]?\s*(\d+)/i.exec(last.text)?.[1];
      if (offset !== undefined)
        return call('read_resource', withServer({ uri: last.args.uri, offset: Number(offset) }, last.args.server));
    } else if (last?.name === 'list_resources' && offered.has('read_resource')) {
      const found = bestEntry(q, entries(last.text)) ?? bestEntry(q, entries(system));
      if (found) return call('read_resource', withServer({ uri: found.uri }, found.server));
    }
    if (current.length || !offered.has('read_resource')) {
      const what = reads.length
        ? `${reads.length} part(s) of ${reads[0].args.uri}`
        : current.length
          ? current.map((r) => r.name).join(', ')
          : 'nothing';
      return text(`I could not find the answer; I read ${what}.`);
    }

    const catalog = entries(system);
    const found = bestEntry(q, catalog);
    // "- … 12 more not shown: list_resources …": the catalog was cut to fit its budget.
    const hidden = /\d+ more\b[^\n]*(not shown|list_resources)/i.test(system);
    if ((!found || found.score < 2) && hidden && offered.has('list_resources')) {
      return call('list_resources', withServer({ query: queryOf(q) }, catalog[0]?.server));
    }
    if (!found) return text('No document in the catalog matches the question.');
    if (!q.full && offered.has('search_resource') && (found.size ?? 0) > windowChars) {
      return call('search_resource', withServer({ uri: found.uri, query: queryOf(q) }, found.server));
    }
    return call('read_resource', withServer({ uri: found.uri }, found.server));
  };
}
