import type { ModelMessage, ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { activeTools, offeredTools, openingText, toolOffer, withAdditionalTools, type ToolOffer } from './tool-offer';
import type { ToolEntry } from './tool-entries';

const entry = (name: string, description: string, cost = 100): ToolEntry => ({
  name,
  server: name.split('__')[0]!,
  tool: name.split('__')[1]!,
  description,
  cost,
  definition: { description: `[server ${name.split('__')[0]}] ${description}`, parameters: { type: 'object' } },
});

const ENTRIES = [
  entry('crm__create_contact', 'Create a contact in the CRM'),
  entry('weather__forecast', 'Weather forecast for a city'),
  entry('billing__refund_invoice', 'Refund an invoice'),
  entry('billing__list_invoices', 'List the invoices of a customer'),
];

describe('toolOffer', () => {
  it('under budget: every tool is offered, none hidden, whatever the conversation is about', () => {
    const total = ENTRIES.reduce((sum, e) => sum + e.cost, 0);
    for (const text of ['', 'weather in Paris?']) {
      const { offered, hidden } = toolOffer(ENTRIES, text, total, 'anthropic');
      expect([...offered]).toEqual(ENTRIES.map((e) => e.name));
      expect(hidden.size).toBe(0);
    }
  });

  it('over budget: the tools most relevant to the opening message, in catalog order; the rest hidden', () => {
    const { offered, hidden } = toolOffer(ENTRIES, 'Please refund the last invoice of this customer', 200, undefined);
    expect([...offered]).toEqual(['billing__refund_invoice', 'billing__list_invoices']);
    expect([...hidden]).toEqual(['crm__create_contact', 'weather__forecast']);
    expect([...toolOffer(ENTRIES, 'What is the weather forecast for Lyon?', 100, undefined).offered]).toEqual([
      'weather__forecast',
    ]);
  });

  it('over budget with nothing relevant: the first tools in catalog order that fit', () => {
    const { offered } = toolOffer(ENTRIES, 'hello there', 250, undefined);
    expect([...offered]).toEqual(['crm__create_contact', 'weather__forecast']);
  });

  it('a relevant tool too costly for the budget gives its place to cheaper ones', () => {
    const entries = [
      entry('a__huge_refund', 'Refund anything', 1_000),
      entry('b__ping', 'Ping', 10),
      entry('c__echo', 'Echo', 10),
    ];
    expect([...toolOffer(entries, 'refund', 50, undefined).hidden]).toEqual(['a__huge_refund']);
  });

  it('how the hidden ones are loaded follows the provider', () => {
    expect(toolOffer(ENTRIES, '', 100, 'anthropic').loading).toBe('references');
    expect(toolOffer(ENTRIES, '', 100, 'openai').loading).toBe('additional-tools');
    expect(toolOffer(ENTRIES, '', 100, undefined).loading).toBe('dispatcher');
  });
});

describe('openingText', () => {
  it('is the first user message, whatever came after', () => {
    const messages = [
      { role: 'user', parts: [{ type: 'text', text: 'Refund an invoice' }, { type: 'file' }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'Done' }] },
      { role: 'user', parts: [{ type: 'text', text: 'Now the weather' }] },
    ];
    expect(openingText(messages)).toBe('Refund an invoice ');
    expect(openingText([])).toBe('');
  });
});

const tools = Object.fromEntries(
  ['read_resource', 'search_tools', 'call_tool', ...ENTRIES.map((e) => e.name), 'client_get_location'].map((name) => [
    name,
    { inputSchema: {} },
  ]),
) as unknown as ToolSet;
const offer = (loading: ToolOffer['loading']): ToolOffer => ({
  loading,
  offered: new Set(['crm__create_contact', 'weather__forecast']),
  hidden: new Set(['billing__refund_invoice', 'billing__list_invoices']),
});

describe('offeredTools', () => {
  it('Anthropic: the hidden tools are declared, deferred; OpenAI: left out of the request; otherwise: untouched', () => {
    const anthropic = offeredTools(tools, offer('references'));
    expect(anthropic.billing__refund_invoice!.providerOptions).toEqual({ anthropic: { deferLoading: true } });
    expect(anthropic.crm__create_contact!.providerOptions).toBeUndefined();
    const openai = offeredTools(tools, offer('additional-tools'));
    expect(openai.billing__list_invoices!.providerOptions).toEqual({ openai: { omitFromRequestTools: true } });
    expect(offeredTools(tools, offer('dispatcher'))).toBe(tools);
    expect(Object.keys(anthropic)).toEqual(Object.keys(tools));
  });
});

describe('activeTools', () => {
  it('synthetic tools only when the system prompt offered them; client tools always', () => {
    expect(activeTools(tools, new Set(['read_resource']), { entries: ENTRIES, offer: offer('dispatcher') })).toEqual([
      'read_resource',
      'crm__create_contact',
      'weather__forecast',
      'client_get_location',
    ]);
  });

  it('where the provider loads them, the hidden MCP tools are active too (they must be, to run)', () => {
    expect(activeTools(tools, new Set(['search_tools']), { entries: ENTRIES, offer: offer('references') })).toEqual([
      'search_tools',
      ...ENTRIES.map((e) => e.name),
      'client_get_location',
    ]);
  });

  it('an offered name that is not in the tool set is not invented', () => {
    expect(
      activeTools({} as ToolSet, new Set(['read_resource']), { entries: ENTRIES, offer: offer('dispatcher') }),
    ).toEqual([]);
  });
});

describe('withAdditionalTools', () => {
  const search = (found: string[]): ModelMessage => ({
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'search_tools',
        output: { type: 'json', value: { found: found.map((name) => ({ name, description: '' })) } },
      },
    ],
  });

  it('a search result carries the definitions of the hidden tools it found, and nothing else changes', () => {
    const user: ModelMessage = { role: 'user', content: 'refund' };
    const [same, withTools] = withAdditionalTools(
      [user, search(['billing__refund_invoice', 'crm__create_contact', 'nope'])],
      offer('additional-tools'),
      ENTRIES,
    );
    expect(same).toBe(user);
    const part = (withTools as { content: Array<{ providerOptions?: unknown }> }).content[0]!;
    expect(part.providerOptions).toEqual({
      openai: {
        additionalTools: [
          {
            type: 'function',
            name: 'billing__refund_invoice',
            description: '[server billing] Refund an invoice',
            parameters: { type: 'object' },
          },
        ],
      },
    });
  });

  it('a search that found nothing hidden is left as it is', () => {
    const message = search(['crm__create_contact']);
    const [out] = withAdditionalTools([message], offer('additional-tools'), ENTRIES);
    expect((out as { content: Array<{ providerOptions?: unknown }> }).content[0]!.providerOptions).toBeUndefined();
  });
});
