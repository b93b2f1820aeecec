// Mints a browser token for local testing, as a tenant's backend would.
// Usage: npm run token -- <tenant> <end-user> [secret] [minutes]
//   secret: the tenant's token secret (default: $TOKEN_SECRET)
// A tenant backend does the same in a few lines with any JWT library:
//   sign({ tid, sub, aud: 'mcp-ondemand', exp: now + 600 }, secret, 'HS256')
// The browser tests import mintToken() from here.
import { createHmac } from 'node:crypto';
import { pathToFileURL } from 'node:url';

/** An HS256 token for `user` of `tenant`, valid for `minutes` (negative: already expired). */
export function mintToken({ tenant, user, secret, minutes = 10 }) {
  const b64url = (value) =>
    Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const header = b64url({ alg: 'HS256', typ: 'JWT' });
  const payload = b64url({
    tid: tenant,
    sub: user,
    aud: 'mcp-ondemand',
    iat: now,
    exp: now + Math.round(Number(minutes) * 60),
  });
  const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [tenant, user, secretArg, minutes = '10'] = process.argv.slice(2);
  const secret = secretArg ?? process.env.TOKEN_SECRET;
  if (!tenant || !user || !secret) {
    console.error('usage: npm run token -- <tenant> <end-user> [secret] [minutes]   (or set TOKEN_SECRET)');
    process.exit(2);
  }
  console.log(mintToken({ tenant, user, secret, minutes }));
}
