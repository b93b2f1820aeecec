// The scripted model of the skills benchmarks: bench/lib/reader-policy.mjs
// taught to see skill lines. Its choice is the reader's — the catalog line
// with the most words in common with the question — over resource lines
// (any line naming a URI) and skill lines (`name: description… [n files
// size]` under "Skills (load_skill):", or sent with the message as
// `… [server x]`), whichever scores higher; on a tie the line that comes
// first in the prompt wins (resources are listed before skills). Then:
//   - a skill → load_skill; if the fact is in its SKILL.md, answer quoting it;
//     if not, read_resource the file of the skill's files note that shares
//     most words with the question (and with the SKILL.md lines naming it),
//     then answer;
//   - a resource, or anything after → reader-policy.mjs as is.
// Pure functions of what the service sends: bench/skills.bench.test.ts runs
// `chooseEntry` inside workerd on system prompts it builds; bench/skills-cost.mjs
// runs `createSkillsPolicy` as the fake model's decide().
import { analyse, bestEntry, entries, findFact, words } from './reader-policy.mjs';

const SKILLS_HEADING = 'Skills (load_skill):';
/** How the entries an over-budget catalog sends with a message begin (src/prompt/markers.ts RELEVANT_HEADER). */
const RELEVANT_HEADER = 'Catalog entries that may be relevant to this message';
const SKILL_LINE = /^([a-z0-9][a-z0-9-]*): (.*?)(?: \[[^\]]*\])?(?: \[server ([^\]\s]+)\])?$/;

/** Skill lines of a system prompt (its skills sections) or of a text of lines each naming its server. */
export function skillEntries(text) {
  const out = [];
  let server;
  let inSkills = false;
  for (const line of text.split('\n')) {
    const header = /^#+\s.*Server "([^"]+)"/.exec(line);
    if (header) [server, inSkills] = [header[1], false];
    if (line === SKILLS_HEADING) {
      inSkills = true;
      continue;
    }
    if (!line.trim() || /^[A-Z][^:]*:$/.test(line)) inSkills = false; // another section's heading, or the section's end
    const m = SKILL_LINE.exec(line);
    if (m && (inSkills || m[3])) out.push({ name: m[1], server: m[3] ?? server, line });
  }
  return out;
}

/** The skill line sharing most words with the question (its name's words and its description's, each once). */
function bestSkill(q, list) {
  let best;
  for (const s of list) {
    const seen = new Set(words(s.line.replace(/[-_]/g, ' ').replace(/\[[^\]]*\]/g, '')));
    const score = [...q.terms].filter((t) => seen.has(t)).length;
    if (score > 0 && (!best || score > best.score)) best = { ...s, score };
  }
  return best;
}

/**
 * What the scripted model calls first for `question` given the system prompt
 * (and the entries sent with the message, if any): `{ tool, args }`, or
 * undefined when no line shares a word with the question.
 */
export function chooseEntry(
  question,
  system,
  sentWithMessage = '',
  offered = new Set(['read_resource', 'load_skill']),
) {
  const q = analyse(question);
  const text = `${system}\n${sentWithMessage}`;
  const resource = offered.has('read_resource') ? bestEntry(q, entries(text)) : undefined;
  const skill = offered.has('load_skill') ? bestSkill(q, skillEntries(text)) : undefined;
  const at = (x) => text.indexOf(x.line);
  const pick = !skill
    ? resource
    : !resource
      ? skill
      : skill.score > resource.score || (skill.score === resource.score && at(skill) < at(resource))
        ? skill
        : resource;
  if (!pick) return undefined;
  return pick.uri
    ? { tool: 'read_resource', args: pick.server ? { uri: pick.uri, server: pick.server } : { uri: pick.uri } }
    : { tool: 'load_skill', args: pick.server ? { name: pick.name, server: pick.server } : { name: pick.name } };
}

/** The file of a load_skill result's files note to read next: most words shared with the question and the SKILL.md lines naming it. */
export function fileToRead(question, loaded) {
  const q = analyse(question);
  const note = /\[Skill "[^"]+" of server "([^"]+)" — its other files[^\n]*\n([\s\S]*?)\]\s*$/.exec(loaded);
  if (!note) return undefined;
  const files = [...note[2].matchAll(/^(\S+:\/\/\S+) \[/gm)].map((m) => m[1]);
  let best;
  for (const uri of files) {
    const base = uri.split('/').at(-1);
    const context = loaded
      .split('\n')
      .filter((l) => l.includes(base))
      .join(' ');
    const seen = new Set(words(`${base.replace(/[-_.]/g, ' ')} ${context}`));
    const score = [...q.terms].filter((t) => seen.has(t)).length;
    if (!best || score > best.score) best = { uri, server: note[1], score };
  }
  return best && { uri: best.uri, server: best.server };
}

const contentOf = (m) =>
  typeof m.content === 'string'
    ? m.content
    : Array.isArray(m.content)
      ? m.content.map((p) => p?.text ?? '').join('')
      : '';
const call = (name, args) => ({ toolCalls: [{ name, args }] });

/** A decide(body) for bench/lib/fake-model.mjs: the above on the first call and after load_skill, the reader's policy otherwise. */
export function createSkillsPolicy(readerPolicy) {
  return function decide(body, request) {
    const messages = body.messages ?? [];
    const lastUser = messages.findLastIndex((m) => m.role === 'user');
    // The user's message as the fake model sees it: the question, then any catalog entries sent with it (one string).
    const said = contentOf(messages[lastUser] ?? {});
    const cut = said.indexOf(RELEVANT_HEADER);
    const question = cut >= 0 ? said.slice(0, cut) : said;
    const offered = new Set((body.tools ?? []).map((t) => t.function?.name ?? t.name));
    const system = messages
      .filter((m) => m.role === 'system')
      .map(contentOf)
      .join('\n');
    // This turn's calls and results.
    const calls = new Map();
    const current = [];
    messages.forEach((m, i) => {
      for (const c of m.tool_calls ?? []) calls.set(c.id, c.function.name);
      if (m.role === 'tool' && i > lastUser) current.push({ name: calls.get(m.tool_call_id), text: contentOf(m) });
    });
    const fact = findFact(analyse(question), [system, ...current.map((r) => r.text)]);
    if (fact) return { text: `I found it: "${fact}"` };
    const last = current.at(-1);
    if (last?.name === 'load_skill') {
      const file = offered.has('read_resource') ? fileToRead(question, last.text) : undefined;
      if (file) return call('read_resource', file);
      return {
        text: `I could not find the answer; I loaded the skill${offered.has('read_resource') ? '' : ' (read_resource is not offered: its files cannot be read)'}.`,
      };
    }
    if (!current.length) {
      const choice = chooseEntry(question, system, cut >= 0 ? said.slice(cut) : '', offered);
      if (choice?.tool === 'load_skill') return call('load_skill', choice.args);
    }
    return readerPolicy(body, request);
  };
}
