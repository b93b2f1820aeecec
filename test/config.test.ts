import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { ApiError } from '../src/errors';

const load = (MCP_SERVERS: string) => loadConfig({ MCP_SERVERS });

function configError(MCP_SERVERS: string): ApiError {
  try {
    load(MCP_SERVERS);
  } catch (error) {
    return error as ApiError;
  }
  throw new Error('expected an invalid_config error');
}

describe('MCP_SERVERS', () => {
  it('defaults to the demo server when empty', () => {
    expect(load('').mcpServers).toEqual([
      {
        id: 'demo',
        url: '/demo/mcp',
        transport: 'auto',
        protocol: 'auto',
        headers: {},
        auth: { type: 'none' },
        cacheScope: 'shared',
        trustNotifications: false,
        trustAnnotations: true,
        autoApprove: [],
        modelPrompts: true,
        skills: 'all',
        pin: [],
      },
    ]);
  });

  it('accepts absolute URLs, transports and secret-named headers', () => {
    const config = load(
      '[{"id":"tracker","url":"https://mcp.example.com/mcp","transport":"sse","headers":{"Authorization":"secret:TRACKER_TOKEN"}}]',
    );
    expect(config.mcpServers[0]).toEqual({
      id: 'tracker',
      url: 'https://mcp.example.com/mcp',
      transport: 'sse',
      protocol: 'auto',
      headers: { Authorization: 'secret:TRACKER_TOKEN' },
      auth: { type: 'none' },
      cacheScope: 'shared',
      trustNotifications: false,
      trustAnnotations: false,
      autoApprove: [],
      modelPrompts: true,
      skills: 'all',
      pin: [],
    });
  });

  it.each([
    ['not json', 'MCP_SERVERS is not valid JSON'],
    ['{"id":"x"}', 'MCP_SERVERS is invalid: (root): '],
    ['[{"id":"Bad Id","url":"/x"}]', '[0].id: id must be'],
    ['[{"id":"a","url":"relative/path"}]', '[0].url: url must be absolute or a path of this Worker'],
    ['[{"id":"a","url":"/a"},{"id":"a","url":"/b"}]', '[1].id: duplicate server id "a"'],
    ['[{"id":"a","url":"/a","transport":"stdio"}]', '[0].transport'],
    ['[{"id":"a","url":"/a","token":"x"}]', 'Unrecognized key'],
    ['[{"id":"a","url":"/a","cacheScope":"world"}]', '[0].cacheScope'],
    ['[{"id":"a","url":"/a","protocol":"2024-11-05"}]', '[0].protocol'],
    ['[{"id":"a","url":"/a","trustNotifications":"yes"}]', '[0].trustNotifications'],
    // Ids whose tools could share a model name: `a` + `b__c` and `a__b` + `c` are both `a__b__c`; `a` + `_x` and `a_` + `x`.
    [
      '[{"id":"a","url":"/a"},{"id":"a__b","url":"/b"}]',
      '[1].id: server ids "a" and "a__b" can give two tools one name for the model',
    ],
    ['[{"id":"a_","url":"/a"},{"id":"a","url":"/b"}]', '[0].id: server ids "a" and "a_" can give two tools one name'],
    ['[{"id":"a","url":"/a","autoApprove":[{"name":"x","sha256":"abc"}]}]', '[0].autoApprove[0]'],
    ['[{"id":"a","url":"/a","autoApprove":[{"name":"x"}]}]', '[0].autoApprove[0]'],
  ])('rejects %s with a message naming the problem', (raw, expected) => {
    const error = configError(raw);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(500);
    expect(error.code).toBe('invalid_config');
    expect(error.message).toContain(expected);
  });
});

describe('MCP_SERVERS: auto-approval and names', () => {
  it('takes a tool by name or by name and the digest of its definition; ids that extend another without "__" are fine', () => {
    const digest = 'ab'.repeat(32);
    const config = load(
      `[{"id":"a","url":"/a","autoApprove":["x",{"name":"y","sha256":"${digest}"}]},{"id":"a_b","url":"/b"},{"id":"a-b","url":"/c"}]`,
    );
    expect(config.mcpServers[0]!.autoApprove).toEqual(['x', { name: 'y', sha256: digest }]);
    expect(config.mcpServers.map((s) => s.id)).toEqual(['a', 'a_b', 'a-b']);
  });
});

