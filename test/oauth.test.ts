import { runInDurableObject } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { beforeEach, describe, expect, it } from 'vitest';
import { KeyRing } from '../src/auth/keyring';
import { guardedFetch } from '../src/auth/guarded-fetch';
import { vaultName } from '../src/auth/vault';
import { loadConfig } from '../src/config';
import type { ServerState } from '../src/mcp/catalog/catalog';
import { conversationStub } from './helpers/api';
import {
  asUrl,
  browser,
  completeConnect,
  connect,
  connectAndComplete,
  connectWithLink,
  control,
  handoverOf,
  oauthUser,
  openLink,
  rsUrl,
  startConnect,
} from './helpers/oauth';
import { callTools, runScriptedTurn, say, scriptedModel, toolResults } from './helpers/turns';
import { settleIn } from './helpers/conversation';

const api = (path: string, user: string, init: RequestInit = {}) =>
  exports.default.fetch(`http://localhost${path}`, {
    ...init,
    headers: { ...oauthUser(user), ...Object.fromEntries(new Headers(init.headers)) },
  });

async function newConversation(user: string): Promise<string> {
  const response = await api('/v1/conversations', user, { method: 'POST' });
  expect(response.status).toBe(201);
  return (await response.json<{ id: string }>()).id;
}

async function catalogOf(id: string, user: string): Promise<Record<string, ServerState & { connectUrl?: string }>> {
  const response = await api(`/v1/conversations/${id}/catalog`, user);
  expect(response.status).toBe(200);
  const { servers } = await response.json<{ servers: (ServerState & { connectUrl?: string })[] }>();
  return Object.fromEntries(servers.map((s) => [s.id, s]));
}

interface AsState {
  authorizeRequests: Array<Record<string, string>>;
  tokenRequests: Array<{
    grantType: string;
    clientId?: string;
    resourceSent?: boolean;
    scope?: string;
    outcome: string;
  }>;
  revocations: Array<{ kind?: string; tokenTypeHint?: string; sub?: string }>;
  mcpRequests: Array<{ sub?: string | null; method?: string | null; authorization: boolean; status: number }>;
}

const state = () => control<AsState>('state');
const tokens = () => control<{ accessTokens?: string[]; refreshTokens?: string[] } & Record<string, unknown>>('tokens');

/** Calls one of the account server's tools through a turn (the model asks for it; the result is what it was sent). */
async function callAccountTool(id: string, server: string, tool: string) {
  const model = scriptedModel((_call, index) => (index === 0 ? callTools([`${server}__${tool}`, {}]) : say('done')));
  const chunks = await runScriptedTurn(id, `use ${tool}`, model);
  const results = model.doStreamCalls[1] ? toolResults(model.doStreamCalls[1].prompt) : [];
  return { chunks, result: results.at(-1), prompts: model.doStreamCalls.map((c) => JSON.stringify(c.prompt)) };
}

beforeEach(async () => {
  await control('reset', {});
});

/**
 * A sealed value with one character changed: the second to last (every bit
 * of it is used, unlike the last base64url character's), swapped for one it
 * is not. (It once swapped in 'A' unless the *last* character was 'A', so one
 * state in 64 came back unchanged and was accepted: the "refuses a tampered
 * state" flake of issue 25.)
 */
function altered(sealed: string): string {
  const swapped = `${sealed.slice(0, -2)}${sealed.at(-2) === 'A' ? 'B' : 'A'}${sealed.slice(-1)}`;
  expect(swapped).not.toBe(sealed);
  return swapped;
}

