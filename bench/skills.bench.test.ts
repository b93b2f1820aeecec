import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { countTokens } from 'gpt-tokenizer';
import { it } from 'vitest';
import { resourceLine, skillLine } from '../src/prompt/catalog-lines';
import { skillFilesNote } from '../src/prompt/skill-notes';
import { buildSystemPrompt } from '../src/prompt/system-prompt';
import type { ServerState } from '../src/mcp/catalog/catalog';
import type { Skill } from '../src/mcp/extensions/skills/skills';
import { decide } from '../src/models/offline';
import { SYNTHETIC_TOOLS, type ToolHost } from '../src/tools/synthetic';
import { loadSkill } from '../src/tools/synthetic/load-skill';
import {
  byteLength,
  generateSkills,
  QUESTIONS,
  SERVER_ID,
  type SkillSpec,
  skillUri,
  TEAM_DOCS,
  TEAM_SKILLS,
} from './lib/skills-corpus.mjs';
import { chooseEntry } from './lib/skills-policy.mjs';

/**
 * Skills (MCP Skills extension) in the system prompt, in-process (tokens:
 * gpt-tokenizer, o200k_base):
 *  1. what a skill costs in the catalog — one line per skill — for N = 10,
 *     100, 500 skills, at the default budget, against pasting every skill's
 *     SKILL.md and files;
 *  2. load_skill against read_resource on a `skill://` URI: ten skills and
 *     five documents, 25 questions each meant for one of them, asked of the
 *     offline model's decide() and of the scripted model
 *     (bench/lib/skills-policy.mjs) on the real system prompt, with the skills
 *     as skills (load_skill offered) and as plain resources (each SKILL.md a
 *     resource line; with or without the other files listed too).
 */
const SETTINGS = { CATALOG_TOKEN_BUDGET: 1_500, INSTRUCTIONS_MAX_CHARS: 4_000, READ_WINDOW_CHARS: 24_000 };
const UNBOUNDED = { ...SETTINGS, CATALOG_TOKEN_BUDGET: 1e9 };
const INSTRUCTIONS = "The team's handbook: skills for recurring tasks, and reference documents.";
const FAKE_DIGEST = `sha256:${'0'.repeat(64)}`; // the catalog never shows digests

/** A skill as skills/list gives it: SKILL.md's URI, frontmatter, every file with its size. */
function asSkill(s: SkillSpec): Skill {
  return {
    uri: skillUri(s.name),
    frontmatter: { name: s.name, description: s.description },
    resources: Object.entries(s.files).map(([path, text]) => ({
      uri: skillUri(s.name, path),
      digest: FAKE_DIGEST,
      size: byteLength(text),
    })),
  };
}

/** Skills in the order the SDK lists them (by URI): the catalog keeps it, and ties between lines go to the first. */
const listed = (specs: SkillSpec[]) => specs.map(asSkill).sort((a, b) => (a.uri < b.uri ? -1 : 1));

function server(parts: Partial<ServerState>): ServerState {
  return {
    id: SERVER_ID,
    status: 'connected',
    instructions: INSTRUCTIONS,
    tools: [],
    resources: [],
    resourceTemplates: [],
    prompts: [],
    skills: [],
    fetchedAt: {},
    ...parts,
  };
}

const promptOf = (state: ServerState, question: string, settings = SETTINGS) =>
  buildSystemPrompt({
    servers: [state],
    conversationText: question,
    modelPrompts: () => true,
    settings,
    offerable: SYNTHETIC_TOOLS,
  });

/** A pasting host's block per file (as bench/lib/pricing.mjs pastePrompt writes them). */
const pasted = (uri: string, title: string, text: string) =>
  `<resource uri="${uri}" title="${title}" mime="text/markdown">\n${text}\n</resource>`;

