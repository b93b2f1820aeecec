import { ENGLISH, type Locale } from './i18n/locale';
import type { ToolPart } from './types';

/**
 * One line for a tool step, as a person would say it — "read
 * task://guidelines (cached)", "read docs://report.pdf, pages 1-3 of 3",
 * "described application/pdf 1.0 KB" — and the
 * text the model actually received, for the expandable detail.
 */
export interface StepSummary {
  label: string;
  /** What the model was given (tool output, or the error), as text. */
  received?: string;
  /** The arguments, when they matter to the reader (MCP tools, approvals). */
  args?: string;
  status: 'running' | 'done' | 'error' | 'approval' | 'denied';
}

interface ReadOutput {
  server?: string;
  uri?: string;
  cache?: 'memory' | 'kv' | 'miss' | 'catalog';
  text?: string;
  window?: { offset: number; end: number; total: number; nextOffset?: number };
}

export function summarizeStep(part: ToolPart, locale: Locale = ENGLISH): StepSummary {
  const t = locale.t.bind(locale);
  const name = part.type.slice('tool-'.length);
  const input = (part.input ?? {}) as Record<string, unknown>;
  const status: StepSummary['status'] =
    part.state === 'output-error'
      ? 'error'
      : part.state === 'output-denied' || part.approval?.approved === false
        ? 'denied'
        : part.state === 'approval-requested'
          ? 'approval'
          : part.state === 'output-available'
            ? 'done'
            : 'running';
  const received = part.state === 'output-error' ? part.errorText : textOf(part.output);
  const base = { status, ...(received !== undefined ? { received } : {}) };

  switch (name) {
    case 'read_resource':
      return {
        ...base,
        label: readLabel(String(input.uri ?? ''), part.output as ReadOutput | undefined, status, locale),
      };
    case 'list_resources':
      return {
        ...base,
        label: input.query ? t('steps.listedMatching', { query: String(input.query) }) : t('steps.listed'),
      };
    case 'run_code':
      return { ...base, label: programLabel(part, status, locale) };
    case 'list_resource_templates':
      return { ...base, label: t('steps.templates') };
    case 'invoke_prompt':
      return {
        ...base,
        label: input.server
          ? t('steps.usedPromptOn', { name: String(input.name ?? ''), server: String(input.server) })
          : t('steps.usedPrompt', { name: String(input.name ?? '') }),
      };
    default: {
      // An MCP tool: its server and its own name as the service said them (the model's name may be rewritten or
      // suffixed, `del.ete` → `poison__del_ete`), else read from the model's name, <server>__<tool>.
      const meta = part.toolMetadata;
      const [server, tool] =
        typeof meta?.server === 'string' && typeof meta.tool === 'string'
          ? [meta.server, meta.tool]
          : name.includes('__')
            ? (name.split('__', 2) as [string, string])
            : ['', name];
      const key =
        status === 'approval' ? 'wants' : status === 'denied' ? 'denied' : status === 'running' ? 'running' : 'ran';
      const label = server ? t(`steps.${key}On`, { tool, server }) : t(`steps.${key}`, { tool });
      return { ...base, label, args: JSON.stringify(part.input ?? {}, null, 2) };
    }
  }
}

function readLabel(uri: string, output: ReadOutput | undefined, status: StepSummary['status'], locale: Locale): string {
  const t = locale.t.bind(locale);
  if (status === 'running') return t('steps.reading', { uri });
  if (status === 'error' || !output) return t('steps.readFailed', { uri });
  const binary = /^\[Binary resource: ([^,\]]+), ([^,\]]+)/.exec(output.text ?? '');
  if (binary)
    return t('steps.described', {
      type: binary[1]!,
      size: binary[2] === 'size unknown' ? t('steps.sizeUnknown') : binary[2]!,
    });
  if (output.cache === 'catalog') return t('steps.fromCatalog', { uri });
  const window = output.window;
  // A converted document (a PDF, an Office file) says which of its pages the model received; other text, characters.
  const pages = / pages="([^"]*)"/.exec(output.text ?? '')?.[1];
  const part = pages
    ? `, ${pages
        .replace(/&lt;/g, '<')
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&')}`
    : window && (window.offset > 0 || window.nextOffset !== undefined)
      ? `, ${t('steps.characters', { start: window.offset, end: window.end, total: window.total })}`
      : '';
  const cached = output.cache === 'memory' || output.cache === 'kv';
  return `${t(cached ? 'steps.readCached' : 'steps.read', { uri: output.uri ?? uri })}${part}`;
}

/** The words of each limit a run can end on, as the service's error says it ("stopped by its wall time limit"). */
const LIMIT_WORDS = {
  'wall time': 'program.wallTime',
  cpu: 'program.cpu',
  'read bytes': 'program.readBytes',
  calls: 'program.callLimit',
  memory: 'program.memory',
} as const;

/** A program's step: running; how many calls and bytes it read; or the limit that stopped it. */
function programLabel(part: ToolPart, status: StepSummary['status'], locale: Locale): string {
  const t = locale.t.bind(locale);
  if (status === 'running') return t('program.running');
  if (status === 'error') {
    const limit = /stopped by its ([a-z ]+) limit/.exec(part.errorText ?? '')?.[1] as
      | keyof typeof LIMIT_WORDS
      | undefined;
    return limit && LIMIT_WORDS[limit] ? t('program.stopped', { limit: t(LIMIT_WORDS[limit]) }) : t('program.failed');
  }
  const output = part.output as { calls?: unknown[]; bytes?: number } | undefined;
  return t('program.ran', { calls: output?.calls?.length ?? 0, size: locale.size(output?.bytes ?? 0) });
}

function textOf(output: unknown): string | undefined {
  if (output === undefined) return undefined;
  if (typeof output === 'string') return output;
  const text = (output as { text?: unknown }).text;
  if (typeof text === 'string') return text;
  return JSON.stringify(output, null, 2);
}