describe('a server each end user connects to (OAuth)', () => {
  it('asks the user to connect, in the catalog, /v1/servers, /v1/connections and the stream, before anything reaches the server', async () => {
    const id = await newConversation('ursula');
    const servers = await catalogOf(id, 'ursula');
    expect(servers.account!.status).toBe('auth_required');
    expect(servers.account!.authorization).toEqual({ reason: 'not_connected' });
    expect(servers.account!.connectUrl).toMatch(/^https:\/\/mcp-ondemand\.test\/oauth\/start#/);
    // The others are unaffected.
    expect(servers.demo!.status).toBe('connected');

    const listed = await (await api('/v1/servers', 'ursula')).json<{
      servers: Array<{ id: string; status: string; auth: string; connectUrl?: string }>;
    }>();
    const account = listed.servers.find((s) => s.id === 'account')!;
    expect(account).toMatchObject({ status: 'auth_required', auth: 'oauth' });
    expect(account.connectUrl).toMatch(/\/oauth\/start#/);
    expect(listed.servers.find((s) => s.id === 'bot')).toMatchObject({
      status: 'connected',
      auth: 'client_credentials',
    });

    const connections = await (await api('/v1/connections', 'ursula')).json<{
      connections: Array<{ server: string; status: string; connectUrl?: string }>;
    }>();
    expect(connections.connections.map((c) => [c.server, c.status])).toEqual([
      ['account', 'not_connected'],
      ['prereg', 'not_connected'],
    ]);

    const model = scriptedModel(() => say('Please connect your account.'));
    const { chunks } = await callAccountTool(id, 'demo', 'list_tasks').catch(async () => ({
      chunks: await runScriptedTurn(id, 'who am I?', model),
    }));
    const card = chunks.find(
      (c) => c.type === 'data-auth-required' && (c as { data: { server: string } }).data.server === 'account',
    ) as { data: { reason: string; connectUrl: string }; transient?: boolean } | undefined;
    expect(card?.data.reason).toBe('not_connected');
    expect(card?.data.connectUrl).toMatch(/\/oauth\/start#/);
    expect(card?.transient).toBe(true);
    // Nobody asked the authorization server for a token, nor sent the MCP server a request without one that it would refuse.
    // (The tenant's own servers get theirs: client credentials, the JWT bearer grant.)
    const machine = ['client_credentials', 'urn:ietf:params:oauth:grant-type:jwt-bearer'];
    expect((await state()).tokenRequests.filter((r) => !machine.includes(r.grantType ?? ''))).toEqual([]);
  });

  it('connects through the link (PKCE, state, resource, our client metadata document) and uses the tools and resources with the user’s own token', async () => {
    const id = await newConversation('alice');
    expect((await catalogOf(id, 'alice')).account!.status).toBe('auth_required');

    const completed = await connect('alice', 'account', 'upstream-alice');
    expect(completed.status).toBe(200);
    expect(await completed.json()).toEqual({ server: 'account', status: 'connected' });

    const { authorizeRequests, tokenRequests } = await state();
    const authorize = authorizeRequests.at(-1)!;
    expect(authorize.client_id).toBe('https://mcp-ondemand.test/oauth/client-metadata.json');
    expect(authorize.redirect_uri).toBe('https://mcp-ondemand.test/oauth/callback');
    expect(authorize.code_challenge_method).toBe('S256');
    expect(authorize.resource).toBe(rsUrl);
    expect(authorize.state!.length).toBeGreaterThan(40);
    expect(tokenRequests.at(-1)).toMatchObject({ grantType: 'authorization_code' });

    // The conversation opened before the connect uses it now, without a reload.
    const servers = await catalogOf(id, 'alice');
    expect(servers.account!.status).toBe('connected');
    expect(servers.account!.tools.map((t) => t.name)).toContain('whoami');
    const { result } = await callAccountTool(id, 'account', 'whoami');
    expect(result?.text).toContain('You are upstream-alice');

    const read = await api(`/v1/conversations/${id}/resources/read`, 'alice', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ server: 'account', uri: 'account://profile' }),
    });
    expect(read.status).toBe(200);
    expect(JSON.stringify(await read.json())).toContain('Profile of upstream-alice');

    const connections = await (await api('/v1/connections', 'alice')).json<{
      connections: Array<{ server: string; status: string; scope?: string }>;
    }>();
    expect(connections.connections.find((c) => c.server === 'account')).toMatchObject({ status: 'connected' });
  });

  it('never shows what was cached under an earlier authorization (the user connects again, as another account)', async () => {
    const read = async (id: string) => {
      const response = await api(`/v1/conversations/${id}/resources/read`, 'mona', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ server: 'account', uri: 'account://profile' }),
      });
      expect(response.status).toBe(200);
      return JSON.stringify(await response.json());
    };
    await connect('mona', 'account', 'upstream-mona-work');
    const first = await newConversation('mona');
    expect(await read(first)).toContain('Profile of upstream-mona-work');
    await runInDurableObject(await conversationStub(first), settleIn); // its copy is in KV now
    await connect('mona', 'account', 'upstream-mona-home');
    // A new conversation (which would find the old copy in KV, were KV keys not per grant), and the open one: both see the new account's.
    expect(await read(await newConversation('mona'))).toContain('Profile of upstream-mona-home');
    expect(await read(first)).toContain('Profile of upstream-mona-home');
  });

  it('uses a pre-registered client with its secret from a Worker secret', async () => {
    const page = await connect('carol', 'prereg');
    expect(page.status).toBe(200);
    const { authorizeRequests, tokenRequests } = await state();
    expect(authorizeRequests.at(-1)!.client_id).toBe('preregistered-client');
    expect(tokenRequests.at(-1)).toMatchObject({ grantType: 'authorization_code', clientId: 'preregistered-client' });
    const id = await newConversation('carol');
    expect((await callAccountTool(id, 'prereg', 'whoami')).result?.text).toContain('You are upstream-carol');
  });

  it('refreshes a token before it expires, with the rotated refresh token', async () => {
    // Tokens live 60 s: within the minute of margin (REFRESH_MARGIN_MS) at once.
    await control('config', { accessTokenTtlSeconds: 60 });
    await connect('dave', 'account');
    const id = await newConversation('dave');
    expect((await callAccountTool(id, 'account', 'whoami')).result?.text).toContain('You are upstream-dave');
    const refreshes = (await state()).tokenRequests.filter((r) => r.grantType === 'refresh_token');
    expect(refreshes.length).toBeGreaterThanOrEqual(1);
    // Each refresh used the newest refresh token: a reused one would have been refused (and the grant revoked).
    expect((await callAccountTool(id, 'account', 'whoami')).result?.text).toContain('You are upstream-dave');

    // Many conversations asking at once: one refresh (a rotating refresh token is used once), every one gets its token.
    const before = (await state()).tokenRequests.filter((r) => r.grantType === 'refresh_token').length;
    const vault = env.TOKEN_VAULT.getByName(vaultName({ tenant: 'oauth', user: 'dave' }));
    const grants = await Promise.all(
      Array.from({ length: 8 }, () => vault.accessToken({ tenant: 'oauth', user: 'dave' }, 'account')),
    );
    expect(grants.every((g) => g.status === 'authorized')).toBe(true);
    expect(new Set(grants.map((g) => (g.status === 'authorized' ? g.token : ''))).size).toBe(1);
    const after = (await state()).tokenRequests.filter((r) => r.grantType === 'refresh_token');
    expect(after.length - before).toBe(1);
    expect(after.every((r) => r.outcome === 'ok')).toBe(true);
  });

  it('returns the user to auth_required when the provider revokes the grant (the refresh is refused)', async () => {
    await connect('erin', 'account');
    const id = await newConversation('erin');
    expect((await callAccountTool(id, 'account', 'whoami')).result?.text).toContain('You are upstream-erin');
    await control('revoke-subject', { subject: 'upstream-erin' });
    const { result, chunks } = await callAccountTool(id, 'account', 'whoami');
    expect(result?.error).toBe(true);
    expect(result?.text).toMatch(/connect/i);
    expect(
      chunks.some(
        (c) =>
          c.type === 'data-auth-required' &&
          (c as { data: { server: string; reason: string } }).data.reason === 'expired',
      ),
    ).toBe(true);
    const servers = await catalogOf(id, 'erin');
    expect(servers.account!.status).toBe('auth_required');
    expect(servers.account!.authorization?.reason).toBe('expired');
    // Connecting again restores it in the same conversation.
    await connect('erin', 'account');
    expect((await callAccountTool(id, 'account', 'whoami')).result?.text).toContain('You are upstream-erin');
  });

  it('steps up: a tool that needs more scope leads to a connect that asks for it, then works', async () => {
    await connect('frank', 'account');
    const id = await newConversation('frank');
    const first = await callAccountTool(id, 'account', 'admin_report');
    expect(first.result?.error).toBe(true);
    expect(first.result?.text).toMatch(/more access/);
    // The Connect card comes in the same turn's stream, asking for the scope the server named.
    const card = first.chunks.find(
      (c) => c.type === 'data-auth-required' && (c as { data: { server: string } }).data.server === 'account',
    ) as { data: { reason: string; scope?: string } } | undefined;
    expect(card?.data).toMatchObject({ reason: 'insufficient_scope', scope: 'mcp:read admin' });
    const connections = await (await api('/v1/connections', 'frank')).json<{
      connections: Array<{ server: string; status: string; connectUrl?: string }>;
    }>();
    const account = connections.connections.find((c) => c.server === 'account')!;
    expect(account.status).toBe('step_up_required');
    // Other tools still work meanwhile.
    expect((await callAccountTool(id, 'account', 'whoami')).result?.text).toContain('You are upstream-frank');

    expect((await connectAndComplete(account.connectUrl!, 'frank', 'upstream-frank')).status).toBe(200);
    expect((await state()).authorizeRequests.at(-1)!.scope?.split(' ')).toContain('admin');
    expect((await callAccountTool(id, 'account', 'admin_report')).result?.text).toContain(
      'Admin report for upstream-frank',
    );
  });

  it('disconnects: revokes at the server, forgets the tokens, and open conversations stop using them', async () => {
    await connect('gina', 'account');
    const id = await newConversation('gina');
    expect((await callAccountTool(id, 'account', 'whoami')).result?.text).toContain('You are upstream-gina');
    const response = await api('/v1/connections/account', 'gina', { method: 'DELETE' });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ server: 'account', status: 'not_connected', revoked: 'revoked' });
    const { revocations } = await state();
    expect(revocations.map((r) => r.tokenTypeHint)).toEqual(['refresh_token', 'access_token']);
    expect((await catalogOf(id, 'gina')).account!.status).toBe('auth_required');
    expect((await api('/v1/connections/nope', 'gina', { method: 'DELETE' })).status).toBe(404);
  });

  it('keeps users apart: one user’s token is never used for another', async () => {
    await connect('alice2', 'account', 'upstream-alice2');
    const bobs = await newConversation('bob2');
    expect((await catalogOf(bobs, 'bob2')).account!.status).toBe('auth_required');
    const before = (await state()).mcpRequests.length;
    await callAccountTool(bobs, 'account', 'whoami');
    // Bob's conversation sent the server nothing at all (no token of his), certainly not Alice's.
    expect((await state()).mcpRequests.slice(before).filter((r) => r.sub === 'upstream-alice2')).toEqual([]);

    await connect('bob2', 'account', 'upstream-bob2');
    expect((await callAccountTool(bobs, 'account', 'whoami')).result?.text).toContain('You are upstream-bob2');
    const alices = await newConversation('alice2');
    expect((await callAccountTool(alices, 'account', 'whoami')).result?.text).toContain('You are upstream-alice2');
    // Another user cannot see or reach Alice's conversation (and so her connection) either.
    expect((await api(`/v1/conversations/${alices}/catalog`, 'bob2')).status).toBe(404);
  });

  it('refuses a tampered state, a replayed callback, another browser’s callback and a used link', async () => {
    const link = async (user: string) =>
      (await (await api('/v1/connections/account', user, { method: 'POST' })).json<{ url: string }>()).url;

    const tampered = await connectWithLink(await link('hank'), {
      tamper: ({ callbackUrl, cookie }) => {
        const url = new URL(callbackUrl);
        const s = url.searchParams.get('state')!;
        url.searchParams.set('state', altered(s));
        return { url, cookie };
      },
    });
    expect(tampered.status).toBe(400);

    const steps = await startConnect(await link('hank'));
    expect((await browser(steps.callbackUrl.href, { headers: {} })).status).toBe(400); // no cookie: another browser
    // The code that landed in the wrong browser cannot be redeemed afterwards, not even by the link's owner.
    const landed = steps.callbackUrl.searchParams;
    const late = await completeConnect('hank', {
      server: 'account',
      state: landed.get('state')!,
      code: landed.get('code')!,
      ...(landed.get('iss') ? { iss: landed.get('iss')! } : {}),
    });
    expect(late.status).toBe(400);
    expect((await late.json<{ error: { code: string } }>()).error.code).toBe('invalid_state');
    const again = await startConnect(await link('hank'));
    const handed = await handoverOf(await browser(again.callbackUrl.href, { headers: { cookie: again.cookie } }));
    expect(handed).toBeDefined();
    // The callback stores nothing; the completion is what is single use: a replayed one is refused.
    expect((await completeConnect('hank', handed!.handover)).status).toBe(200);
    const replayed = await completeConnect('hank', handed!.handover);
    expect(replayed.status).toBe(400);
    expect((await replayed.json<{ error: { code: string } }>()).error.code).toBe('invalid_state');
    // A state that was altered is refused at the completion too.
    const other = await startConnect(await link('hank'));
    const changed = (await handoverOf(await browser(other.callbackUrl.href, { headers: { cookie: other.cookie } })))!
      .handover;
    expect(
      (
        await completeConnect('hank', {
          ...changed,
          state: altered(changed.state),
        })
      ).status,
    ).toBe(400);

    const once = await link('hank');
    // The ticket rides in the fragment: no request to us carries it in its URL.
    expect(new URL(once).pathname).toBe('/oauth/start');
    expect(new URL(once).hash.length).toBeGreaterThan(40);
    expect((await openLink(once)).status).toBe(303);
    expect((await openLink(once)).status).toBe(400); // a connect link works once
    const forged = `${once.split('#')[0]}#k2.AAAA.BBBB`;
    expect((await openLink(forged)).status).toBe(400);
  });

  it('a connect link opened and approved by someone else never lands in its owner’s account', async () => {
    // Bob mints a link for himself and gets a victim to open it: the victim's browser, the victim's upstream login.
    const link = (
      await (await api('/v1/connections/account', 'bob-attacker', { method: 'POST' })).json<{ url: string }>()
    ).url;
    const page = await connectWithLink(link, { login: 'upstream-victim' });
    expect(page.status).toBe(200);
    const handed = await handoverOf(page.clone());
    // Handed only to the window that opened it, on the service's own origin or the tenant's (none here): never to '*'.
    expect(handed?.origins).toEqual(['https://mcp-ondemand.test']);
    expect(await page.text()).not.toContain("'*'");
    // Nothing was stored: bob is not connected, and no token was even asked for.
    const status = async (user: string) =>
      (
        await (await api('/v1/connections', user)).json<{ connections: Array<{ server: string; status: string }> }>()
      ).connections.find((c) => c.server === 'account')!.status;
    expect(await status('bob-attacker')).toBe('not_connected');
    expect((await state()).tokenRequests.filter((t) => t.grantType === 'authorization_code')).toEqual([]);
    // The victim's own app, signed in as the victim, receives the handover: completing it for bob's link is refused, and drops it.
    const refused = await completeConnect('victim', handed!.handover);
    expect(refused.status).toBe(403);
    expect((await refused.json<{ error: { code: string } }>()).error.code).toBe('wrong_account');
    expect(await status('bob-attacker')).toBe('not_connected');
    expect(await status('victim')).toBe('not_connected');
    // Dropped: even the link's owner cannot use it any more.
    expect((await completeConnect('bob-attacker', handed!.handover)).status).toBe(400);
    expect(await status('bob-attacker')).toBe('not_connected');
  });

  it('shows the refusal when the user does not grant access', async () => {
    await control('config', { deny: true });
    const page = await connect('iris', 'account');
    expect(page.status).toBe(400);
    const refusal = await page.text();
    expect(refusal).toContain('Access was not granted');
    // Told to the window that opened it on the handover's origins only (this service's; the tenant allows none), never '*'.
    expect(refusal).not.toContain("'*'");
    expect(/const origins = (\[.*?\]);/.exec(refusal)?.[1]).toBe(JSON.stringify(['https://mcp-ondemand.test']));
    const connections = await (await api('/v1/connections', 'iris')).json<{
      connections: Array<{ server: string; status: string }>;
    }>();
    expect(connections.connections.find((c) => c.server === 'account')!.status).toBe('not_connected');

    // The reason is the authorization server's text: shown and passed to the widget, never run as script.
    const link = (await (await api('/v1/connections/account', 'iris', { method: 'POST' })).json<{ url: string }>()).url;
    const hostile = await connectWithLink(link, {
      tamper: ({ callbackUrl, cookie }) => {
        const url = new URL(callbackUrl);
        url.searchParams.set('error', 'server_error');
        url.searchParams.set('error_description', '</script><script>alert(1)</script>');
        return { url, cookie };
      },
    });
    const html = await hostile.text();
    expect(hostile.status).toBe(400);
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toContain('\\u003c/script>\\u003cscript>alert(1)');
    expect(hostile.headers.get('content-security-policy')).toMatch(/script-src 'nonce-/);
  });

  it('keeps tokens out of storage (but sealed), logs, API answers and the model’s input', async () => {
    // Every log line of this isolate (the Worker, its Durable Objects and the SDK's warnings) while tokens are issued, used and refreshed.
    const logged: string[] = [];
    const restore = (['log', 'info', 'warn', 'error', 'debug'] as const).map((level) => {
      const original = console[level];
      console[level] = (...args: unknown[]) => {
        logged.push(
          args
            .map((a) =>
              a instanceof Error ? `${a.message} ${a.stack}` : typeof a === 'string' ? a : JSON.stringify(a),
            )
            .join(' '),
        );
        original.apply(console, args);
      };
      return () => (console[level] = original);
    });
    await control('config', { accessTokenTtlSeconds: 60 });
    await connect('judy', 'account');
    const id = await newConversation('judy');
    const { prompts } = await callAccountTool(id, 'account', 'whoami');
    await control('revoke-subject', { subject: 'upstream-judy' });
    await callAccountTool(id, 'account', 'whoami');
    for (const undo of restore) undo();
    const issued = await tokens();
    const secrets = [...(issued.accessTokens ?? []), ...(issued.refreshTokens ?? [])];
    expect(secrets.length).toBeGreaterThan(0);

    const vault = env.TOKEN_VAULT.getByName(vaultName({ tenant: 'oauth', user: 'judy' }));
    const vaultDump = await runInDurableObject(vault, (_instance, state) =>
      JSON.stringify(state.storage.sql.exec('SELECT * FROM credentials').toArray()),
    );
    expect(vaultDump).toContain('account');
    const conversationDump = await runInDurableObject(await conversationStub(id), (_instance, state) => {
      const tables = state.storage.sql
        .exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%'`)
        .toArray();
      return JSON.stringify(tables.map((t) => [t.name, state.storage.sql.exec(`SELECT * FROM "${t.name}"`).toArray()]));
    });
    const kvKeys = await env.RESOURCE_CACHE.list();
    const kvValues = JSON.stringify(await Promise.all(kvKeys.keys.map((k) => env.RESOURCE_CACHE.get(k.name))));
    const answers = [
      await (await api('/v1/connections', 'judy')).text(),
      await (await api('/v1/servers', 'judy')).text(),
      await (await api(`/v1/conversations/${id}`, 'judy')).text(),
    ];
    for (const secret of secrets) {
      expect(vaultDump).not.toContain(secret);
      expect(conversationDump).not.toContain(secret);
      expect(kvValues).not.toContain(secret);
      for (const answer of answers) expect(answer).not.toContain(secret);
      for (const prompt of prompts) expect(prompt).not.toContain(secret);
      for (const line of logged) expect(line).not.toContain(secret);
    }
  });
});

