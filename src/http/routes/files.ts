import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { UploadedFiles, type UploadedFile, uploadUri } from '../../../shared/api/files';
import { loadConfig } from '../../config';
import { ApiError, badRequest, notFound } from '../../errors';
import { unwrap } from '../../rpc';
import { storeUploads } from '../../uploads/intake';
import { isSafeFileName } from '../../uploads/names';
import { type StoredUpload, UploadStore } from '../../uploads/store';
import { ownedStub } from '../conversation-stub';
import { uploadBodyLimit } from '../middleware/upload-body-limit';
import { errors, json, routes, V1_ERRORS } from '../openapi';

/** The request body as OpenAPI describes it (a plain JSON Schema: the route reads the form itself, file by file). */
const UPLOAD_FORM = {
  type: 'object' as const,
  properties: {
    file: {
      type: 'array' as const,
      items: { type: 'string' as const, format: 'binary' },
      description: 'One field per file; each part’s filename and Content-Type are kept.',
    },
  },
  required: ['file'],
};

/**
 * The routes as OpenAPI declares them (paths, parameters, bodies, answers). A function, called once by
 * {@link fileRoutes}: their schemas are built when the app is, not at module load (see there).
 */
function declarations() {
  const IdParams = z.object({ id: z.string().meta({ description: 'A conversation id.' }) });
  const NameParams = IdParams.extend({
    name: z.string().meta({ description: 'A file’s name as the upload answered it.', example: 'quarterly-report.pdf' }),
  });
  const tags = ['conversations'];

  const upload = createRoute({
    method: 'post',
    path: '/{id}/files',
    tags,
    summary: 'Upload files to the conversation',
    description:
      'Each file becomes a resource of the built-in MCP server `uploads` (`upload://<conversation>/<name>`): in the conversation’s catalog, read by the model on demand, attachable to a message. ' +
      'Every file is checked before any is stored: one over UPLOAD_MAX_BYTES is `413 file_too_large`, past UPLOADS_PER_CONVERSATION or the tenant’s UPLOAD_BYTES_PER_TENANT_PER_DAY `429 upload_quota` (the error names the limit), and then nothing of the request is stored. ' +
      'Uploads at once count together: those to one conversation, and the tenant’s, never pass a limit between them. ' +
      'A name the conversation has already gets `-2`, `-3`… before its extension.',
    middleware: [uploadBodyLimit()] as const,
    request: {
      params: IdParams,
      body: { required: true, content: { 'multipart/form-data': { schema: UPLOAD_FORM } } },
    },
    responses: {
      201: json(UploadedFiles, 'Stored, in the order sent.'),
      ...errors(400, 404, 413, 415, 429, ...V1_ERRORS),
    },
  });
  const list = createRoute({
    method: 'get',
    path: '/{id}/files',
    tags,
    summary: 'The conversation’s files',
    request: { params: IdParams },
    responses: { 200: json(UploadedFiles, 'Oldest first.'), ...errors(400, 404, ...V1_ERRORS) },
  });
  const remove = createRoute({
    method: 'delete',
    path: '/{id}/files/{name}',
    tags,
    summary: 'Delete one file',
    description:
      'Gone from storage and from the conversation’s catalog; what the model read of it stays in the history.',
    request: { params: NameParams },
    responses: { 204: { description: 'Deleted.' }, ...errors(400, 404, ...V1_ERRORS) },
  });
  return { upload, list, remove };
}

/** The `file` fields of a multipart body: 415 for another type, 400 for a broken form, a field that is not a file, or none. */
async function formFiles(request: Request): Promise<File[]> {
  if (!/^multipart\/form-data\b/i.test(request.headers.get('content-type') ?? ''))
    throw new ApiError(415, 'unsupported_media_type', 'Send files as multipart/form-data, one `file` field each');
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    throw badRequest('The body is not a well-formed multipart/form-data form', 'invalid_body');
  }
  const fields = form.getAll('file');
  if (!fields.length) throw badRequest('No `file` field: send each file as a `file` field', 'invalid_body');
  return fields.map((field) => {
    if (typeof field === 'string') throw badRequest('A `file` field holds text, not a file', 'invalid_body');
    return field;
  });
}

const asApi =
  (conversation: string) =>
  (upload: StoredUpload): UploadedFile => ({
    uri: uploadUri(conversation, upload.name),
    name: upload.name,
    title: upload.title,
    mimeType: upload.mimeType,
    size: upload.size,
    uploadedAt: new Date(upload.uploadedAt).toISOString(),
  });

/**
 * `/v1/conversations/{id}/files`: the user's own files (docs/USAGE.md,
 * "Documents and uploads"). Owned like every conversation route; the bytes
 * go to R2 only (uploads/store.ts), and the conversation is told, so its
 * `uploads` server lists them before its next turn.
 *
 * Built by createApp (on the first request, as the app is), not at module load: the schemas, declarations and
 * validators of these routes would otherwise be start-up CPU of every isolate, and issue 44 holds what the
 * documents and uploads work adds to the Worker's start-up to 5 % (BENCHMARKS.md, the bundle section).
 */
export function fileRoutes() {
  const { upload, list, remove } = declarations();
  return routes()
    .openapi(upload, async (c) => {
      const { id } = c.req.valid('param');
      const stub = await ownedStub(c); // 404 before the body is read
      const { tenant, user } = c.get('principal');
      const sent = await formFiles(c.req.raw);
      const { stored } = await storeUploads(
        { env: c.env, config: loadConfig(c.env), tenant, user, conversation: id },
        sent.map((file) => ({ title: file.name, type: file.type, body: file })),
        {
          reserve: async (wanted, limit) => unwrap(await stub.reserveUploads(wanted, limit)),
          settle: async (names, outcome) => unwrap(await stub.settleUploads(names, outcome)),
        },
      );
      return c.json({ files: stored.map(asApi(id)) }, 201);
    })
    .openapi(list, async (c) => {
      const { id } = c.req.valid('param');
      await ownedStub(c);
      const store = new UploadStore(c.env.UPLOADS, { tenant: c.get('principal').tenant, conversation: id });
      return c.json({ files: (await store.list()).map(asApi(id)) }, 200);
    })
    .openapi(remove, async (c) => {
      const { id, name } = c.req.valid('param');
      const stub = await ownedStub(c);
      const store = new UploadStore(c.env.UPLOADS, { tenant: c.get('principal').tenant, conversation: id });
      if (!isSafeFileName(name) || !(await store.has(name))) throw notFound(`File "${name}"`);
      await store.delete([name]);
      unwrap(await stub.uploadsChanged([name]));
      return c.body(null, 204);
    });
}
