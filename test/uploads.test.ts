import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { ACME_ALICE, api, catalog, conversationStub, createConversation, postJson } from './helpers/api';
import { turnIn, withModel } from './helpers/conversation';
import { callTools, say, scriptedModel, toolResults, userMessage } from './helpers/turns';
import { makePdf } from './infra/pdf-fixtures';
import { unwrap } from '../src/rpc';
import { storeUploads, type UploadingConversation } from '../src/uploads/intake';

/*
 * The user's own files (docs/USAGE.md, "Documents and uploads"): uploaded through the API as a browser's FormData
 * sends them, kept in (local) R2, served to their conversation only by the built-in MCP server `uploads`.
 */

const BOB = { authorization: 'Bearer test-key-acme', 'x-end-user': 'bob' };
const GLOBEX = { authorization: 'Bearer test-key-globex', 'x-end-user': 'alice' };
/** A tenant of its own (test/infra/tenants.ts): 4 KiB a file, 3 files a conversation, 20,000 bytes a day. */
const UPLOADERS = { authorization: 'Bearer test-key-uploaders', 'x-end-user': 'uma' };

const NOTES = 'Meeting notes, 12 March.\nThe overdue tasks are the invoice export and the SSO rollout.\n';
/** A 1×1 PNG. */
const PNG = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='),
  (c) => c.charCodeAt(0),
);

type Uploaded = { uri: string; name: string; title: string; mimeType: string; size: number };

function form(...files: File[]): FormData {
  const body = new FormData();
  for (const file of files) body.append('file', file);
  return body;
}

const upload = (id: string, body: FormData, as: Record<string, string> = ACME_ALICE) =>
  api(`/v1/conversations/${id}/files`, { method: 'POST', body }, as);

async function uploaded(id: string, body: FormData, as: Record<string, string> = ACME_ALICE): Promise<Uploaded[]> {
  const response = await upload(id, body, as);
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json<{ files: Uploaded[] }>()).files;
}

const listed = async (id: string, as: Record<string, string> = ACME_ALICE) =>
  (await (await api(`/v1/conversations/${id}/files`, {}, as)).json<{ files: Uploaded[] }>()).files;

/** What R2 holds under a conversation's prefix. */
const inR2 = async (tenant: string, id: string) =>
  (await env.UPLOADS.list({ prefix: `${tenant}/${id}/` })).objects.map((o) => o.key.slice(`${tenant}/${id}/`.length));

/** One turn whose scripted model calls read_resource with `input`, then stops; the tool's result as the model got it. */
async function modelReads(id: string, input: object, acceptsImages = false) {
  let seen: LanguageModelV4Prompt = [];
  const model = scriptedModel((call, step) => {
    if (step === 0) return callTools(['read_resource', input]);
    seen = call.prompt;
    return say('done');
  });
  const stub = await conversationStub(id);
  await runInDurableObject(stub, async (instance) => {
    const live = await turnIn(instance, [userMessage('read my file')], { model, acceptsImages, spec: 'mock' });
    const reader = live.reader().getReader();
    while (!(await reader.read()).done);
  });
  return { result: toolResults(seen).at(-1)!, seen };
}

