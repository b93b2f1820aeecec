import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FunctionTool,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import { fieldsOf, score, terms, WEIGHT } from '../prompt/relevance';
import { UPLOAD_REFERENCE_LINE } from '../prompt/attachments';
import { UPLOADS_SERVER } from '../../shared/api/files';
import { parsePromptLine, parseResourceLine, parseSkillLine } from '../prompt/catalog-lines';
import {
  type CatalogSection,
  parseContinuation,
  parseProgramBlock,
  parseRelevantEntries,
  parseResourceBlocks,
  parseSectionHeading,
  parseServerHeading,
  resourceBlock,
} from '../prompt/markers';

/**
 * The `offline` model: a deterministic stand-in that implements the AI SDK
 * language-model interface, so the whole pipeline (catalog → tool calls →
 * edge-resolved reads → streamed answer) runs with no network and no key.
 * It is not an LLM: it ranks the catalog in the system prompt against the
 * user's words, calls `read_resource` on the best match (or `list_resources`
 * / `invoke_prompt` when the words ask for that), then answers by quoting
 * the passages of the result that share the most words with the question.
 * A line `CALL <tool> <json arguments>` in the message calls that tool with
 * those arguments: how the demo shows a tool the ranking never picks (run_code).
 */
export class OfflineModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4' as const;
  readonly provider = 'mcp-ondemand';
  readonly modelId = 'offline';
  readonly supportedUrls = {};

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const step = decide(options.prompt, options.tools ?? []);
    const content: LanguageModelV4Content[] =
      step.kind === 'text'
        ? [{ type: 'text', text: step.text }]
        : [{ type: 'tool-call', toolCallId: step.id, toolName: step.toolName, input: JSON.stringify(step.input) }];
    return { content, finishReason: finish(step), usage: usage(options.prompt, step), warnings: [] };
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const step = decide(options.prompt, options.tools ?? []);
    const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
    if (step.kind === 'text') {
      parts.push({ type: 'text-start', id: 't0' });
      for (const piece of step.text.match(/\S+\s*|\s+/g) ?? [])
        parts.push({ type: 'text-delta', id: 't0', delta: piece });
      parts.push({ type: 'text-end', id: 't0' });
    } else {
      parts.push({
        type: 'tool-call',
        toolCallId: step.id,
        toolName: step.toolName,
        input: JSON.stringify(step.input),
      });
    }
    parts.push({ type: 'finish', finishReason: finish(step), usage: usage(options.prompt, step) });
    return {
      stream: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    };
  }
}

type Step =
  | { kind: 'text'; text: string }
  | { kind: 'tool'; id: string; toolName: string; input: Record<string, unknown> };

const finish = (step: Step) => ({
  unified: step.kind === 'text' ? ('stop' as const) : ('tool-calls' as const),
  raw: undefined,
});

