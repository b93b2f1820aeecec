import type { ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { activeTools, chooseMcpTools } from './tool-offer';
import type { ToolEntry } from './tool-entries';

const entry = (name: string, description: string, cost = 100): ToolEntry => ({
  name,
  server: name.split('__')[0]!,
  description,
  cost,
});

const ENTRIES = [
  entry('crm__create_contact', 'Create a contact in the CRM'),
  entry('weather__forecast', 'Weather forecast for a city'),
  entry('billing__refund_invoice', 'Refund an invoice'),
  entry('billing__list_invoices', 'List the invoices of a customer'),
];

describe('chooseMcpTools', () => {
  it('under budget: every tool is offered, none hidden, whatever the conversation is about', () => {
    const total = ENTRIES.reduce((sum, e) => sum + e.cost, 0);
    for (const text of ['', 'weather in Paris?']) {
      const { offered, hidden } = chooseMcpTools(ENTRIES, text, total);
      expect([...offered]).toEqual(ENTRIES.map((e) => e.name));
      expect(hidden).toBe(0);
    }
  });

  it('over budget: the tools most relevant to the recent text are offered, the rest counted as hidden', () => {
    const { offered, hidden } = chooseMcpTools(ENTRIES, 'Please refund the last invoice of this customer', 200);
    expect(offered).toEqual(new Set(['billing__refund_invoice', 'billing__list_invoices']));
    expect(hidden).toBe(2);
    expect(chooseMcpTools(ENTRIES, 'What is the weather forecast for Lyon?', 100).offered).toEqual(
      new Set(['weather__forecast']),
    );
  });

  it('over budget with nothing relevant: the first tools in catalog order that fit', () => {
    const { offered, hidden } = chooseMcpTools(ENTRIES, 'hello there', 250);
    expect(offered).toEqual(new Set(['crm__create_contact', 'weather__forecast']));
    expect(hidden).toBe(2);
  });

  it('a relevant tool too costly for the budget gives its place to cheaper ones', () => {
    const entries = [
      entry('a__huge_refund', 'Refund anything', 1_000),
      entry('b__ping', 'Ping', 10),
      entry('c__echo', 'Echo', 10),
    ];
    const { offered, hidden } = chooseMcpTools(entries, 'refund', 50);
    expect(offered).toEqual(new Set(['b__ping', 'c__echo']));
    expect(hidden).toBe(1);
  });
});

describe('activeTools', () => {
  const tools = Object.fromEntries(
    [
      'read_resource',
      'search_tools',
      'list_resources',
      'crm__create_contact',
      'weather__forecast',
      'billing__refund_invoice',
      'client_get_location',
    ].map((name) => [name, { inputSchema: {} }]),
  ) as unknown as ToolSet;
  const mcp = {
    entries: ENTRIES,
    offered: new Set(['crm__create_contact']),
    found: new Set(['billing__refund_invoice']),
  };

  it('synthetic tools only when the system prompt offered them; MCP tools when chosen or found; client tools always', () => {
    expect(activeTools(tools, new Set(['read_resource']), mcp)).toEqual([
      'read_resource',
      'crm__create_contact',
      'billing__refund_invoice',
      'client_get_location',
    ]);
  });

  it('a tool unknown to the registry (a client tool) is active even when nothing is offered', () => {
    expect(activeTools(tools, new Set(), { entries: ENTRIES, offered: new Set(), found: new Set() })).toEqual([
      'client_get_location',
    ]);
  });

  it('an offered name that is not in the tool set is not invented', () => {
    expect(activeTools({} as ToolSet, new Set(['read_resource']), mcp)).toEqual([]);
  });
});
