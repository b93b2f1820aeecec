import type { Resource } from '@modelcontextprotocol/server';
import { LOGO_PNG_BASE64 } from './content/binaries';
import { REPORT_PDF_BASE64 } from './content/report-pdf';
import { TEST_MATRIX_MARKDOWN } from './content/test-matrix';
import type { DemoStore } from './store';

export const GUIDELINES_URI = 'task://guidelines';
export const TEST_MATRIX_URI = 'docs://test-matrix';
export const REPORT_URI = 'docs://quarterly-report.pdf';
export const LOGO_URI = 'assets://logo.png';
export const PUBLISHED_TEMPLATE = 'docs://published/{slug}';
export const CUSTOMER_TEMPLATE = 'customer://{customerId}/profile';

export const publishedUri = (slug: string) => `docs://published/${slug}`;

/** One `contents` entry of a `resources/read` result. */
export type DemoContents = { uri: string; mimeType: string } & ({ text: string } | { blob: string });

/** A fixed resource of the demo server: its listing entry and how to read it. */
export interface StaticResource {
  listing: Omit<Resource, 'size'>;
  read(store: DemoStore): DemoContents;
}

const utf8Bytes = (text: string) => new TextEncoder().encode(text).byteLength;
const base64Bytes = (b64: string) => (b64.length / 4) * 3 - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0);

export const STATIC_RESOURCES: readonly StaticResource[] = [
  {
    listing: {
      uri: GUIDELINES_URI,
      name: 'guidelines',
      title: 'Team guidelines',
      description:
        'The rules the team plans and closes tasks by. Changes over time (update_guidelines); subscribe to follow it.',
      mimeType: 'text/plain',
      annotations: { audience: ['user', 'assistant'], priority: 0.9 },
    },
    read: (store) => ({ uri: GUIDELINES_URI, mimeType: 'text/plain', text: store.guidelines() }),
  },
  {
    listing: {
      uri: TEST_MATRIX_URI,
      name: 'test-matrix',
      title: 'Release test matrix 4.18',
      description:
        'Manual release checks by area and platform, the products under test and the required report format.',
      mimeType: 'text/markdown',
      annotations: { audience: ['assistant'], priority: 0.5 },
    },
    read: () => ({ uri: TEST_MATRIX_URI, mimeType: 'text/markdown', text: TEST_MATRIX_MARKDOWN }),
  },
  {
    listing: {
      uri: REPORT_URI,
      name: 'quarterly-report.pdf',
      title: 'Quarterly report Q3',
      description: "Three-page PDF: the quarter's task statistics, overdue tasks, next quarter's goals.",
      mimeType: 'application/pdf',
    },
    read: () => ({ uri: REPORT_URI, mimeType: 'application/pdf', blob: REPORT_PDF_BASE64 }),
  },
  {
    listing: {
      uri: LOGO_URI,
      name: 'logo.png',
      title: 'Team logo',
      description: '48×48 PNG badge used in task notifications.',
      mimeType: 'image/png',
    },
    read: () => ({ uri: LOGO_URI, mimeType: 'image/png', blob: LOGO_PNG_BASE64 }),
  },
];

/** Byte size of a contents entry, as announced in listings. */
export function contentsSize(contents: DemoContents): number {
  return 'text' in contents ? utf8Bytes(contents.text) : base64Bytes(contents.blob);
}

/** Every concrete resource, fixed ones first, then published documents by slug. */
export function listAllResources(store: DemoStore): Resource[] {
  const fixed = STATIC_RESOURCES.map((resource) => ({ ...resource.listing, size: contentsSize(resource.read(store)) }));
  const published = store.documents().map((doc) => ({
    uri: publishedUri(doc.slug),
    name: doc.slug,
    title: doc.title,
    description: `Published ${doc.publishedAt}`,
    mimeType: 'text/markdown',
    size: utf8Bytes(doc.markdown),
  }));
  return [...fixed, ...published];
}

/**
 * Cursor pagination over a list. Cursors are opaque to clients (base64 of an
 * offset); an unparseable cursor is the caller's error.
 */
export function paginate<T>(
  items: readonly T[],
  cursor: string | undefined,
  pageSize: number,
): { page: T[]; nextCursor?: string } {
  let offset = 0;
  if (cursor !== undefined) {
    const decoded = Number(safeAtob(cursor));
    if (!Number.isInteger(decoded) || decoded < 0 || decoded > items.length)
      throw new RangeError(`invalid cursor "${cursor}"`);
    offset = decoded;
  }
  const end = offset + pageSize;
  return end < items.length
    ? { page: items.slice(offset, end), nextCursor: btoa(String(end)) }
    : { page: items.slice(offset) };
}

function safeAtob(value: string): string {
  try {
    return atob(value);
  } catch {
    return 'NaN';
  }
}