describe('settings', () => {
  it('has defaults and reads numeric vars', () => {
    expect(loadConfig({}).settings).toMatchObject({
      RESOURCE_TTL_MS: 60_000,
      CACHE_MAX_AGE_MS: 300_000,
      MCP_IDLE_MS: 600_000,
      LIVE_CONVERSATIONS_PER_USER: 10,
    });
    expect(loadConfig({ RESOURCE_TTL_MS: '30000' }).settings.RESOURCE_TTL_MS).toBe(30_000);
  });

  it('reads KV_MAX_AGE_MS, the older name of CACHE_MAX_AGE_MS, unless the new one is set', () => {
    expect(loadConfig({ KV_MAX_AGE_MS: '120000' }).settings.CACHE_MAX_AGE_MS).toBe(120_000);
    expect(loadConfig({ KV_MAX_AGE_MS: '120000', CACHE_MAX_AGE_MS: '90000' }).settings.CACHE_MAX_AGE_MS).toBe(90_000);
  });

  it('rejects a non-numeric or out-of-range value naming the setting', () => {
    for (const value of ['soon', '5']) {
      try {
        loadConfig({ RESOURCE_TTL_MS: value });
        throw new Error('expected an error');
      } catch (error) {
        expect((error as ApiError).code).toBe('invalid_config');
        expect((error as ApiError).message).toContain('RESOURCE_TTL_MS');
      }
    }
  });

  it('refuses a budget that is negative or not a number, naming the field', () => {
    const tenant = (limits: unknown) =>
      JSON.stringify([{ id: 'a', apiKeySha256: ['a'.repeat(64)], allowedOrigins: [], limits }]);
    const refused = (vars: Record<string, string>) => {
      try {
        loadConfig(vars);
      } catch (error) {
        expect((error as ApiError).code).toBe('invalid_config');
        return (error as ApiError).message;
      }
      throw new Error('expected an error');
    };
    expect(refused({ TENANTS: tenant({ usdPerMonth: -5 }) })).toMatch(/TENANTS is invalid: \[0\]\.limits\.usdPerMonth/);
    expect(refused({ TENANTS: tenant({ userUsdPerDay: 'ten' }) })).toMatch(/\[0\]\.limits\.userUsdPerDay/);
    expect(refused({ TENANTS: tenant({ tokensPerDay: 1.5 }) })).toMatch(/\[0\]\.limits\.tokensPerDay/);
    expect(refused({ BUDGET_USD_PER_MONTH: '-1' })).toContain('BUDGET_USD_PER_MONTH');
    expect(refused({ BUDGET_USER_USD_PER_DAY: 'lots' })).toContain('BUDGET_USER_USD_PER_DAY');
    expect(loadConfig({ BUDGET_USD_PER_MONTH: '25.5' }).settings.BUDGET_USD_PER_MONTH).toBe(25.5);
  });
});

describe('TENANTS', () => {
  // One key under two tenants signed its caller in as whichever tenant came first: refused, naming both.
  it('refuses one apiKeySha256 under two tenants, naming both and the key digest', () => {
    const key = 'ab'.repeat(32);
    const tenants = JSON.stringify([
      { id: 'acme', apiKeySha256: ['c'.repeat(64), key] },
      { id: 'globex', apiKeySha256: [key] },
    ]);
    let error: ApiError | undefined;
    try {
      loadConfig({ TENANTS: tenants });
    } catch (caught) {
      error = caught as ApiError;
    }
    expect(error?.code).toBe('invalid_config');
    expect(error?.message).toContain(
      '[1].apiKeySha256[0]: the same API key (SHA-256 abababababab…) is under tenants "acme" and "globex"; each key belongs to one tenant',
    );
    // The same key twice in one tenant's list, or each tenant with its own keys, is fine.
    expect(
      loadConfig({
        TENANTS: JSON.stringify([{ id: 'acme', apiKeySha256: [key, key] }, { id: 'globex' }]),
        DEMO_MCP_ENABLED: 'true',
      }).tenants,
    ).toHaveLength(2);
  });
});
