import { describe, expect, it } from 'vitest';
import { cliVarsOf, deployProblems } from '../../scripts/deploy-check.mjs';

const TENANTS = JSON.stringify([
  { id: 'acme', apiKeySha256: ['a'.repeat(64)], tokenSecret: 'secret:ACME_TOKEN_SECRET' },
]);

describe('npm run deploy refuses what would lock everyone out or let everyone in', () => {
  it('refuses a deploy with no TENANTS var or secret (every request would be refused)', () => {
    const { problems } = deployProblems({ configVars: {}, cliVars: {}, secretNames: ['ACME_TOKEN_SECRET'] });
    expect(problems.join('\n')).toMatch(/TENANTS is set neither as a var nor as a secret/);
  });

  it('accepts TENANTS as a secret (it survives deploys), and warns when it comes from --var', () => {
    expect(
      deployProblems({ configVars: {}, cliVars: {}, secretNames: ['TENANTS', 'ACME_TOKEN_SECRET'] }).problems,
    ).toEqual([]);
    const fromVar = deployProblems({
      configVars: {},
      cliVars: cliVarsOf(['--var', `TENANTS:${TENANTS}`]),
      secretNames: ['ACME_TOKEN_SECRET'],
    });
    expect(fromVar.problems).toEqual([]);
    expect(fromVar.warnings.join('\n')).toMatch(/lost on the next deploy/);
  });

  it('refuses AUTH_DISABLED=true, invalid TENANTS, a tenant nobody can call as, and a missing token secret', () => {
    expect(
      deployProblems({ configVars: { AUTH_DISABLED: 'true' }, cliVars: {}, secretNames: ['TENANTS'] }).problems.join(),
    ).toMatch(/AUTH_DISABLED/);
    expect(deployProblems({ configVars: {}, cliVars: { TENANTS: '[{' }, secretNames: [] }).problems.join()).toMatch(
      /not valid JSON/,
    );
    expect(
      deployProblems({ configVars: {}, cliVars: { TENANTS: '[{"id":"x"}]' }, secretNames: [] }).problems.join(),
    ).toMatch(/nobody could call/);
    expect(deployProblems({ configVars: {}, cliVars: { TENANTS }, secretNames: [] }).problems.join()).toMatch(
      /ACME_TOKEN_SECRET is not set/,
    );
  });

  it('asks for PUBLIC_URL (https) and OAUTH_TOKEN_KEYS when a server uses OAuth', () => {
    const MCP_SERVERS = JSON.stringify([{ id: 'linear', url: 'https://mcp.linear.app/mcp', auth: { type: 'oauth' } }]);
    const { problems } = deployProblems({
      configVars: { PUBLIC_URL: 'http://127.0.0.1:8787', MCP_SERVERS },
      cliVars: {},
      secretNames: ['TENANTS'],
    });
    expect(problems.join('\n')).toMatch(/PUBLIC_URL must be/);
    expect(problems.join('\n')).toMatch(/OAUTH_TOKEN_KEYS/);
  });

  it('refuses the demo MCP server in production unless DEMO_MCP_ENABLED (it is writable by anyone)', () => {
    const MCP_SERVERS = '[{"id":"demo","url":"/demo/mcp"}]';
    expect(
      deployProblems({ configVars: { MCP_SERVERS }, cliVars: {}, secretNames: ['TENANTS'] }).problems.join(),
    ).toMatch(/demo MCP server/);
    expect(
      deployProblems({ configVars: { MCP_SERVERS, DEMO_MCP_ENABLED: 'true' }, cliVars: {}, secretNames: ['TENANTS'] })
        .problems,
    ).toEqual([]);
  });

  it('only warns when the secrets cannot be listed (not logged in)', () => {
    const { problems, warnings } = deployProblems({ configVars: {}, cliVars: {}, secretNames: undefined });
    expect(problems).toEqual([]);
    expect(warnings.join()).toMatch(/Could not list/);
  });

  it('reads --var NAME:value and --var=NAME:value, values may contain colons', () => {
    expect(cliVarsOf(['--var', 'A:b:c', '--var=D:e', '--other'])).toEqual({ A: 'b:c', D: 'e' });
  });
});
