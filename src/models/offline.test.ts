import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { programBlock, relevantEntries, resourceBlock } from '../prompt/markers';
import { buildSystemPrompt } from '../prompt/system-prompt';
import type { ServerState } from '../mcp/catalog/catalog';
import { SYNTHETIC_TOOLS } from '../tools/synthetic';
import { decide } from './offline';

/*
 * The offline stand-in's choices, from a system prompt the real builder
 * writes: what `npm start` shows without an API key. It is a ranking, not a
 * model — these pin down which tool it reaches for, so the demo's flow
 * (a skill loaded, a document read, an attachment quoted) stays true.
 */
const estimate = {
  uri: 'skill://estimate-a-task/SKILL.md',
  frontmatter: { name: 'estimate-a-task', description: 'Estimate a task in hours the way this team does.' },
  resources: [{ uri: 'skill://estimate-a-task/SKILL.md', digest: `sha256:${'a'.repeat(64)}`, size: 900 }],
};
const demo: ServerState = {
  id: 'demo',
  status: 'connected',
  tools: [],
  resources: [
    { uri: 'task://guidelines', name: 'guidelines', title: 'Team guidelines', mimeType: 'text/plain', size: 590 },
    { uri: 'docs://test-matrix', name: 'test-matrix', title: 'Test matrix', mimeType: 'text/markdown', size: 12_706 },
  ],
  resourceTemplates: [],
  prompts: [],
  skills: [estimate],
  fetchedAt: {},
};

function promptFor(
  question: string,
  ...attached: string[]
): { prompt: LanguageModelV4Prompt; tools: Array<{ type: 'function'; name: string; inputSchema: object }> } {
  const { text, offered } = buildSystemPrompt({
    servers: [demo],
    conversationText: question,
    modelPrompts: () => true,
    offerable: SYNTHETIC_TOOLS,
    settings: { CATALOG_TOKEN_BUDGET: 1_500, INSTRUCTIONS_MAX_CHARS: 4_000, READ_WINDOW_CHARS: 24_000 },
  });
  return {
    prompt: [
      { role: 'system', content: text },
      { role: 'user', content: [question, ...attached].map((t) => ({ type: 'text' as const, text: t })) },
    ],
    tools: [...offered].map((name) => ({ type: 'function' as const, name, inputSchema: {} })),
  };
}

describe('the offline stand-in', () => {
  it('loads a skill whose name and description match the question better than any document', () => {
    const { prompt, tools } = promptFor('How do I estimate a task?');
    expect(tools.map((t) => t.name)).toContain('load_skill');
    expect(decide(prompt, tools)).toMatchObject({
      kind: 'tool',
      toolName: 'load_skill',
      input: { name: 'estimate-a-task', server: 'demo' },
    });
  });

  it('reads the document when the question is about it', () => {
    const { prompt, tools } = promptFor('What do the team guidelines say?');
    expect(decide(prompt, tools)).toMatchObject({
      kind: 'tool',
      toolName: 'read_resource',
      input: { uri: 'task://guidelines', server: 'demo' },
    });
  });

  it('a skill among the catalog lines sent with the message (a catalog past its budget) is loaded, never read as a URI', () => {
    const { prompt, tools } = promptFor('How do I estimate a task?');
    const user = prompt[1] as Extract<LanguageModelV4Prompt[number], { role: 'user' }>;
    // The system prompt without its skills section, the skill's line riding with the message instead.
    const system = (prompt[0] as { content: string }).content.replace(/Skills \(load_skill\):\n[^\n]*\n?/, '');
    const hinted: LanguageModelV4Prompt = [
      { role: 'system', content: system },
      {
        ...user,
        content: [
          ...user.content,
          {
            type: 'text',
            text: relevantEntries([
              { line: 'estimate-a-task: Estimate a task in hours… [1 file 900B]', server: 'demo' },
            ]),
          },
        ],
      },
    ];
    expect(system).not.toContain('estimate-a-task:');
    expect(decide(hinted, tools)).toMatchObject({
      kind: 'tool',
      toolName: 'load_skill',
      input: { name: 'estimate-a-task', server: 'demo' },
    });
  });

  it('answers from what the user attached before looking anything up', () => {
    const skill = resourceBlock(
      { server: 'demo', uri: estimate.uri, mime: 'text/markdown' },
      '# Estimate a task\n\nSize each part in whole hours; round up, never down.',
    );
    const { prompt, tools } = promptFor('How should I round the hours?', skill);
    const step = decide(prompt, tools);
    expect(step.kind).toBe('text');
    expect(step.kind === 'text' && step.text).toContain(`From ${estimate.uri} (server "demo")`);
    expect(step.kind === 'text' && step.text).toContain('round up, never down');
  });

  it('names an MCP tool as people read it (create_task on demo), not by its internal id', () => {
    const { prompt, tools } = promptFor('create_task title=x');
    const call = { type: 'tool-call' as const, toolCallId: 'c1', toolName: 'demo__create_task', input: {} };
    const done = decide(
      [
        ...prompt,
        { role: 'assistant', content: [call] },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c1',
              toolName: 'demo__create_task',
              output: { type: 'text', value: 'Created #4' },
            },
          ],
        },
      ],
      tools,
    );
    expect(done.kind === 'text' && done.text).toContain('Here is what create_task on demo returned:');
    expect(done.kind === 'text' && done.text).not.toContain('demo__');
  });

  describe('a CALL line', () => {
    const program =
      "const { tasks } = await tools.call({ server: 'demo', name: 'list_tasks', arguments: { status: 'all' } });\nreturn tasks.length;";
    const message = `How many tasks are there?\nCALL run_code ${JSON.stringify({ code: program })}`;

    it('calls the tool it names with its JSON arguments, when the tool is offered', () => {
      const { prompt, tools } = promptFor(message);
      const offered = [...tools, { type: 'function' as const, name: 'run_code', inputSchema: {} }];
      expect(decide(prompt, offered)).toMatchObject({ kind: 'tool', toolName: 'run_code', input: { code: program } });
    });

    it('says so when the tool is not offered, and ignores a line whose arguments are not a JSON object', () => {
      const { prompt, tools } = promptFor(message);
      expect(tools.map((t) => t.name)).not.toContain('run_code');
      const step = decide(prompt, tools);
      expect(step.kind === 'text' && step.text).toMatch(/^The message asks for run_code, which is not offered/);
      const broken = promptFor('What do the team guidelines say?\nCALL run_code {"code": ');
      expect(decide(broken.prompt, broken.tools)).toMatchObject({ toolName: 'read_resource' });
    });

    it("answers with the program's result, what it read, and the cut when there was one", () => {
      const { prompt, tools } = promptFor(message);
      const output = `${programBlock({ calls: 1, bytes: '2.1 KB' }, '{\n  "alice": 3,\n  "bob": 2\n}')}\n[The result is 900 characters; only the first 20 are shown. Return less: a count, a summary, the top rows.]`;
      const done = decide(
        [
          ...prompt,
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'run_code', input: {} }] },
          {
            role: 'tool',
            content: [
              { type: 'tool-result', toolCallId: 'c1', toolName: 'run_code', output: { type: 'text', value: output } },
            ],
          },
        ],
        tools,
      );
      expect(done.kind).toBe('text');
      const text = done.kind === 'text' ? done.text : '';
      expect(text).toMatch(
        /^The program \(1 call, 2\.1 KB read\) returned:\n\n> \{\n> {3}"alice": 3,\n> {3}"bob": 2\n> \}\n\n\[The result is 900 characters/,
      );
      expect(text).not.toContain('<program-output');
    });
  });
});