/** Every credential row of a tenant's vault, as stored (sealed). */
const tenantVaultDump = (tenant: string) =>
  runInDurableObject(env.TOKEN_VAULT.getByName(vaultName({ tenant })), (_instance, state) =>
    JSON.stringify(state.storage.sql.exec('SELECT * FROM credentials').toArray()),
  );

describe('a server the tenant connects to (client credentials)', () => {
  it('gets one token for the tenant, used for every user, without anyone connecting', async () => {
    const a = await newConversation('kim');
    const b = await newConversation('lee');
    expect((await callAccountTool(a, 'bot', 'whoami')).result?.text).toContain('You are tenant-bot');
    expect((await callAccountTool(b, 'bot', 'whoami')).result?.text).toContain('You are tenant-bot');
    // One token request for this server's client (the tenant's other servers get their own).
    const grants = (await state()).tokenRequests.filter(
      (r) => r.grantType === 'client_credentials' && r.clientId === 'tenant-bot',
    );
    expect(grants.length).toBe(1);
    expect(grants[0]).toMatchObject({ clientId: 'tenant-bot', clientAuth: 'client_secret_basic' });
  });

  it('workload identity federation: the platform’s token goes as the JWT bearer grant; no credential of ours', async () => {
    const id = await newConversation('kim');
    expect((await callAccountTool(id, 'bot-workload', 'whoami')).result?.text).toContain('You are tenant-workload');
    const grants = (await state()).tokenRequests.filter((r) => r.clientId === 'tenant-workload');
    expect(grants).toEqual([
      expect.objectContaining({
        grantType: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        clientAuth: 'none',
        outcome: 'ok',
      }),
    ]);
    // The workload token is a Worker secret: not in the tenant's vault row or the conversation.
    const signature = (env as unknown as { TENANT_WORKLOAD_TOKEN: string }).TENANT_WORKLOAD_TOKEN.split('.')[2]!;
    const vaultDump = await tenantVaultDump('oauth');
    expect(vaultDump).toContain('bot-workload');
    expect(vaultDump).not.toContain(signature);
    expect(await (await api(`/v1/conversations/${id}`, 'kim')).text()).not.toContain(signature);
  });

  it('private_key_jwt: the token request carries an assertion signed with the tenant’s key, no secret; the key is kept nowhere', async () => {
    const id = await newConversation('kim');
    expect((await callAccountTool(id, 'bot-jwt', 'whoami')).result?.text).toContain('You are tenant-bot-jwt');
    const grants = (await state()).tokenRequests.filter((r) => r.clientId === 'tenant-bot-jwt');
    expect(grants).toEqual([
      expect.objectContaining({ grantType: 'client_credentials', clientAuth: 'private_key_jwt' }),
    ]);
    expect(grants[0]!.outcome).toBe('ok');
    // The key is a Worker secret: not in the tenant's vault row, the conversation, or the answer.
    const key = (env as unknown as { TENANT_BOT_KEY: string }).TENANT_BOT_KEY;
    const body = key.split('\n')[1]!; // a line of the PEM's base64
    const vaultDump = await tenantVaultDump('oauth');
    expect(vaultDump).toContain('bot-jwt');
    expect(vaultDump).not.toContain(body);
    expect(await (await api(`/v1/conversations/${id}`, 'kim')).text()).not.toContain(body);
  });
});