describe('uploading files', () => {
  it('stores each file in R2 and lists it in …/files and in the catalog under "uploads"', async () => {
    const id = await createConversation();
    const files = await uploaded(
      id,
      form(new File([NOTES], 'Meeting notes.txt', { type: 'text/plain' }), new File([PNG], 'logo.png')),
    );
    expect(files).toEqual([
      {
        uri: `upload://${id}/Meeting_notes.txt`,
        name: 'Meeting_notes.txt',
        title: 'Meeting notes.txt',
        mimeType: 'text/plain',
        size: NOTES.length,
        uploadedAt: expect.any(String),
      },
      expect.objectContaining({ uri: `upload://${id}/logo.png`, mimeType: 'image/png', size: PNG.length }),
    ]);
    expect((await listed(id)).map((f) => f.name)).toEqual(['Meeting_notes.txt', 'logo.png']);
    expect((await inR2('acme', id)).sort()).toEqual(['Meeting_notes.txt', 'logo.png']);

    const servers = await catalog(id);
    expect(servers.uploads?.resources).toEqual([
      expect.objectContaining({
        uri: `upload://${id}/Meeting_notes.txt`,
        title: 'Meeting notes.txt',
        mimeType: 'text/plain',
        size: NOTES.length,
      }),
      expect.objectContaining({ uri: `upload://${id}/logo.png`, mimeType: 'image/png', size: PNG.length }),
    ]);
  });

  it('a second upload of the same name gets a suffix; the first keeps its URI and content', async () => {
    const id = await createConversation();
    await uploaded(id, form(new File(['first'], 'a.txt', { type: 'text/plain' })));
    const [second] = await uploaded(id, form(new File(['second'], 'a.txt', { type: 'text/plain' })));
    expect(second!.name).toBe('a-2.txt');
    expect((await env.UPLOADS.get(`acme/${id}/a.txt`))?.size).toBe(5);
  });

  it('a conversation without uploads has no "uploads" server', async () => {
    const id = await createConversation();
    expect(Object.keys(await catalog(id))).not.toContain('uploads');
    expect(await listed(id)).toEqual([]);
  });

  it('refuses what is not a multipart form of files', async () => {
    const id = await createConversation();
    const json = await postJson(`/v1/conversations/${id}/files`, { file: 'x' });
    expect(json.status).toBe(415);
    const text = new FormData();
    text.append('file', 'just text');
    const notAFile = await upload(id, text);
    expect(notAFile.status).toBe(400);
    expect((await notAFile.json<{ error: { code: string } }>()).error.code).toBe('invalid_body');
    expect(await inR2('acme', id)).toEqual([]);
  });
});

