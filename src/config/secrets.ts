/**
 * The Worker secret that a `secret:NAME` reference in config names (an MCP
 * server's header or client secret, a tenant's token secret), or undefined
 * when it is not set (or is empty, or names a binding rather than a secret).
 *
 * Those names are data — written by whoever configures `MCP_SERVERS` and
 * `TENANTS` — so no type can list them: this is the one place that reads the
 * Worker's env by a computed name. Every name the code knows is typed on `Env`
 * (worker-configuration.d.ts, src/env.d.ts).
 *
 * @example
 * const token = secretNamed(env, 'secret:TRACKER_TOKEN'); // string | undefined
 */
export function secretNamed(env: Env, ref: string): string | undefined {
  const name = ref.startsWith('secret:') ? ref.slice('secret:'.length) : ref;
  const value: unknown = Reflect.get(env, name);
  return typeof value === 'string' && value !== '' ? value : undefined;
}
