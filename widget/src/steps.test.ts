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
