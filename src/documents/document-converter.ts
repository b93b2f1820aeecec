import type {
  ConvertLimits,
  ConvertOutput,
  DocumentConverterRpc,
  DocumentFormat,
  PageImageOutput,
} from '../../shared/documents';

/**
 * Who turns a document's bytes into text (DOCUMENT_CONVERTER): our converter Worker through the `CONVERTER` service
 * binding (`local`, the default: page numbers, limits, the same code in tests and in production), or Workers AI's
 * `toMarkdown` (`workers-ai`: an operator's choice on Cloudflare; one text, no pages). Either answers with a reason
 * instead of throwing, so a document that cannot be read is described, never a failed turn.
 */
export interface DocumentConverter {
  readonly kind: 'local' | 'workers-ai';
  convert(bytes: Uint8Array, format: DocumentFormat, limits: ConvertLimits, name: string): Promise<ConvertOutput>;
  /** One page of a PDF as a PNG of at most `maxBytes` (a scanned page, for a model that reads images). */
  pageImage(bytes: Uint8Array, page: number, maxBytes: number): Promise<PageImageOutput>;
}

/** What documents are converted with: the converter, and the limits (DOCUMENT_MAX_BYTES, _PAGES, _CHARS). */
export interface DocumentReading {
  converter: DocumentConverter;
  maxBytes: number;
  limits: ConvertLimits;
}

/** The bindings a converter may use (both optional: a deployment binds the one it chose). */
export interface ConverterEnv {
  /** A service binding to the converter Worker's entrypoint (its RPC: `convert`). */
  CONVERTER?: unknown;
  /** A Workers AI binding (`toMarkdown`). */
  AI?: unknown;
}

const MIME_OF: Record<DocumentFormat, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  html: 'text/html',
  csv: 'text/csv',
};

export function documentConverter(
  env: ConverterEnv,
  choice: 'local' | 'workers-ai' | 'off',
): DocumentConverter | undefined {
  if (choice === 'off') return undefined;
  if (choice === 'workers-ai') return workersAi(env);
  // Either RPC answers with a reason, never throws: no binding, or the converter Worker failing (its CPU limit, say).
  async function call<T>(
    rpc: (converter: DocumentConverterRpc) => Promise<T>,
  ): Promise<T | { ok: false; reason: string }> {
    const converter = env.CONVERTER as DocumentConverterRpc | undefined;
    if (!converter) return { ok: false, reason: 'no document converter is bound (service binding CONVERTER)' };
    try {
      return await rpc(converter);
    } catch (error) {
      return {
        ok: false,
        reason: `the document converter failed: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
  }
  return {
    kind: 'local',
    convert: (bytes, format, limits) => call((converter) => converter.convert({ bytes, format, limits })),
    pageImage: (bytes, page, maxBytes) => call((converter) => converter.pageImage({ bytes, page, maxBytes })),
  };
}

function workersAi(env: ConverterEnv): DocumentConverter {
  return {
    kind: 'workers-ai',
    async convert(bytes, format, limits, name) {
      const ai = env.AI as { toMarkdown(files: Array<{ name: string; blob: Blob }>): Promise<unknown> } | undefined;
      if (!ai) return { ok: false, reason: 'DOCUMENT_CONVERTER is workers-ai but no Workers AI binding (AI) is set' };
      try {
        const [result] = (await ai.toMarkdown([
          { name, blob: new Blob([bytes], { type: MIME_OF[format] }) },
        ])) as Array<{ format?: string; data?: string; error?: string }>;
        if (result?.format !== 'markdown' || typeof result.data !== 'string')
          return { ok: false, reason: `Workers AI could not convert it${result?.error ? `: ${result.error}` : ''}` };
        const cut = result.data.length > limits.maxChars;
        return {
          ok: true,
          document: {
            format,
            text: cut ? result.data.slice(0, limits.maxChars) : result.data,
            ...(cut ? { note: `converted text cut at ${limits.maxChars} characters (DOCUMENT_MAX_CHARS)` } : {}),
          },
        };
      } catch (error) {
        return { ok: false, reason: `Workers AI failed: ${error instanceof Error ? error.message : String(error)}` };
      }
    },
    // toMarkdown gives text only, and no pages; a scanned page's image needs the local converter.
    async pageImage() {
      return { ok: false, reason: 'page images need DOCUMENT_CONVERTER=local (Workers AI converts to text only)' };
    },
  };
}

/** The converter and limits the settings choose; undefined when documents are not converted (DOCUMENT_CONVERTER=off). */
export function documentReading(
  env: ConverterEnv,
  settings: {
    DOCUMENT_CONVERTER: 'local' | 'workers-ai' | 'off';
    DOCUMENT_MAX_BYTES: number;
    DOCUMENT_MAX_PAGES: number;
    DOCUMENT_MAX_CHARS: number;
  },
): DocumentReading | undefined {
  const converter = documentConverter(env, settings.DOCUMENT_CONVERTER);
  return converter
    ? {
        converter,
        maxBytes: settings.DOCUMENT_MAX_BYTES,
        limits: { maxPages: settings.DOCUMENT_MAX_PAGES, maxChars: settings.DOCUMENT_MAX_CHARS },
      }
    : undefined;
}