/** Tokens of the offered synthetic tools' definitions, as a provider is sent them (name, description, JSON schema). */
async function toolTokens(offered: ReadonlySet<string>): Promise<number> {
  let sum = 0;
  for (const t of SYNTHETIC_TOOLS.filter((x) => offered.has(x.name))) {
    const made = t.create({} as ToolHost) as { description?: string; inputSchema: { jsonSchema: unknown } };
    sum += countTokens(
      JSON.stringify({ name: t.name, description: made.description, input_schema: await made.inputSchema.jsonSchema }),
    );
  }
  return sum;
}

function catalogTokens(): object {
  const rows = [];
  for (const n of [10, 100, 500]) {
    const specs = generateSkills(n);
    const state = server({ skills: listed(specs) });
    const names = new Set(specs.map((s) => s.name));
    const isSkillLine = (line: string) => names.has(line.slice(0, line.indexOf(': ')));
    // A question for the skill listed last (of the first 100: the same one for N = 100 and 500, "How do I <its
    // description's first words>?"), which an over-budget catalog cannot show: is it sent with the message? For
    // N = 10, the last team skill and its fact question.
    const target = specs.slice(0, 100).reduce((a, b) => (b.name > a.name ? b : a));
    const question =
      QUESTIONS.find((q) => q.skill === target.name && q.expect)?.text ??
      `How do I ${target.description.split(' for ')[0]!.toLowerCase()}?`;
    const def = promptOf(state, question);
    const unbounded = promptOf(state, question, UNBOUNDED);
    const without = unbounded.text
      .split('\n')
      .filter((l) => !isSkillLine(l))
      .join('\n');
    let pasteTokens = 0;
    let pasteBytes = 0;
    for (const s of specs) {
      for (const [path, text] of Object.entries(s.files)) {
        const block = pasted(skillUri(s.name, path), `${s.name}/${path}`, text);
        pasteTokens += countTokens(block);
        pasteBytes += byteLength(block);
      }
    }
    const relevant = def.relevant ?? '';
    const messages: LanguageModelV4Prompt = [
      { role: 'system', content: def.text },
      {
        role: 'user',
        content: [{ type: 'text', text: question }, ...(relevant ? [{ type: 'text' as const, text: relevant }] : [])],
      },
    ];
    const tools = (offered: ReadonlySet<string>) =>
      [...offered].map((name) => ({ type: 'function' as const, name, inputSchema: {} }));
    const offline = decide(messages, tools(def.offered));
    // The same with the five documents beside the skills (so read_resource is offered too).
    const mixed = promptOf(server({ skills: listed(specs), resources: TEAM_DOCS }), question);
    const offlineMixed = decide(
      [
        { role: 'system', content: mixed.text },
        {
          role: 'user',
          content: [
            { type: 'text', text: question },
            ...(mixed.relevant ? [{ type: 'text' as const, text: mixed.relevant }] : []),
          ],
        },
      ],
      tools(mixed.offered),
    );
    rows.push({
      n,
      tokensPerSkillLine: (countTokens(unbounded.text) - countTokens(without)) / n,
      catalogTokens: countTokens(def.text) + countTokens(relevant),
      shown: def.facts.skillsShown,
      hidden: def.facts.skills - def.facts.skillsShown,
      offered: [...def.offered],
      pasteTokens,
      pasteBytes,
      question,
      target: target.name,
      targetShown: def.text.split('\n').some((l) => l.startsWith(`${target.name}: `)),
      targetSentWithMessage: relevant.split('\n').some((l) => l.startsWith(`${target.name}: `)),
      offline:
        offline.kind === 'tool'
          ? { tool: offline.toolName, args: offline.input }
          : { text: offline.text.slice(0, 120) },
      offlineMixed:
        offlineMixed.kind === 'tool'
          ? { tool: offlineMixed.toolName, args: offlineMixed.input }
          : { text: offlineMixed.text.slice(0, 120) },
      scripted: chooseEntry(question, def.text, relevant, def.offered) ?? null,
      sampleLine: def.text.split('\n').find(isSkillLine),
    });
  }
  return { rows };
}

// ---- load_skill vs read_resource on a skill:// URI ------------------------------------------

interface Pick {
  tool: string;
  args: Record<string, unknown>;
}

