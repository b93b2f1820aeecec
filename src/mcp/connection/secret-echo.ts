import type { Transport } from '@modelcontextprotocol/client';
import { hookIncoming } from './incoming';
import { REDACTED } from '../../observability/redact';

/*
 * A server's credential (`secret:` header values, config/secrets.ts) masked in everything the server sends back. A
 * careless server echoes what it was sent — in a tool's text, its structured content, an isError result, a resource,
 * a prompt, a task's status, a question to the user, an error — and from there it would be cached for the tenant,
 * stored in the history, streamed and sent to the model. Masked here, at the transport, before the SDK reads a message
 * (only the lenient layer and the task hand-over see it first, and keep none of its text): one seam for every era,
 * stream and method, present and future. Base64 `blob`s are left whole (a
 * mask would corrupt the bytes; a credential is not recognisable in base64 anyway).
 */

/** `transport` with every string of every incoming message freed of `secrets`; unchanged when there are none. */
export function maskEchoedSecrets<T extends Transport>(transport: T, secrets: readonly string[]): T {
  if (!secrets.length) return transport;
  // Longest first: a secret that contains another is masked whole.
  const masks = [...secrets].sort((a, b) => b.length - a.length);
  // Inside the lenient layer and the task hand-over (incoming.ts): the SDK reads what this hands on.
  return hookIncoming(transport, (message, next) => next(maskStrings(message, masks)));
}

/** `value` with `masks` replaced in every string (in place: a message is parsed fresh for us), walked without recursion. */
export function maskStrings<V>(value: V, masks: readonly string[]): V {
  const mask = (text: string) => {
    let out = text;
    for (const secret of masks) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  };
  if (typeof value === 'string') return mask(value) as V;
  const stack: object[] = typeof value === 'object' && value !== null ? [value] : [];
  while (stack.length) {
    const node = stack.pop() as Record<string, unknown>;
    for (const key of Object.keys(node)) {
      const child = node[key];
      if (typeof child === 'string') {
        if (key !== 'blob') node[key] = mask(child);
      } else if (typeof child === 'object' && child !== null) stack.push(child);
    }
  }
  return value;
}