function usage(prompt: LanguageModelV4Prompt, step: Step) {
  const input = Math.ceil(JSON.stringify(prompt).length / 4);
  const output = Math.ceil((step.kind === 'text' ? step.text.length : JSON.stringify(step.input).length) / 4);
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

/** What the stand-in does next, from the conversation so far. */
export function decide(
  prompt: LanguageModelV4Prompt,
  toolList: NonNullable<LanguageModelV4CallOptions['tools']>,
): Step {
  const tools = new Set(toolList.map((t) => t.name));
  const system = prompt
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n');
  const last = prompt[prompt.length - 1];
  const question = lastUserText(prompt);

  if (last?.role === 'tool') return answerFromToolResults(last.content, question);
  // What the user attached (a resource, a skill) is what they want answered from: quoted before anything is looked up.
  const attached = last?.role === 'user' ? attachedText(last.content) : '';
  if (parseResourceBlocks(attached).length)
    return { kind: 'text', text: `${quote(attached, question)}\n\n${DISCLAIMER}` };

  const line = callLine(question);
  if (line) {
    if (tools.has(line.toolName)) return { kind: 'tool', id: `offline-${prompt.length}`, ...line };
    return {
      kind: 'text',
      text: `The message asks for ${line.toolName}, which is not offered in this conversation${line.toolName === 'run_code' ? NO_PROGRAMS : ''}.\n\n${DISCLAIMER}`,
    };
  }

  const words = terms(question);
  // Files the user attached to this message (named by reference): what they ask about, read before anything else.
  const upload = attachedUpload(last, words);
  if (upload && tools.has('read_resource'))
    return {
      kind: 'tool',
      id: `offline-${prompt.length}`,
      toolName: 'read_resource',
      input: { uri: upload, server: UPLOADS_SERVER },
    };
  const catalog = parseCatalog(system);
  const hinted = hintedEntries(prompt);
  catalog.resources.push(...hinted.resources);
  catalog.skills.push(...hinted.skills);
  const stepId = `offline-${prompt.length}`;

  const asksForPrompt = catalog.prompts.find((p) => question.includes(p.name));
  if (asksForPrompt && tools.has('invoke_prompt')) {
    const args: Record<string, string> = {};
    for (const name of asksForPrompt.args) {
      const match = new RegExp(`${name}\\s*[=:]?\\s*"?([^\\s",]+)`, 'i').exec(question);
      if (match) args[name] = match[1]!;
    }
    return {
      kind: 'tool',
      id: stepId,
      toolName: 'invoke_prompt',
      input: { server: asksForPrompt.server, name: asksForPrompt.name, arguments: args },
    };
  }
  const named = namedToolCall(question, toolList);
  if (named) return { kind: 'tool', id: stepId, ...named };
  if (/\b(list|which|what)\b.*\b(resources|documents|files|docs)\b/i.test(question) && tools.has('list_resources')) {
    const query = words
      .filter((w) => !['list', 'resources', 'documents', 'files', 'docs', 'available'].includes(w))
      .join(' ');
    return { kind: 'tool', id: stepId, toolName: 'list_resources', input: query ? { query } : {} };
  }
  const best = catalog.resources
    .map((r) => ({
      ...r,
      relevance: score(words, {
        fields: [
          [r.title, WEIGHT.title],
          [r.uri, WEIGHT.uri],
          [r.description, WEIGHT.description],
        ],
      }),
    }))
    .filter((r) => r.relevance > 0)
    .sort((a, b) => b.relevance - a.relevance)[0];
  // A skill (instructions for a kind of task) that fits the question at least as well as any document is loaded first.
  const skill = catalog.skills
    .map((s) => ({
      ...s,
      relevance: score(words, {
        fields: fieldsOf.skill(s),
      }),
    }))
    .filter((s) => s.relevance > 0)
    .sort((a, b) => b.relevance - a.relevance)[0];
  if (skill && tools.has('load_skill') && (!best || skill.relevance >= best.relevance))
    return { kind: 'tool', id: stepId, toolName: 'load_skill', input: { name: skill.name, server: skill.server } };
  if (best && tools.has('read_resource'))
    return { kind: 'tool', id: stepId, toolName: 'read_resource', input: { uri: best.uri, server: best.server } };

  // A small corpus is in the system prompt itself: answer from the document that matches best.
  const inlined = bestInlined(system, words);
  if (inlined) return { kind: 'text', text: `${quote(inlined, question)}\n\n${DISCLAIMER}` };

  const known = catalog.resources.slice(0, 10).map((r) => `- ${r.title} (${r.uri})`);
  return {
    kind: 'text',
    text: `I found no resource matching "${question.trim()}".${known.length ? ` The catalog has, among others:\n${known.join('\n')}` : ' The catalog is empty.'}\n\n${DISCLAIMER}`,
  };
}

/**
 * An MCP tool (`<server>__<tool>`) the user names verbatim — `create_task
 * title="Write notes" estimateHours=2` — called with the `name=value`
 * arguments its input schema declares. Only exact names count, so a question
 * that merely talks about creating tasks never triggers a tool.
 */
function namedToolCall(
  question: string,
  tools: NonNullable<LanguageModelV4CallOptions['tools']>,
): { toolName: string; input: Record<string, unknown> } | undefined {
  const tool = tools.find(
    (t): t is LanguageModelV4FunctionTool =>
      t.type === 'function' &&
      t.name.includes('__') &&
      new RegExp(`(^|[^\\w])(${escapeRegExp(t.name)}|${escapeRegExp(t.name.split('__')[1]!)})($|[^\\w])`).test(
        question,
      ),
  );
  if (!tool) return undefined;
  const properties = ((tool.inputSchema as { properties?: Record<string, { type?: string }> }).properties ??
    {}) as Record<string, { type?: string }>;
  const input: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties)) {
    const match = new RegExp(`(?:^|\\s)${escapeRegExp(name)}\\s*[=:]\\s*(?:"([^"]*)"|(\\S+))`).exec(question);
    if (!match) continue;
    const raw = match[1] ?? match[2]!;
    input[name] =
      schema.type === 'number' || schema.type === 'integer'
        ? Number(raw)
        : schema.type === 'boolean'
          ? raw === 'true'
          : raw;
  }
  return { toolName: tool.name, input };
}