/** The ten skills as a server that knows no skills extension would list them: each SKILL.md (and, if `files`, every file) a resource. */
function skillsAsResources(files: boolean): ServerState['resources'] {
  return [...TEAM_SKILLS]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((s) =>
      Object.entries(s.files)
        .filter(([path]) => files || path === 'SKILL.md')
        .map(([path, text]) =>
          path === 'SKILL.md'
            ? {
                uri: skillUri(s.name),
                name: s.name,
                description: s.description,
                mimeType: 'text/markdown',
                size: byteLength(text),
              }
            : { uri: skillUri(s.name, path), name: path, mimeType: 'text/markdown', size: byteLength(text) },
        ),
    );
}

/** The same prompt with every catalog line written with its description whole (the service cuts them at 32 characters). */
function uncut(text: string, state: ServerState): string {
  const swap = new Map<string, string>();
  for (const r of state.resources)
    swap.set(
      resourceLine(r, { descriptionChars: 32, longOver: 24_000 }),
      resourceLine(r, { descriptionChars: 1_000, longOver: 24_000 }),
    );
  for (const s of state.skills) {
    const files =
      s.resources === 'dynamic'
        ? undefined
        : { count: s.resources.length, bytes: s.resources.reduce((a, f) => a + f.size, 0) };
    const line = { name: s.frontmatter.name, description: s.frontmatter.description, files };
    swap.set(skillLine(line, { descriptionChars: 32 }), skillLine(line, { descriptionChars: 1_000 }));
  }
  return text
    .split('\n')
    .map((l) => swap.get(l) ?? l)
    .join('\n');
}

/** Whether a first call goes where the question is meant to: the skill (loaded, or its SKILL.md / a file of it read) or the document. */
function verdict(
  q: (typeof QUESTIONS)[number],
  pick: Pick | undefined | null,
): 'right' | 'right skill, a file first' | 'wrong' {
  if (!pick) return 'wrong';
  const uri = typeof pick.args.uri === 'string' ? pick.args.uri : '';
  if (q.doc) return pick.tool === 'read_resource' && uri === q.doc ? 'right' : 'wrong';
  if (pick.tool === 'load_skill') return pick.args.name === q.skill ? 'right' : 'wrong';
  if (pick.tool !== 'read_resource') return 'wrong';
  if (uri === skillUri(q.skill!)) return 'right';
  return uri.startsWith(`skill://${q.skill}/`) ? 'right skill, a file first' : 'wrong';
}