describe('configuration and the pieces underneath', () => {
  it('serves our client ID metadata document', async () => {
    const response = await browser('https://mcp-ondemand.test/oauth/client-metadata.json');
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      client_id: 'https://mcp-ondemand.test/oauth/client-metadata.json',
      redirect_uris: ['https://mcp-ondemand.test/oauth/callback'],
      token_endpoint_auth_method: 'none',
    });
  });

  it('refuses a credential header on a server with auth', () => {
    const servers = JSON.stringify([
      { id: 'x', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'secret:X' }, auth: { type: 'oauth' } },
    ]);
    expect(() => loadConfig({ MCP_SERVERS: servers })).toThrow(/cannot be combined with auth "oauth"/);
  });

  it('client credentials take a client secret or a private key, exactly one, and a signing algorithm it knows', () => {
    const server = (auth: Record<string, unknown>) =>
      JSON.stringify([
        { id: 'x', url: 'https://mcp.example.com/mcp', auth: { type: 'client_credentials', clientId: 'c', ...auth } },
      ]);
    expect(() => loadConfig({ MCP_SERVERS: server({}) })).toThrow(
      /clientSecret, privateKey or assertion \(exactly one\)/,
    );
    expect(() => loadConfig({ MCP_SERVERS: server({ clientSecret: 'secret:A', privateKey: 'secret:B' }) })).toThrow(
      /clientSecret, privateKey or assertion \(exactly one\)/,
    );
    expect(() => loadConfig({ MCP_SERVERS: server({ privateKey: 'secret:B', signingAlg: 'HS256' }) })).toThrow(
      /signingAlg/,
    );
    const parsed = loadConfig({ MCP_SERVERS: server({ privateKey: 'secret:B' }) }).mcpServers[0]!.auth;
    expect(parsed).toMatchObject({ type: 'client_credentials', privateKey: 'secret:B', signingAlg: 'ES256' });
  });

  it('opens values sealed under a rotated-out key while it is listed, and reseals under the new one', async () => {
    const one = 'k1:dGVzdC1vYXV0aC10b2tlbi1rZXktbnVtYmVyLW9uZSE';
    const two = 'k2:dGVzdC1vYXV0aC10b2tlbi1rZXktbnVtYmVyLXR3byE';
    const old = await KeyRing.from(one);
    const sealed = await old.seal('refresh-token-value', 'ctx');
    const rotated = await KeyRing.from(`${two},${one}`);
    expect(await rotated.open(sealed, 'ctx')).toBe('refresh-token-value');
    expect(rotated.isStale(sealed)).toBe(true);
    expect(await rotated.open(sealed, 'another row')).toBeUndefined();
    expect(await (await KeyRing.from(two)).open(sealed, 'ctx')).toBeUndefined();
  });

  it('refuses OAuth requests to private addresses or plain http unless ALLOW_PRIVATE_MCP_URLS', async () => {
    await expect(guardedFetch(false)(`${asUrl}/.well-known/oauth-authorization-server`)).rejects.toThrow(
      /https|private/,
    );
    await expect(guardedFetch(false)('https://10.0.0.1/token')).rejects.toThrow(/private/);
    expect((await guardedFetch(true)(`${asUrl}/.well-known/oauth-authorization-server`)).status).toBe(200);
  });
});
