import { describe, expect, it } from 'vitest';
import type { ServerState } from '../mcp/catalog/catalog';
import { SYNTHETIC_TOOLS } from '../tools/synthetic';
import { buildSystemPrompt, type SystemPromptInput } from './system-prompt';

const WINDOW = 24_000;
const SETTINGS = { CATALOG_TOKEN_BUDGET: 1_500, INSTRUCTIONS_MAX_CHARS: 4_000, READ_WINDOW_CHARS: WINDOW };

const server = (over: Partial<ServerState> = {}): ServerState => ({
  id: 'docs',
  status: 'connected',
  tools: [],
  resources: [],
  resourceTemplates: [],
  prompts: [],
  skills: [],
  fetchedAt: {},
  ...over,
});

const build = (servers: ServerState[], over: Partial<SystemPromptInput> = {}) =>
  buildSystemPrompt({
    servers,
    conversationText: '',
    modelPrompts: () => true,
    offerable: SYNTHETIC_TOOLS,
    settings: SETTINGS,
    ...over,
  });

const offered = (servers: ServerState[], over: Partial<SystemPromptInput> = {}) =>
  [...build(servers, over).offered].sort();

const guide = { uri: 'docs://guide', name: 'guide', title: 'User guide', mimeType: 'text/markdown', size: 2_000 };
/** 60 sized resources: over a 100-token catalog budget. */
const many = Array.from({ length: 60 }, (_, i) => ({
  uri: `docs://notes/${i}`,
  name: `note-${i}`,
  title: `Meeting note ${i}`,
  mimeType: 'text/plain',
  size: 500,
}));

describe('which synthetic tools the system prompt offers', () => {
  it('an empty catalog offers none, and the prompt names none', () => {
    const { offered, text } = build([server()]);
    expect(offered.size).toBe(0);
    for (const tool of SYNTHETIC_TOOLS) expect(text).not.toContain(tool.name);
  });

  it('only short resources: read_resource alone', () => {
    expect(offered([server({ resources: [guide] })])).toEqual(['read_resource']);
  });

  it('a resource longer than one window, or of unknown size: search_resource too', () => {
    expect(offered([server({ resources: [guide, { ...guide, uri: 'docs://log', size: WINDOW + 1 }] })])).toEqual([
      'read_resource',
      'search_resource',
    ]);
    const { size: _size, ...unsized } = guide;
    expect(offered([server({ resources: [unsized] })])).toEqual(['read_resource', 'search_resource']);
  });

  it('a large binary is not text to search: read_resource alone (it is described, never searched)', () => {
    const image = { uri: 'files://scan.png', name: 'scan', mimeType: 'image/png', size: 5_000_000 };
    expect(offered([server({ resources: [image] })])).toEqual(['read_resource']);
  });

  it('a document that reads as text (PDF, Office) counts by the most text its bytes may hold', () => {
    const converting = { settings: { ...SETTINGS, DOCUMENT_CONVERTER: 'local' as const } };
    const pdf = (size: number) => ({ uri: `docs://${size}.pdf`, name: 'handbook', mimeType: 'application/pdf', size });
    const docx = {
      uri: 'docs://guide.docx',
      name: 'guide',
      mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      size: 6_500,
    };
    // bench:docs' 40-page handbook (139 KB) and 12-page guide (6.5 KB of zipped XML, 33 KB of text): searched.
    expect(offered([server({ resources: [pdf(139_000)] })], converting)).toEqual(['read_resource', 'search_resource']);
    expect(offered([server({ resources: [docx] })], converting)).toEqual(['read_resource', 'search_resource']);
    expect(build([server({ resources: [pdf(139_000)] })], converting).text).toContain('[pdf 136K, long, text]');
    // A small PDF (the demo's report) fits a window; with conversion off a PDF is a binary, described, never searched.
    expect(offered([server({ resources: [pdf(2_766)] })], converting)).toEqual(['read_resource']);
    expect(offered([server({ resources: [pdf(139_000)] })])).toEqual(['read_resource']);
  });

  it('without READ_WINDOW_CHARS, only text of unknown size counts as long', () => {
    const settings = { CATALOG_TOKEN_BUDGET: 1_500, INSTRUCTIONS_MAX_CHARS: 4_000 };
    expect(offered([server({ resources: [guide] })], { settings })).toEqual(['read_resource']);
  });

  it('templates: read_resource and search_resource, and the note on filling them in', () => {
    const prompt = build([server({ resourceTemplates: [{ uriTemplate: 'docs://page/{id}', name: 'page' }] })]);
    expect([...prompt.offered].sort()).toEqual(['read_resource', 'search_resource']);
    expect(prompt.text).toContain('Templates are URIs with {placeholders}');
  });

  it('prompts: invoke_prompt only when the server lets the model invoke them', () => {
    const withPrompt = [server({ prompts: [{ name: 'summarise', arguments: [{ name: 'topic', required: true }] }] })];
    expect(offered(withPrompt)).toEqual(['invoke_prompt']);
    const userOnly = build(withPrompt, { modelPrompts: () => false });
    expect(userOnly.offered.size).toBe(0);
    expect(userOnly.text).not.toContain('summarise');
  });

  it('a catalog over its budget: list_resources, and a line saying how many more exist', () => {
    const prompt = build([server({ resources: many })], { settings: { ...SETTINGS, CATALOG_TOKEN_BUDGET: 100 } });
    expect(prompt.offered.has('list_resources')).toBe(true);
    expect(prompt.hidden).toBeGreaterThan(0);
    expect(prompt.shown + prompt.hidden).toBe(60);
    expect(prompt.text).toContain(
      `… ${prompt.hidden} more not listed here: list_resources with server "docs" and a query finds them`,
    );
    expect(offered([server({ resources: many })])).toEqual(['read_resource']); // the same catalog within budget
  });

  it('MCP tools not all offered: search_tools (and reading tools, for long tool results)', () => {
    expect(offered([server()], { mcpTools: { any: true, hidden: 3 } })).toEqual([
      'read_resource',
      'search_resource',
      'search_tools',
    ]);
    expect(offered([server()], { mcpTools: { any: true, hidden: 0 } })).toEqual(['read_resource', 'search_resource']);
    // Without the count given, a usable server's tools still count as tools.
    const withTools = server({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }] });
    expect(build([withTools]).text).toContain('Server tools are named <server>__<tool>.');
  });
});