async function loadVsRead(): Promise<object> {
  const skills = listed(TEAM_SKILLS);
  const variants = [
    { id: 'skills', label: 'skills (load_skill)', state: server({ resources: TEAM_DOCS, skills }), whole: false },
    {
      id: 'resources',
      label: 'SKILL.md as resources (read_resource)',
      state: server({ resources: [...TEAM_DOCS, ...skillsAsResources(false)] }),
      whole: false,
    },
    {
      id: 'resources-files',
      label: 'every skill file as a resource',
      state: server({ resources: [...TEAM_DOCS, ...skillsAsResources(true)] }),
      whole: false,
    },
    {
      id: 'skills-uncut',
      label: 'skills, descriptions uncut',
      state: server({ resources: TEAM_DOCS, skills }),
      whole: true,
    },
    {
      id: 'resources-uncut',
      label: 'SKILL.md as resources, descriptions uncut',
      state: server({ resources: [...TEAM_DOCS, ...skillsAsResources(false)] }),
      whole: true,
    },
  ];
  const out = [];
  for (const v of variants) {
    const picks = [];
    let prompt: ReturnType<typeof promptOf> | undefined;
    for (const q of QUESTIONS) {
      prompt = promptOf(v.state, q.text);
      if (prompt.relevant)
        throw new Error(`${v.id}: the catalog is over budget; the comparison wants every line shown`);
      const text = v.whole ? uncut(prompt.text, v.state) : prompt.text;
      const tools = [...prompt.offered].map((name) => ({ type: 'function' as const, name, inputSchema: {} }));
      const step = decide(
        [
          { role: 'system', content: text },
          { role: 'user', content: [{ type: 'text', text: q.text }] },
        ],
        tools,
      );
      const offline: Pick | undefined = step.kind === 'tool' ? { tool: step.toolName, args: step.input } : undefined;
      const scripted: Pick | undefined = chooseEntry(q.text, text, '', prompt.offered);
      picks.push({
        question: q.text,
        meant: q.skill ?? q.doc,
        offline,
        scripted,
        offlineVerdict: verdict(q, offline),
        scriptedVerdict: verdict(q, scripted),
      });
    }
    const text = v.whole ? uncut(prompt!.text, v.state) : prompt!.text;
    // The ten skills' own lines: as skill lines, or as `skill://` resource lines.
    const isSkillEntry = (l: string) =>
      l.startsWith('skill://') || TEAM_SKILLS.some((s) => l.startsWith(`${s.name}: `));
    // The call a right pick emits, per skill: tool name + JSON arguments (what the model generates, billed as output).
    const calls = TEAM_SKILLS.map((s) =>
      v.id.startsWith('skills')
        ? countTokens('load_skill') + countTokens(JSON.stringify({ name: s.name, server: SERVER_ID }))
        : countTokens('read_resource') + countTokens(JSON.stringify({ uri: skillUri(s.name), server: SERVER_ID })),
    );
    out.push({
      id: v.id,
      label: v.label,
      systemTokens: countTokens(text),
      skillLineTokens:
        (countTokens(text) -
          countTokens(
            text
              .split('\n')
              .filter((l) => !isSkillEntry(l))
              .join('\n'),
          )) /
        TEAM_SKILLS.length,
      // load_skill's sentence in the base instruction (there only when it is offered).
      sentenceTokens: prompt!.offered.has('load_skill') ? countTokens(loadSkill.sentence(prompt!.facts)) : 0,
      toolTokens: await toolTokens(prompt!.offered),
      offered: [...prompt!.offered],
      callTokens: calls.reduce((a, b) => a + b, 0) / calls.length,
      sampleLine: text
        .split('\n')
        .find((l) => l.startsWith('estimate-a-task') || l.startsWith(skillUri('estimate-a-task'))),
      picks,
    });
  }
  // What load_skill adds to a SKILL.md that read_resource does not: the list of the skill's other files.
  const notes = skills.map((s) => countTokens(`\n${skillFilesNote(SERVER_ID, s)}`));
  const withFiles = skills.find((s) => s.resources !== 'dynamic' && s.resources.length > 1)!;
  const withoutFiles = skills.find((s) => s.resources !== 'dynamic' && s.resources.length === 1);
  // Both ways the model gets the SKILL.md whole, frontmatter included: its name and description again.
  const frontmatter = TEAM_SKILLS.map((s) => countTokens(/^---\n[\s\S]*?\n---\n/.exec(s.files['SKILL.md']!)![0]));
  const manifests = TEAM_SKILLS.map((s) => countTokens(s.files['SKILL.md']!));
  return {
    variants: out,
    questions: { skill: QUESTIONS.filter((q) => q.skill).length, doc: QUESTIONS.filter((q) => q.doc).length },
    frontmatterTokens: frontmatter.reduce((a, b) => a + b, 0) / frontmatter.length,
    manifestTokens: manifests.reduce((a, b) => a + b, 0) / manifests.length,
    filesNote: {
      mean: notes.reduce((a, b) => a + b, 0) / notes.length,
      min: Math.min(...notes),
      max: Math.max(...notes),
      sample: skillFilesNote(SERVER_ID, withFiles),
      none: withoutFiles
        ? {
            text: skillFilesNote(SERVER_ID, withoutFiles),
            tokens: countTokens(`\n${skillFilesNote(SERVER_ID, withoutFiles)}`),
          }
        : null,
    },
  };
}

it('skills: catalog tokens per skill, and load_skill vs read_resource', async () => {
  const result = { catalog: catalogTokens(), choice: await loadVsRead() };
  console.log(`BENCH_RESULT skills ${JSON.stringify(result)}`);
});
