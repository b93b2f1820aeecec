import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
import { createApp } from '../src/http/app';
import { api, createConversation, postJson } from './helpers/api';

type Operation = {
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
  requestBody?: unknown;
  security?: unknown[];
};
type Document = {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};

const documentOf = async (): Promise<Document> => {
  const response = await exports.default.fetch('http://localhost/v1/openapi.json');
  expect(response.status).toBe(200);
  return response.json();
};

/** Every route the app serves, as "METHOD /path/{param}" (middleware and the not-found handler are not routes). */
function servedRoutes(): string[] {
  const served = createApp().routes.filter((r) => !r.path.includes('*') && r.method !== 'ALL');
  return [...new Set(served.map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`))].sort();
}

describe('GET /v1/openapi.json', () => {
  it('is an OpenAPI 3.1 document, public (no credential), readable from any origin', async () => {
    const response = await exports.default.fetch('http://localhost/v1/openapi.json', {
      headers: { Origin: 'https://docs.example' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const document = (await response.json()) as Document;
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe(pkg.version);
  });

  it('describes every route the Worker serves, and nothing it does not', async () => {
    const document = await documentOf();
    const described = Object.entries(document.paths)
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    // The document itself is the one route it does not list.
    expect(described).toEqual(servedRoutes().filter((r) => r !== 'GET /v1/openapi.json'));
    expect(described.length).toBeGreaterThan(25);
  });

  it('gives every /v1 operation the error shape, and every JSON body a schema from the components', async () => {
    const document = await documentOf();
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const where = `${method.toUpperCase()} ${path}`;
        const guarded = path.startsWith('/v1/') || path.startsWith('/admin/api/');
        if (guarded)
          expect(operation.responses['401']?.content?.['application/json']?.schema, where).toEqual({
            $ref: '#/components/schemas/Error',
          });
        if (path.startsWith('/v1/'))
          expect(operation.security, where).toBeUndefined(); // the document's default: bearer
        else if (guarded)
          expect(operation.security, where).toEqual([{ operator: [] }]); // the operator key, not a tenant's
        else expect(operation.security, where).toEqual([]);
      }
    }
    const send = document.paths['/v1/conversations/{id}/messages']!.post!;
    expect(send.requestBody).toMatchObject({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/SendMessageBody' } } },
    });
    expect(Object.keys(send.responses['200']!.content!)).toEqual(['text/event-stream']);
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining(['Conversation', 'Catalog', 'ServerState', 'ResourceView', 'Message', 'Error']),
    );
  });

  it('describes what the API answers: a conversation, its catalog and a read match their schemas’ required fields', async () => {
    const document = await documentOf();
    const required = (name: string) => (document.components.schemas[name] as { required: string[] }).required;
    const id = await createConversation();
    const conversation = (await (await api(`/v1/conversations/${id}`)).json()) as Record<string, unknown>;
    expect(Object.keys(conversation)).toEqual(expect.arrayContaining(required('Conversation')));
    const catalog = (await (await api(`/v1/conversations/${id}/catalog`)).json()) as {
      servers: Record<string, unknown>[];
    };
    for (const server of catalog.servers)
      expect(Object.keys(server)).toEqual(expect.arrayContaining(required('ServerState')));
    const view = (await (
      await postJson(`/v1/conversations/${id}/resources/read`, { server: 'demo', uri: 'task://guidelines' })
    ).json()) as Record<string, unknown>;
    expect(Object.keys(view)).toEqual(expect.arrayContaining(required('ResourceView')));
  });
});

describe('validation from the schemas', () => {
  it('refuses a body the schema refuses, naming the field, in the API error shape', async () => {
    const id = await createConversation();
    const response = await postJson(`/v1/conversations/${id}/approvals`, { toolCallId: 'x', approved: 'yes' });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('invalid_body');
    expect(error.message).toContain('approved');
  });

  it('refuses a query the schema refuses', async () => {
    const response = await api('/v1/conversations?limit=1000');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid_query');
  });

  it('refuses a non-JSON body with 415 and malformed JSON with 400 before the schema runs', async () => {
    const id = await createConversation();
    const plain = await api(`/v1/conversations/${id}/messages`, {
      method: 'POST',
      body: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    expect(plain.status).toBe(415);
    const broken = await api(`/v1/conversations/${id}/messages`, {
      method: 'POST',
      body: '{"text":',
      headers: { 'content-type': 'application/json' },
    });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: { code: string } }).error.code).toBe('invalid_json');
  });
});