/** Why run_code may not be offered (sandbox/programs.ts, prompt/cost-planner.ts programWorthIt), and the way round. */
const NO_PROGRAMS =
  ': RUN_CODE is off; or it is auto, and no resource here is long enough for a program to pay (RUN_CODE=on offers it whenever there is something to read: `npm start -- --var RUN_CODE:on`); or this deployment has no Worker Loader';

/** `CALL <tool> <json arguments>` on a line of its own: the tool and its arguments (an object), if the JSON parses. */
const CALL_LINE = /^CALL\s+([\w.-]+)\s+(\{.*\})\s*$/m;
function callLine(question: string): { toolName: string; input: Record<string, unknown> } | undefined {
  const match = CALL_LINE.exec(question);
  if (!match) return undefined;
  try {
    const input: unknown = JSON.parse(match[2]!);
    return typeof input === 'object' && input !== null && !Array.isArray(input)
      ? { toolName: match[1]!, input: input as Record<string, unknown> }
      : undefined;
  } catch {
    return undefined;
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const DISCLAIMER = '(Answered by the offline stand-in model, which quotes resources rather than reasoning about them.)';

/** The user's own words: the first text part of the last user message (later parts are attached resources). */
function lastUserText(prompt: LanguageModelV4Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i]!;
    if (message.role !== 'user') continue;
    const first = message.content.find((part) => part.type === 'text');
    return first?.type === 'text' ? first.text : '';
  }
  return '';
}

/** The URI of the uploaded file attached to the last message that fits the question best (the first, if none does). */
function attachedUpload(last: LanguageModelV4Prompt[number] | undefined, words: string[]): string | undefined {
  if (last?.role !== 'user') return undefined;
  const files = last.content.flatMap((part) => {
    const match = part.type === 'text' ? UPLOAD_REFERENCE_LINE.exec(part.text) : null;
    return match ? [{ title: match[1]!, uri: match[2]! }] : [];
  });
  const ranked = files
    .map((file) => ({ ...file, relevance: score(words, { fields: [[file.title, WEIGHT.title]] }) }))
    .sort((a, b) => b.relevance - a.relevance);
  return ranked[0]?.uri;
}

/** The resources attached to a user message: its text parts after the first (prompt/attachments.ts). */
function attachedText(content: Extract<LanguageModelV4Prompt[number], { role: 'user' }>['content']): string {
  return content
    .filter((part) => part.type === 'text')
    .slice(1)
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('\n');
}

function answerFromToolResults(
  content: Extract<LanguageModelV4Prompt[number], { role: 'tool' }>['content'],
  question: string,
): Step {
  const answers: string[] = [];
  for (const part of content) {
    if (part.type !== 'tool-result') continue;
    const output = part.output;
    const text =
      output.type === 'text' || output.type === 'error-text'
        ? output.value
        : output.type === 'content'
          ? output.value.map((v) => (v.type === 'text' ? v.text : '')).join('\n')
          : output.type === 'json' || output.type === 'error-json'
            ? JSON.stringify(output.value)
            : `The tool call was ${output.type === 'execution-denied' ? 'denied' : 'not run'}.`;
    const tool = toolLabel(part.toolName);
    if (output.type === 'error-text' || output.type === 'error-json') {
      answers.push(`${tool} failed: ${text}`);
    } else if (part.toolName === 'read_resource' || part.toolName === 'load_skill') {
      answers.push(quote(text, question));
    } else if (part.toolName === 'run_code' && parseProgramBlock(text)) {
      answers.push(programAnswer(text));
    } else {
      answers.push(`Here is what ${tool} returned:\n\n${text}`);
    }
  }
  return { kind: 'text', text: `${answers.join('\n\n')}\n\n${DISCLAIMER}` };
}

/** What a program returned (the wrapper's body, as the model was given it), with what it read and any cut. */
function programAnswer(text: string): string {
  const block = parseProgramBlock(text)!;
  const cut = /\n(\[The result is \d+ characters;[^\n]*\])$/.exec(text)?.[1];
  const read = `${block.calls} call${block.calls === 1 ? '' : 's'}, ${block.bytes} read`;
  return `The program (${read}) returned:\n\n${block.body
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n')}${cut ? `\n\n${cut}` : ''}`;
}

/** A tool as people read it: `create_task on demo` for the MCP tool `demo__create_task` (the step summaries' words). */
function toolLabel(name: string): string {
  const at = name.indexOf('__');
  return at > 0 ? `${name.slice(at + 2)} on ${name.slice(0, at)}` : name;
}

