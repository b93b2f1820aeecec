import { WorkerEntrypoint } from 'cloudflare:workers';
import type {
  ConvertInput,
  ConvertOutput,
  DocumentConverterRpc,
  PageImageInput,
  PageImageOutput,
} from '../../shared/documents';
import { convertDocument } from './convert';
import { pdfPageImage } from './page-image';
import { instrument } from './instrument';
import type { InstrumentInput, InstrumentOutput, ProgramInstrumenterRpc } from '../../shared/programs';

/**
 * The document converter, a Worker of its own (docs/ARCHITECTURE.md, "The converter Worker"): the main Worker
 * reaches it through the service binding `CONVERTER` and calls `convert` (and `pageImage`, a scanned page's image
 * for a model that reads images) over JS RPC — and `instrument`, a run_code program's text with its step counts
 * (instrument.ts: the parser is too big for the service's start-up, like the document libraries). It has no HTTP surface
 * (`fetch` answers 404, and it has no route or workers.dev URL); its CPU limit (wrangler.toml `[limits]`) bounds
 * any one document.
 */
export default class Converter extends WorkerEntrypoint implements DocumentConverterRpc, ProgramInstrumenterRpc {
  async convert(input: ConvertInput): Promise<ConvertOutput> {
    return convertDocument(input);
  }

  async pageImage(input: PageImageInput): Promise<PageImageOutput> {
    return pdfPageImage(input);
  }

  async instrument(input: InstrumentInput): Promise<InstrumentOutput> {
    return instrument(input);
  }

  override async fetch(): Promise<Response> {
    return new Response('The document converter answers RPC only (service binding CONVERTER).', { status: 404 });
  }
}
