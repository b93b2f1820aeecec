import { codeBlock } from './code-block';
import { h } from './dom';
import type { Locale } from './i18n/locale';
import { summarizeStep } from './steps';
import type { ToolPart } from './types';

/** One call a program made, as the run reports it (src/sandbox/gateway.ts `ApiCallRecord`). */
interface ProgramCall {
  method: string;
  server?: string;
  uri?: string;
  name?: string;
  bytes: number;
  error?: string;
}

/** What a run gives its step (src/tools/synthetic/run-code.ts `RunCodeOutput`), as far as the step shows it. */
interface ProgramOutput {
  result: string;
  resultChars: number;
  logs: string[];
  logsCut: number;
  calls: ProgramCall[];
}

/** The API a program calls, by the names it calls them (the run records the short ones). */
const CALLED_AS: Record<string, string> = {
  list: 'resources.list',
  read: 'resources.read',
  search: 'resources.search',
  prompt: 'prompts.get',
  call: 'tools.call',
};

/**
 * A program's step (`run_code`): one line (how many calls and bytes, or the limit that stopped it), expandable to the
 * program as the model wrote it (a JavaScript code block, coloured like an answer's), each call it made (what, where,
 * how many bytes), what it returned and its console lines — or, when it failed, the error, which names the limit.
 * Everything from the run is set as text, never as markup.
 */
export function programStep(part: ToolPart, locale: Locale): HTMLElement {
  const t = locale.t.bind(locale);
  const step = summarizeStep(part, locale);
  const code = (part.input as { code?: unknown } | undefined)?.code;
  const output = part.state === 'output-available' ? (part.output as ProgramOutput | undefined) : undefined;
  const section = (title: string, ...body: Array<Node | null>) => [h('h4', {}, title), ...body];
  // Focusable: a long one scrolls, and a keyboard must reach it to scroll it (axe: scrollable-region-focusable).
  const text = (value: string) => h('pre', { tabindex: 0 }, value);
  const note = (value: string) => h('p', { class: 'meta' }, value);
  return h(
    'details',
    { class: 'step program', 'data-status': step.status, 'data-tool': 'run_code' },
    h('summary', {}, step.label),
    ...(typeof code === 'string' && code ? section(t('program.code'), codeBlock(code, 'js', document, locale)) : []),
    ...(output
      ? [
          ...section(
            t('program.calls'),
            output.calls.length ? callList(output.calls, locale) : note(t('program.none')),
          ),
          ...section(
            t('program.returned'),
            text(output.result),
            output.resultChars > output.result.length
              ? note(t('program.cut', { shown: output.result.length, total: output.resultChars }))
              : null,
          ),
          ...(output.logs.length || output.logsCut
            ? section(
                t('program.console'),
                output.logs.length ? text(output.logs.join('\n')) : null,
                output.logsCut ? note(t('program.linesCut', { count: output.logsCut })) : null,
              )
            : []),
        ]
      : []),
    ...(part.state === 'output-error' ? section(t('transcript.error'), text(part.errorText ?? '')) : []),
  );
}

function callList(calls: ProgramCall[], locale: Locale): HTMLElement {
  return h(
    'ul',
    { class: 'program-calls' },
    ...calls.map((call) =>
      h(
        'li',
        {},
        h('code', {}, CALLED_AS[call.method] ?? call.method),
        call.uri || call.name ? ` ${call.uri ?? call.name}` : '',
        h('span', { class: 'meta' }, ` · ${[call.server, locale.size(call.bytes)].filter(Boolean).join(' · ')}`),
        call.error ? h('span', { class: 'call-error' }, ` — ${call.error}`) : null,
      ),
    ),
  );
}
