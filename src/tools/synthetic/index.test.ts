import { describe, expect, it } from 'vitest';
import type { CatalogFacts } from '../../prompt/system-prompt';
import { READING_TOOL_NAMES, SYNTHETIC_TOOL_NAMES, SYNTHETIC_TOOLS, syntheticTools, type ToolHost } from './index';

const EMPTY: CatalogFacts = {
  catalogLines: 0,
  resources: 0,
  resourcesShown: 0,
  templates: 0,
  templatesShown: 0,
  prompts: 0,
  skills: 0,
  skillsShown: 0,
  readable: false,
  longOrUnknown: false,
  anyTools: false,
  hiddenTools: 0,
  toolDispatcher: false,
  programs: 'off',
  programWorthIt: false,
};
const FULL: CatalogFacts = {
  catalogLines: 40,
  resources: 30,
  resourcesShown: 10,
  templates: 5,
  templatesShown: 0,
  prompts: 5,
  skills: 12,
  skillsShown: 4,
  readable: true,
  longOrUnknown: true,
  anyTools: true,
  hiddenTools: 3,
  toolDispatcher: true,
  programs: 'on',
  programWorthIt: false,
};
const offeredFor = (facts: CatalogFacts) => SYNTHETIC_TOOLS.filter((t) => t.offeredWhen(facts)).map((t) => t.name);

describe('the synthetic tool registry', () => {
  it('has unique names', () => {
    expect(SYNTHETIC_TOOL_NAMES.size).toBe(SYNTHETIC_TOOLS.length);
  });

  it('the reading tools (results a note may replace) are read_resource, search_resource and load_skill, the ones marked `reads`', () => {
    expect(READING_TOOL_NAMES).toEqual(new Set(['read_resource', 'search_resource', 'load_skill']));
    for (const tool of SYNTHETIC_TOOLS) expect(READING_TOOL_NAMES.has(tool.name)).toBe(tool.reads === true);
  });

  it("every tool's sentence names the tool, with or without a catalog", () => {
    for (const facts of [EMPTY, FULL])
      for (const tool of SYNTHETIC_TOOLS) expect(tool.sentence(facts)).toContain(tool.name);
  });

  it('the registry lists the tools group by group, so their sentences keep its order in the prompt', () => {
    const ranks = SYNTHETIC_TOOLS.map((t) => ['read', 'discover', 'tools'].indexOf(t.group));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  });

  it('every tool is made for a turn under its own name', () => {
    expect(Object.keys(syntheticTools({} as ToolHost))).toEqual(SYNTHETIC_TOOLS.map((t) => t.name));
  });
});

describe('when each tool is offered', () => {
  it('an all-empty catalog offers no tool at all', () => {
    expect(offeredFor(EMPTY)).toEqual([]);
  });

  it('MCP tools alone offer read_resource and search_resource: long tool results are read on and searched like resources', () => {
    expect(offeredFor({ ...EMPTY, anyTools: true })).toEqual(['read_resource', 'search_resource']);
    expect(offeredFor({ ...EMPTY, anyTools: true, hiddenTools: 2 })).toEqual([
      'read_resource',
      'search_resource',
      'search_tools',
    ]);
    // A model whose provider cannot load tools mid-conversation runs them through call_tool.
    expect(offeredFor({ ...EMPTY, anyTools: true, hiddenTools: 2, toolDispatcher: true })).toEqual([
      'read_resource',
      'search_resource',
      'search_tools',
      'call_tool',
    ]);
  });

  it('search_resource needs something long (or of unknown size) to read, or templates', () => {
    const readable = { ...EMPTY, catalogLines: 1, resources: 1, resourcesShown: 1, readable: true };
    expect(offeredFor(readable)).toEqual(['read_resource']);
    expect(offeredFor({ ...readable, longOrUnknown: true })).toEqual(['read_resource', 'search_resource']);
  });

  it('the listing tools only when the prompt does not show everything; invoke_prompt when there are prompts; load_skill when there are skills', () => {
    const shownAll = {
      ...FULL,
      resourcesShown: 30,
      templatesShown: 5,
      skillsShown: 12,
      hiddenTools: 0,
      programs: 'off' as const,
    };
    expect(offeredFor(shownAll)).toEqual(['read_resource', 'search_resource', 'invoke_prompt', 'load_skill']);
    expect(offeredFor(FULL)).toEqual(SYNTHETIC_TOOLS.map((t) => t.name));
  });

  it('run_code: never when off; under auto only when the cost planner finds a run worth it; under on when something can be read', () => {
    const readable = { ...EMPTY, catalogLines: 1, resources: 1, resourcesShown: 1, readable: true };
    expect(offeredFor(readable)).not.toContain('run_code');
    expect(offeredFor({ ...readable, programs: 'auto' })).not.toContain('run_code');
    expect(offeredFor({ ...readable, programs: 'auto', programWorthIt: true })).toContain('run_code');
    expect(offeredFor({ ...readable, programs: 'on' })).toContain('run_code');
    expect(offeredFor({ ...EMPTY, programs: 'on' })).not.toContain('run_code');
  });
});