describe('the model reads an upload on demand', () => {
  it('a text file as its text', async () => {
    const id = await createConversation();
    const [notes] = await uploaded(id, form(new File([NOTES], 'notes.md', { type: 'text/markdown' })));
    const { result } = await modelReads(id, { uri: notes!.uri });
    expect(result.error).toBe(false);
    expect(result.text).toContain('The overdue tasks are the invoice export and the SSO rollout.');
  });

  it('a PDF as its text, page by page, like a document any server serves', async () => {
    const id = await createConversation();
    const pdf = makePdf({
      title: 'Offsite plan',
      pages: [
        ['# Day one', 'Arrive by noon.'],
        ['# Day two', 'The offsite budget is 4,200 euros.'],
      ],
    });
    const [plan] = await uploaded(id, form(new File([pdf], 'Offsite plan.pdf', { type: 'application/pdf' })));
    const { result } = await modelReads(id, { uri: plan!.uri });
    expect(result.error).toBe(false);
    expect(result.text).toMatch(/^\[Document: application\/pdf, [\d.]+ KB, "Offsite plan", 2 pages, uri upload:/);
    expect(result.text).toContain('pages="pages 1-2 of 2"');
    expect(result.text).toContain('The offsite budget is 4,200 euros.');
    expect(result.text).not.toContain('%PDF');
  });

  it("a scanned upload's page, read by number, reaches a vision model as the page's picture", async () => {
    const id = await createConversation();
    const scan = makePdf({ title: 'Signed form', pages: [['# Cover', 'Typed cover page.'], { image: true }] });
    const [form2] = await uploaded(id, form(new File([scan], 'signed form.pdf', { type: 'application/pdf' })));
    const { result, seen } = await modelReads(id, { uri: form2!.uri, page: 2 }, true);
    expect(result.text).toMatch(/is scanned \(no text layer\): its image is attached, PNG 160×200 px/);
    const image = seen
      .flatMap((m) => (m.role === 'tool' ? m.content : []))
      .flatMap((part) => (part.type === 'tool-result' && part.output.type === 'content' ? part.output.value : []))
      .find((value) => value.type === 'file');
    expect(image).toMatchObject({ type: 'file', mediaType: 'image/png' });
  });

  it('a PNG as an image part to a vision model, described to others: never decoded as text', async () => {
    const id = await createConversation();
    const [logo] = await uploaded(id, form(new File([PNG], 'logo.png', { type: 'image/png' })));
    const vision = await modelReads(id, { uri: logo!.uri }, true);
    expect(vision.result.text).toMatch(/\[file /);
    expect(vision.result.text).not.toContain('IHDR');
    const blind = await modelReads(id, { uri: logo!.uri }, false);
    expect(blind.result.text).toMatch(/^\[Binary resource: image\/png, 70 B/);
    expect(blind.result.text).not.toContain('IHDR');
  });

  it('a file claiming to be text that is not is kept and described as a binary', async () => {
    const id = await createConversation();
    const [fake] = await uploaded(id, form(new File([PNG], 'innocent.txt', { type: 'text/plain' })));
    expect(fake!.mimeType).toBe('application/octet-stream');
    const { result } = await modelReads(id, { uri: fake!.uri });
    expect(result.text).toMatch(/^\[Binary resource: application\/octet-stream/);
  });

  it('an attached upload is named in the message, by reference: the model reads it when it needs it', async () => {
    const id = await createConversation();
    const [notes] = await uploaded(id, form(new File([NOTES], 'notes.txt', { type: 'text/plain' })));
    const model = scriptedModel(() => say('ok'));
    const resolved = { model, acceptsImages: false, spec: 'mock' as const };
    await runInDurableObject(await conversationStub(id), async (instance) => {
      const { newMessages } = await withModel(instance, resolved, {}, () =>
        instance.parts.requests.input(
          {
            kind: 'message',
            message: userMessage('what is overdue?'),
            attachments: [{ server: 'uploads', uri: notes!.uri }],
          },
          false,
        ),
      );
      const reader = (await turnIn(instance, newMessages, resolved)).reader().getReader();
      while (!(await reader.read()).done);
    });
    const prompt = model.doStreamCalls[0]!.prompt;
    const user = JSON.stringify(prompt.filter((m) => m.role === 'user').at(-1));
    expect(user).toContain(
      `[The user attached the file \\"notes.txt\\" (text/plain, ${NOTES.length} B): ${notes!.uri}`,
    );
    expect(user).not.toContain('invoice export');
  });
});

describe('isolation', () => {
  it('another user of the tenant, and another tenant, see nothing of it', async () => {
    const id = await createConversation();
    const [notes] = await uploaded(id, form(new File([NOTES], 'notes.txt', { type: 'text/plain' })));
    for (const who of [BOB, GLOBEX]) {
      expect((await api(`/v1/conversations/${id}/files`, {}, who)).status).toBe(404);
      expect((await api(`/v1/conversations/${id}/files/notes.txt`, { method: 'DELETE' }, who)).status).toBe(404);
      const post = await upload(id, form(new File(['x'], 'x.txt')), who);
      expect(post.status).toBe(404);
      const theirs = await createConversation(who);
      const { servers } = await (await api(`/v1/conversations/${theirs}/catalog`, {}, who)).json<{
        servers: Array<{ id: string }>;
      }>();
      expect(servers.map((s) => s.id)).not.toContain('uploads');
      const read = await postJson(`/v1/conversations/${theirs}/resources/read`, { uri: notes!.uri }, who);
      expect(read.status).toBe(404);
    }
    expect(await inR2('acme', id)).toEqual(['notes.txt']);
  });

  it("a conversation's uploads server cannot read another conversation's file, even the same user's", async () => {
    const first = await createConversation();
    const [notes] = await uploaded(first, form(new File([NOTES], 'notes.txt', { type: 'text/plain' })));
    const second = await createConversation();
    await uploaded(second, form(new File(['mine'], 'notes.txt', { type: 'text/plain' })));
    const direct = await postJson(`/v1/conversations/${second}/resources/read`, { server: 'uploads', uri: notes!.uri });
    expect(direct.status).toBe(404);
    const { result } = await modelReads(second, { uri: notes!.uri, server: 'uploads' });
    expect(result.error).toBe(true);
    expect(result.text).not.toContain('overdue');
  });
});

describe('deleting', () => {
  it('one file: gone from R2, the list and the catalog', async () => {
    const id = await createConversation();
    await uploaded(id, form(new File(['a'], 'a.txt'), new File(['b'], 'b.txt')));
    expect(Object.keys(await catalog(id))).toContain('uploads');
    const gone = await api(`/v1/conversations/${id}/files/a.txt`, { method: 'DELETE' });
    expect(gone.status).toBe(204);
    expect((await listed(id)).map((f) => f.name)).toEqual(['b.txt']);
    expect(await inR2('acme', id)).toEqual(['b.txt']);
    expect((await catalog(id)).uploads?.resources.map((r) => r.name)).toEqual(['b.txt']);
    expect((await api(`/v1/conversations/${id}/files/a.txt`, { method: 'DELETE' })).status).toBe(404);
  });

  it('the conversation: its files go with it', async () => {
    const id = await createConversation();
    await uploaded(id, form(new File([NOTES], 'notes.txt'), new File([PNG], 'logo.png')));
    expect(await inR2('acme', id)).toHaveLength(2);
    expect((await api(`/v1/conversations/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect(await inR2('acme', id)).toEqual([]);
  });
});

describe('limits (a tenant of its own: 4 KiB a file, 3 files a conversation, 20,000 bytes a day)', () => {
  const errorOf = async (response: Response) =>
    (await response.json<{ error: { code: string; message: string; limit: { name: string } } }>()).error;

  it('a file over UPLOAD_MAX_BYTES: 413, and nothing of the request is stored', async () => {
    const id = await createConversation(UPLOADERS);
    const response = await upload(
      id,
      form(new File(['small'], 'small.txt'), new File([new Uint8Array(5_000)], 'big.bin')),
      UPLOADERS,
    );
    expect(response.status).toBe(413);
    const error = await errorOf(response);
    expect(error.code).toBe('file_too_large');
    expect(error.message).toContain('UPLOAD_MAX_BYTES');
    expect(error.limit.name).toBe('UPLOAD_MAX_BYTES');
    expect(await inR2('uploaders', id)).toEqual([]);
    expect(await listed(id, UPLOADERS)).toEqual([]);
  });

  it('more files than UPLOADS_PER_CONVERSATION: 429, and nothing of the request is stored', async () => {
    const id = await createConversation(UPLOADERS);
    await uploaded(id, form(new File(['1'], 'one.txt'), new File(['2'], 'two.txt')), UPLOADERS);
    const response = await upload(id, form(new File(['3'], 'three.txt'), new File(['4'], 'four.txt')), UPLOADERS);
    expect(response.status).toBe(429);
    const error = await errorOf(response);
    expect(error.code).toBe('upload_quota');
    expect(error.message).toContain('UPLOADS_PER_CONVERSATION');
    expect((await inR2('uploaders', id)).sort()).toEqual(['one.txt', 'two.txt']);
  });

  it("the tenant's bytes per day, across its conversations: 429, nothing stored, and the refused bytes not counted", async () => {
    const chunk = () => new Uint8Array(4_000);
    const first = await createConversation(UPLOADERS);
    await uploaded(
      first,
      form(new File([chunk()], 'a.bin'), new File([chunk()], 'b.bin'), new File([chunk()], 'c.bin')),
      UPLOADERS,
    );
    const second = await createConversation(UPLOADERS);
    const refused = await upload(
      second,
      form(new File([chunk()], 'd.bin'), new File([chunk()], 'e.bin'), new File([chunk()], 'f.bin')),
      UPLOADERS,
    );
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    const error = await errorOf(refused);
    expect(error.code).toBe('upload_quota');
    expect(error.message).toContain('UPLOAD_BYTES_PER_TENANT_PER_DAY');
    expect(await inR2('uploaders', second)).toEqual([]);
    // What was refused did not count, its bytes nor its three files: one more file still fits.
    await uploaded(second, form(new File([chunk()], 'd.bin')), UPLOADERS);
  });
});

describe('limits under concurrency: a check and its reservation are one step, so requests at once cannot pass a limit together', () => {
  type Refusal = { error: { code: string; message: string; limit: { name: string; value: number } } };

  it('six uploads at once to a conversation of three files: three stored, three refused 429, nothing half-stored', async () => {
    const id = await createConversation(UPLOADERS);
    const [tooLarge, ...responses] = await Promise.all([
      // Among them, one over UPLOAD_MAX_BYTES: refused before it holds anything.
      upload(id, form(new File([new Uint8Array(5_000)], 'big.bin')), UPLOADERS),
      ...Array.from({ length: 6 }, (_, i) => upload(id, form(new File([`${i}`], `f${i}.txt`)), UPLOADERS)),
    ]);
    expect(tooLarge!.status).toBe(413);
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 429, 429, 429]);
    const stored: string[] = [];
    for (const response of responses) {
      if (response.status === 201) {
        stored.push(...(await response.json<{ files: Uploaded[] }>()).files.map((f) => f.name));
        continue;
      }
      const { error } = await response.json<Refusal>();
      expect(error.code).toBe('upload_quota');
      expect(error.message).toContain('UPLOADS_PER_CONVERSATION');
      expect(error.limit).toEqual({ name: 'UPLOADS_PER_CONVERSATION', value: 3 });
    }
    // The list, R2 and the catalog agree: exactly what was answered 201.
    expect((await listed(id, UPLOADERS)).map((f) => f.name).sort()).toEqual(stored.sort());
    expect((await inR2('uploaders', id)).sort()).toEqual(stored);
    const { servers } = await (await api(`/v1/conversations/${id}/catalog`, {}, UPLOADERS)).json<{
      servers: Array<{ id: string; resources: Array<{ name: string }> }>;
    }>();
    expect(
      servers
        .find((s) => s.id === 'uploads')
        ?.resources.map((r) => r.name)
        .sort(),
    ).toEqual(stored);
    // The refused took no slot: after one deletion, one more fits — and only one.
    expect((await api(`/v1/conversations/${id}/files/${stored[0]}`, { method: 'DELETE' }, UPLOADERS)).status).toBe(204);
    await uploaded(id, form(new File(['late'], 'late.txt')), UPLOADERS);
    expect((await upload(id, form(new File(['x'], 'x.txt')), UPLOADERS)).status).toBe(429);
  });

  it('the same name uploaded at once: each its own name and its own bytes, none overwritten', async () => {
    const id = await createConversation();
    const responses = await Promise.all(
      ['first', 'second', 'third', 'fourth'].map((content) =>
        upload(id, form(new File([content], 'same.txt', { type: 'text/plain' }))),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    const files = await Promise.all(responses.map(async (r) => (await r.json<{ files: Uploaded[] }>()).files[0]!));
    expect(files.map((f) => f.name).sort()).toEqual(['same-2.txt', 'same-3.txt', 'same-4.txt', 'same.txt']);
    for (const [i, content] of ['first', 'second', 'third', 'fourth'].entries())
      expect(await (await env.UPLOADS.get(`acme/${id}/${files[i]!.name}`))?.text()).toBe(content);
    expect((await listed(id)).map((f) => f.name).sort()).toEqual(files.map((f) => f.name).sort());
  });

  it('a write that fails gives everything back: no object, no listing, no slot held', async () => {
    const id = await createConversation(UPLOADERS);
    // R2 refuses one file of three: the other two were written, and must go.
    const failing = new Proxy(env.UPLOADS, {
      get: (bucket, key) =>
        key === 'put'
          ? (name: string, value: Blob, options?: R2PutOptions) =>
              name.endsWith('/bad.txt') ? Promise.reject(new Error('R2 is down')) : bucket.put(name, value, options)
          : Reflect.get(bucket, key).bind(bucket),
    });
    await runInDurableObject(await conversationStub(id), async (instance) => {
      const uploads = instance.parts.uploads;
      const here: UploadingConversation = {
        reserve: async (wanted, limit) => unwrap(await uploads.reserve(wanted, limit)),
        settle: async (names, outcome) => unwrap(await uploads.settle(names, outcome)),
      };
      const scope = { config: instance.parts.terms.config(), tenant: 'uploaders', user: 'uma', conversation: id };
      const files = ['good.txt', 'bad.txt', 'fine.txt'].map((title) => ({
        title,
        type: 'text/plain',
        body: new Blob([title]),
      }));
      await expect(storeUploads({ ...scope, env: { ...env, UPLOADS: failing } }, files, here)).rejects.toThrow(
        'R2 is down',
      );
      // The three slots were given back: three files still fit, under their own names.
      expect(await here.reserve(['good.txt', 'bad.txt', 'fine.txt'], 3)).toEqual({
        names: ['good.txt', 'bad.txt', 'fine.txt'],
      });
      await here.settle(['good.txt', 'bad.txt', 'fine.txt'], 'discarded');
    });
    expect(await inR2('uploaders', id)).toEqual([]);
    expect(await listed(id, UPLOADERS)).toEqual([]);
    expect(
      (await upload(id, form(new File(['1'], 'a'), new File(['2'], 'b'), new File(['3'], 'c')), UPLOADERS)).status,
    ).toBe(201);
  });

  it("the tenant's bytes per day: reservations at once at its ledger never pass the limit together", async () => {
    // A ledger of its own (no tenant's config names it): the limit is the argument.
    const ledger = env.USAGE_LEDGER.getByName('concurrent-uploads-ledger');
    const verdicts = await Promise.all(Array.from({ length: 10 }, () => ledger.reserveUpload(3_000, 20_000)));
    expect(verdicts.filter((v) => 'day' in v)).toHaveLength(6);
    expect(verdicts.filter((v) => 'refused' in v)).toHaveLength(4);
  });
});