describe('the system prompt text', () => {
  it('is byte-identical for two different questions (a stable prefix); the relevant entries go with the message', () => {
    const servers = [server({ resources: many })];
    const settings = { ...SETTINGS, CATALOG_TOKEN_BUDGET: 100 };
    const a = build(servers, { settings, conversationText: 'What was said in meeting note 57?' });
    const b = build(servers, { settings, conversationText: 'And in meeting note 42?' });
    expect(a.text).toBe(b.text);
    expect(a.relevant).toContain('docs://notes/57');
    expect(b.relevant).toContain('docs://notes/42');
  });

  it('skills alone: load_skill; read_resource too once a skill has files besides its SKILL.md (load_skill tells the model to read them with it)', () => {
    const digest = `sha256:${'0'.repeat(64)}`;
    const manifestOnly = {
      uri: 'skill://plan/SKILL.md',
      frontmatter: { name: 'plan', description: 'Plans' },
      resources: [{ uri: 'skill://plan/SKILL.md', digest, size: 300 }],
    };
    expect(offered([server({ skills: [manifestOnly] })])).toEqual(['load_skill']);
    const withFile = {
      ...manifestOnly,
      resources: [...manifestOnly.resources, { uri: 'skill://plan/checklist.md', digest, size: 100 }],
    };
    expect(offered([server({ skills: [withFile] })])).toEqual(['load_skill', 'read_resource']);
    expect(offered([server({ skills: [{ ...manifestOnly, resources: 'dynamic' as const }] })])).toEqual([
      'load_skill',
      'read_resource',
    ]);
  });

  it("each offered tool's sentence appears once in the base instruction, in registry order", () => {
    const templates = Array.from({ length: 5 }, (_, i) => ({
      uriTemplate: `docs://page/{id}/${i}`,
      name: `page-${i}`,
    }));
    const skills = Array.from({ length: 20 }, (_, i) => ({
      uri: `skill://skill-${i}/SKILL.md`,
      frontmatter: { name: `skill-${i}`, description: `Does task number ${i}` },
      resources: [{ uri: `skill://skill-${i}/SKILL.md`, digest: `sha256:${'0'.repeat(64)}`, size: 300 }],
    }));
    const servers = [
      server({ resources: many, resourceTemplates: templates, prompts: [{ name: 'summarise' }], skills }),
    ];
    const prompt = build(servers, {
      settings: { ...SETTINGS, CATALOG_TOKEN_BUDGET: 100 },
      mcpTools: { any: true, hidden: 2, dispatcher: true },
      programs: { mode: 'on', worthIt: false },
    });
    expect([...prompt.offered]).toEqual(SYNTHETIC_TOOLS.map((t) => t.name)); // all of them, for this test to mean something
    const positions = SYNTHETIC_TOOLS.map((t) => {
      const sentence = t.sentence(prompt.facts);
      expect(prompt.text.split(sentence)).toHaveLength(2);
      return prompt.text.indexOf(sentence);
    });
    expect(positions).toEqual([...positions].sort((x, y) => x - y));
  });
});
