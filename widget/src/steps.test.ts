import { describe, expect, it } from 'vitest';
import { summarizeStep } from './steps';
import type { ToolPart } from './types';

const read = (text: string, window = { offset: 0, end: 100, total: 100 }): ToolPart =>
  ({
    type: 'tool-read_resource',
    toolCallId: 'c1',
    state: 'output-available',
    input: { uri: 'docs://report.pdf', server: 'demo' },
    output: { server: 'demo', uri: 'docs://report.pdf', cache: 'miss', text, window, images: [] },
  }) as unknown as ToolPart;

describe('a read step', () => {
  it('says which pages of a converted document the model received', () => {
    const text =
      '[Document: application/pdf, 2.7 KB, "Quarterly report Q3", 3 pages, uri docs://report.pdf, server demo — its text follows]\n' +
      '<resource server="demo" uri="docs://report.pdf" mime="text/markdown" pages="pages 1-3 of 3">\n…\n</resource>';
    expect(summarizeStep(read(text)).label).toBe('read docs://report.pdf, pages 1-3 of 3');
  });

  it('says characters for a window of plain text, and "described" for a binary', () => {
    const text =
      '<resource server="demo" uri="docs://report.pdf" mime="text/plain" part="characters 0-10 of 20">\nx\n</resource>';
    expect(summarizeStep(read(text, { offset: 0, end: 10, total: 20, nextOffset: 10 } as never)).label).toBe(
      'read docs://report.pdf, characters 0–10 of 20',
    );
    expect(summarizeStep(read('[Binary resource: image/png, 291 B, uri x, server demo — …]')).label).toBe(
      'described image/png 291 B',
    );
  });
});

describe('a program step', () => {
  const run = (part: Partial<ToolPart>): ToolPart =>
    ({ type: 'tool-run_code', toolCallId: 'c2', input: { code: 'return 1' }, ...part }) as unknown as ToolPart;

  it('says how many calls it made and what it read, or that it runs', () => {
    const output = { result: '1', resultChars: 1, logs: [], logsCut: 0, calls: [{}, {}], bytes: 2048 };
    expect(summarizeStep(run({ state: 'output-available', output } as never)).label).toBe(
      'ran a program: 2 calls, 2.0 KB read',
    );
    expect(summarizeStep(run({ state: 'input-available' } as never)).label).toBe('running a program…');
  });

  it('names the limit that stopped it, and says a program that threw failed', () => {
    const failed = (errorText: string) => summarizeStep(run({ state: 'output-error', errorText } as never));
    expect(failed('The program was stopped by its wall time limit.\n<program-output …>').label).toBe(
      'the program was stopped: time limit',
    );
    expect(failed('The program was stopped by its read bytes limit.').status).toBe('error');
    expect(failed('The program was stopped by its read bytes limit.').label).toBe(
      'the program was stopped: bytes read limit',
    );
    expect(failed('The program threw an error.\nTypeError: x is undefined').label).toBe('the program failed');
  });
});