/** The `<resource>` block of the system prompt (pinned or inlined) that shares the most words with the question. */
function bestInlined(system: string, words: string[]): string | undefined {
  const blocks = parseResourceBlocks(system).map(({ body, ...tag }) => resourceBlock(tag, body));
  return blocks
    .map((block) => ({ block, relevance: score(words, { fields: [[block, 1]] }) }))
    .filter((b) => b.relevance > 0)
    .sort((a, b) => b.relevance - a.relevance)[0]?.block;
}

/** The passages of a read_resource result sharing the most words with the question, in document order, with the URI. */
function quote(result: string, question: string): string {
  const blocks = parseResourceBlocks(result);
  if (!blocks.length) return result; // a descriptor of binary content, or a notice: relay it
  const words = terms(question);
  const out: string[] = [];
  for (const { server, uri, body } of blocks) {
    const passages = passagesOf(body);
    const ranked = passages
      .map((text, index) => ({ text, index, relevance: score(words, { fields: [[text, 1]] }) }))
      .sort((a, b) => b.relevance - a.relevance || a.index - b.index)
      .slice(0, 3)
      .sort((a, b) => a.index - b.index);
    out.push(
      `From ${uri} (server "${server}"):\n\n${ranked
        .map((p) =>
          p.text
            .split('\n')
            .map((l) => `> ${l}`)
            .join('\n'),
        )
        .join('\n>\n')}`,
    );
  }
  const more = parseContinuation(result);
  return more
    ? `${out.join('\n\n')}\n\n(Only the first part of the document was read; more is available.)`
    : out.join('\n\n');
}

/**
 * Paragraphs and list items; a markdown heading stays with the paragraph
 * that follows it, so "## Output format" is quoted with its content.
 */
function passagesOf(text: string): string[] {
  const pieces = text
    .split(/\n\s*\n|\n(?=\s*(?:[-*]|\d+\.)\s)/)
    .map((p) => p.trim())
    .filter(Boolean);
  const passages: string[] = [];
  for (const piece of pieces) {
    const previous = passages[passages.length - 1];
    if (previous !== undefined && /^#{1,6} [^\n]*$/.test(previous))
      passages[passages.length - 1] = `${previous}\n\n${piece}`;
    else passages.push(piece);
  }
  return passages;
}

interface SkillEntry {
  server: string;
  name: string;
  description: string;
}

interface CatalogEntry {
  server: string;
  title: string;
  uri: string;
  description: string;
}

/** Reads the catalog back out of the system prompt (its notation: prompt/catalog-lines.ts and prompt/markers.ts). */
function parseCatalog(system: string) {
  const resources: CatalogEntry[] = [];
  const prompts: Array<{ server: string; name: string; args: string[] }> = [];
  const skills: SkillEntry[] = [];
  let server = '';
  let section: CatalogSection | undefined;
  for (const line of system.split('\n')) {
    const heading = parseServerHeading(line);
    if (heading !== undefined) {
      server = heading;
      section = undefined;
      continue;
    }
    const next = parseSectionHeading(line);
    if (next) {
      section = next;
      continue;
    }
    if (section === 'resource') {
      const entry = parseResourceLine(line);
      if (entry) resources.push({ server, ...entry });
    } else if (section === 'prompt') {
      const prompt = parsePromptLine(line);
      if (prompt) prompts.push({ server, ...prompt });
    } else if (section === 'skill') {
      const skill = parseSkillLine(line);
      if (skill) skills.push({ server, ...skill });
    }
  }
  return { resources, prompts, skills };
}

/** Catalog entries sent with the user's message (an over-budget catalog's relevant entries). */
function hintedEntries(prompt: LanguageModelV4Prompt): { resources: CatalogEntry[]; skills: SkillEntry[] } {
  const hinted = { resources: [] as CatalogEntry[], skills: [] as SkillEntry[] };
  const user = prompt.findLast((m) => m.role === 'user');
  if (user?.role !== 'user') return hinted;
  for (const part of user.content) {
    const entries = part.type === 'text' ? parseRelevantEntries(part.text) : undefined;
    if (!entries) continue;
    for (const { line, server = '' } of entries) {
      // A resource line starts with its URI; a skill line with its name (no scheme), so a skill is never read as a URI.
      const resource = /^\S+:\/\//.test(line) ? parseResourceLine(line) : undefined;
      const skill = resource ? undefined : parseSkillLine(line);
      if (resource) hinted.resources.push({ server, ...resource });
      else if (skill) hinted.skills.push({ server, ...skill });
    }
    break;
  }
  return hinted;
}
