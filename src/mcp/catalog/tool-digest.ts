import type { Tool } from '@modelcontextprotocol/client';

/**
 * The SHA-256 (lowercase hex) of what a tool tells the model and the
 * approval rule: its name, title, description, input and output schemas and
 * annotations, as canonical JSON (object keys sorted, so the order a server
 * writes them in does not count). `title` is in it because this host shows
 * it to the model (tools/mcp-tools.ts). `_meta`, icons and task support are
 * not: they say nothing the model reads. Pinned per tenant and server
 * (definition-pins.ts): a definition that differs from its pin loses its
 * auto-approval (docs/SECURITY.md, "Auto-approval and changed tools").
 * Kept per tool object (a listed tool is never changed in place; a new list
 * is new objects), so `digestOf` can answer synchronously afterwards.
 */
export function toolDigest(tool: Pick<Tool, 'name'> & Partial<Tool>): Promise<string> {
  let digest = pending.get(tool);
  if (!digest) {
    digest = sha256Hex(definitionText(tool)).then((hex) => (done.set(tool, hex), hex));
    pending.set(tool, digest);
  }
  return digest;
}

/** What `toolDigest` hashes: the definition's fields that count, as canonical JSON. */
export function definitionText(tool: Pick<Tool, 'name'> & Partial<Tool>): string {
  return canonicalJson({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: tool.annotations,
  });
}

/**
 * The digest `toolDigest` computed for this very tool object, or undefined:
 * the approval rule decides synchronously where the turn's tools are built,
 * on the definition in hand — never on a digest of another one, and a tool
 * not digested yet is treated as unchecked (asked about).
 */
export function digestOf(tool: object): string | undefined {
  return done.get(tool);
}

const pending = new WeakMap<object, Promise<string>>();
const done = new WeakMap<object, string>();

/** The SHA-256 of a server's `instructions` (undefined: it sent none). */
export async function instructionsDigest(instructions: string | undefined): Promise<string | undefined> {
  return instructions === undefined ? undefined : sha256Hex(instructions);
}

export async function sha256Hex(text: string): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return [...hash].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * JSON with every object's keys sorted (recursively) and `undefined`
 * members left out, as `JSON.stringify` leaves them out: two definitions
 * that differ only in key order have one text.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sorted(value)) ?? 'null';
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== undefined) out[key] = sorted(member);
  }
  return out;
}
