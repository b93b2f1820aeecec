/**
 * Secret values resolved in this isolate (`secret:` header values of MCP
 * servers, mcp/connection/transport.ts): masked in any upstream text we pass on and in
 * every log line. Memory only.
 */
const secrets = new Set<string>();

/** What a masked secret reads as. */
export const REDACTED = '[redacted]';

/**
 * The parts of a header value that must never be shown: the value, or for an `Authorization` value with a scheme
 * (`Bearer tok_…`) the credential after it — what a server that echoes it is likely to repeat alone, and what keeps
 * `Bearer [redacted]` readable. Short values would mask ordinary words: at least 6 characters.
 */
export function credentialsOf(value: string): string[] {
  const credential = /^(?:Bearer|Basic|Token|Bot)\s+(\S.*)$/i.exec(value.trim())?.[1] ?? value;
  return credential.length >= 6 ? [credential] : [];
}

/** A value that must never be shown. */
export function rememberSecret(value: string): void {
  for (const credential of credentialsOf(value)) secrets.add(credential);
}

/** `text` with every remembered secret masked. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join(REDACTED);
  return out;
}

const URL_IN_TEXT = /\b(?:https?|wss?):\/\/[^\s"'<>`]+/gi;
/** Credentials in the shapes they travel in: an Authorization value, or a provider key. */
const CREDENTIAL = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+|\b(?:sk|pk|rk)-[A-Za-z0-9_-]{12,}/gi;

/**
 * Text as a log line may hold it: remembered secrets and credential-shaped
 * values masked, and URLs without userinfo, query or fragment (a query
 * string may carry a code, a token or personal data).
 */
export function redactForLog(text: string): string {
  return redactSecrets(text)
    .replace(CREDENTIAL, (_, scheme: string | undefined) => (scheme ? `${scheme} [redacted]` : '[redacted]'))
    .replace(URL_IN_TEXT, withoutQuery);
}

function withoutQuery(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return raw.replace(/[?#].*$/, '');
  }
}
