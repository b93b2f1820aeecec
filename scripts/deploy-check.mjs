// What `npm run deploy` refuses (scripts/deploy.mjs): a configuration that
// would lock everyone out, or open the service to everyone. Pure, so
// test/node/deploy-check.test.ts can try every case without an account.

/**
 * @param {{ configVars: Record<string, unknown>, cliVars: Record<string, string>, secretNames: string[] | undefined }} input
 *   `secretNames`: the Worker's secrets as `wrangler secret list` gives them; undefined when they could not be listed.
 * @returns {{ problems: string[], warnings: string[] }}
 */
export function deployProblems({ configVars, cliVars, secretNames }) {
  const problems = [];
  const warnings = [];
  const vars = { ...configVars, ...cliVars };
  const secrets = new Set(secretNames ?? []);

  if (String(vars.AUTH_DISABLED ?? '') === 'true') {
    problems.push(
      'AUTH_DISABLED=true would serve every /v1 request without credentials: it is for `npm start` only. Remove it.',
    );
  }

  const inVars = typeof vars.TENANTS === 'string' && vars.TENANTS.trim() !== '';
  if (inVars && 'TENANTS' in cliVars) {
    warnings.push(
      'TENANTS given with --var is lost on the next deploy without it (and then every request is refused). Prefer `npx wrangler secret put TENANTS`: a secret survives deploys.',
    );
  }
  if (!inVars && !secrets.has('TENANTS')) {
    if (secretNames === undefined)
      warnings.push(
        "Could not list the Worker's secrets (not logged in, or the Worker does not exist yet): make sure TENANTS is set as a secret, or every /v1 request will be refused.",
      );
    else
      problems.push(
        'TENANTS is set neither as a var nor as a secret: every /v1 request would be refused (500 invalid_config). Run `npx wrangler secret put TENANTS` first (a secret survives deploys).',
      );
  }
  if (inVars) {
    let tenants;
    try {
      tenants = JSON.parse(String(vars.TENANTS));
    } catch (error) {
      problems.push(`TENANTS is not valid JSON: ${error.message}`);
    }
    if (tenants !== undefined) {
      if (!Array.isArray(tenants) || tenants.length === 0)
        problems.push('TENANTS must be a non-empty JSON list of tenants.');
      else {
        for (const tenant of tenants) {
          const id = tenant?.id ?? '(no id)';
          const hasKey = Array.isArray(tenant?.apiKeySha256) && tenant.apiKeySha256.length > 0;
          if (!hasKey && !tenant?.tokenSecret)
            problems.push(`tenant "${id}" has neither apiKeySha256 nor tokenSecret: nobody could call as it.`);
          const secretRef =
            typeof tenant?.tokenSecret === 'string' ? tenant.tokenSecret.replace(/^secret:/, '') : undefined;
          if (secretRef && secretNames !== undefined && !secrets.has(secretRef) && !(secretRef in vars)) {
            problems.push(
              `tenant "${id}": its token secret ${secretRef} is not set (\`npx wrangler secret put ${secretRef}\`): its browser tokens would all be refused.`,
            );
          }
        }
      }
    }
  }

  const servers = typeof vars.MCP_SERVERS === 'string' ? safeJson(vars.MCP_SERVERS) : undefined;
  const demo = Array.isArray(servers) && servers.some((s) => typeof s?.url === 'string' && s.url.startsWith('/demo/'));
  if (demo && String(vars.DEMO_MCP_ENABLED ?? '') !== 'true') {
    problems.push(
      'MCP_SERVERS includes the demo MCP server (/demo/mcp), which is off in production (anyone could write to it): every /v1 request would be refused. Set MCP_SERVERS to your servers (--var or wrangler.toml), or DEMO_MCP_ENABLED=true for a public demo.',
    );
  }
  const usesOAuth =
    Array.isArray(servers) && servers.some((s) => s?.auth?.type === 'oauth' || s?.auth?.type === 'client_credentials');
  if (usesOAuth) {
    if (!String(vars.PUBLIC_URL ?? '').startsWith('https://'))
      problems.push('MCP_SERVERS has servers with "auth": PUBLIC_URL must be this Worker\'s https origin.');
    if (secretNames !== undefined && !secrets.has('OAUTH_TOKEN_KEYS'))
      problems.push(
        'MCP_SERVERS has servers with "auth": set the secret OAUTH_TOKEN_KEYS first (docs/AUTH.md, "Authorization to MCP servers").',
      );
  }
  return { problems, warnings };
}

/** `--var NAME:value` pairs from wrangler-style arguments. */
export function cliVarsOf(args) {
  const vars = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = arg === '--var' ? args[++i] : arg.startsWith('--var=') ? arg.slice('--var='.length) : undefined;
    if (value === undefined) continue;
    const colon = value.indexOf(':');
    if (colon > 0) vars[value.slice(0, colon)] = value.slice(colon + 1);
  }
  return vars;
}

function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
