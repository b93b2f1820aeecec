import type { DocumentConverterRpc, DocumentFormat } from '../../shared/documents';

/** bench/convert.mjs's way in: `POST /<format>?maxPages=&maxChars=` with the bytes → a summary of the conversion. */
export default {
  async fetch(request: Request, env: { CONVERTER: DocumentConverterRpc }): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === '/health') return new Response('ok');
    const format = url.pathname.slice(1) as DocumentFormat;
    const limits = {
      maxPages: Number(url.searchParams.get('maxPages') ?? 500),
      maxChars: Number(url.searchParams.get('maxChars') ?? 2_000_000),
    };
    const output = await env.CONVERTER.convert({ bytes: new Uint8Array(await request.arrayBuffer()), format, limits });
    if (!output.ok) return Response.json(output);
    const { text, parts, ...rest } = output.document;
    return Response.json({ ok: true, chars: text.length, parts: parts?.starts.length, ...rest });
  },
};
