import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/client/validators/cf-worker';

type Checked = { success: true; value: Record<string, unknown> } | { success: false; error: Error };

/**
 * The MCP SDK's JSON Schema validator (the one our connections give the SDK:
 * @cfworker/json-schema, which it ships inside; importing the package again
 * would put a second copy in the bundle), with every error reported (not
 * just the first), so the most specific one can name the field.
 */
const validators = new CfWorkerJsonSchemaValidator({ shortcircuit: false });

/**
 * Checks a model's arguments for an MCP tool against the tool's
 * `inputSchema` (its `$schema`'s draft; 2020-12 when it names none), as the
 * AI SDK's `jsonSchema(…, {validate})`: a call that does not fit is an
 * invalid tool call, which the AI SDK answers with a tool error at once — so
 * the model can correct it, and the person is never asked to approve a call
 * the server would refuse (a string where create_entities wants an array:
 * -32602 after the approval, before this). The error names the field.
 * Compiled on first use: most offered tools are never called.
 *
 * A schema the validator cannot compile (or a dialect it does not know) lets
 * the call through: the server is the judge of its own schema, and refusing
 * every call of its tool for our validator's sake would be worse.
 *
 * A `null` for an optional argument whose schema does not take null is the
 * model leaving it out (OpenAI's strict mode makes every optional field
 * nullable): it is dropped, not refused, and not sent.
 */
export function toolArgumentsCheck(schema: unknown): (value: unknown) => Checked {
  let validate: ReturnType<CfWorkerJsonSchemaValidator['getValidator']> | null | undefined;
  return (value) => {
    const args = withoutNullOptionals(schema, (value ?? {}) as Record<string, unknown>);
    if (validate === undefined) {
      try {
        validate = validators.getValidator(schema as Parameters<CfWorkerJsonSchemaValidator['getValidator']>[0]);
      } catch {
        validate = null;
      }
    }
    if (!validate) return { success: true, value: args };
    let result: ReturnType<typeof validate>;
    try {
      result = validate(args);
    } catch {
      return { success: true, value: args };
    }
    return result.valid
      ? { success: true, value: args }
      : { success: false, error: new Error(describeArgumentErrors(result.errorMessage ?? '')) };
  };
}

function withoutNullOptionals(schema: unknown, args: Record<string, unknown>): Record<string, unknown> {
  const { properties, required } = (schema ?? {}) as { properties?: Record<string, unknown>; required?: unknown };
  if (!properties || typeof args !== 'object' || Array.isArray(args)) return args;
  const needed = new Set(Array.isArray(required) ? required : []);
  const dropped = Object.keys(args).filter((name) => {
    if (args[name] !== null || needed.has(name)) return false;
    const type = (properties[name] as { type?: unknown } | undefined)?.type;
    return typeof type === 'string' ? type !== 'null' : Array.isArray(type) && !type.includes('null');
  });
  if (!dropped.length) return args;
  const kept = { ...args };
  for (const name of dropped) delete kept[name];
  return kept;
}

/**
 * The most specific of the validator's errors (`<instance location>: <error>`,
 * joined by "; "): the deepest location, whose outer errors only say "does
 * not match schema", naming the argument: `argument "entities": Instance type
 * "string" is invalid. Expected "array".`
 */
export function describeArgumentErrors(message: string): string {
  const deepest = deepestError(message);
  if (!deepest) return message || 'the arguments do not fit the tool’s input schema';
  const where = deepest.path.length ? `argument "${deepest.path.join('.')}": ` : '';
  return `${where}${deepest.error}`;
}

/**
 * The deepest of the validator's errors (`<instance location>: <error>`, joined by "; "), its location as property
 * names: the outer ones only say that a property "does not match schema".
 */
export function deepestError(message: string): { path: string[]; error: string } | undefined {
  const errors = message
    .split('; ')
    .map((part) => /^(#\S*): (.*)$/s.exec(part))
    .filter((match): match is RegExpExecArray => match !== null)
    .map(([, location, error]) => ({ path: location!.replace(/^#\/?/, ''), error: error! }));
  const deepest = errors.sort((a, b) => depth(b.path) - depth(a.path))[0];
  if (!deepest) return undefined;
  return { path: deepest.path ? deepest.path.split('/').map(decodeURIComponent) : [], error: deepest.error };
}

const depth = (path: string) => (path === '' ? 0 : path.split('/').length);

/** Keywords whose value maps names (of properties, definitions) to subschemas: the server's order of the names is kept. */
const SCHEMA_MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
]);

/**
 * A tool's input schema as the model is given it: every schema's keywords in
 * one order (sorted), whatever order they arrived in. Why: the tools array is
 * the start of the provider's cached prefix, and one tool's schema used to
 * come in two byte strings — the SDK keeps a 2026-07-28 server's key order,
 * while its 2025-11-25 parse puts the keywords it knows first (`$schema`
 * first in one, last in the other) — so a list read once in each era (a
 * server upgraded or probed again, a tenant's shared copy made in the other
 * era) changed the array with nothing changed. The names under `properties`
 * (and other maps of subschemas) keep the server's order: it is the order
 * the arguments are presented in. Values elsewhere (`default`, `enum`, …)
 * keep their content; only object keys are ordered.
 */
export function modelSchema<T>(schema: T): T {
  if (typeof schema !== 'object' || schema === null) return schema;
  let ordered = ordering.get(schema);
  if (!ordered) ordering.set(schema, (ordered = canonicalSchema(schema) as object));
  return ordered as T;
}

/** Per schema object: a listed tool is never changed in place (a new list is new objects), and turns reuse the lists. */
const ordering = new WeakMap<object, object>();

function canonicalSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalSchema);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined) continue;
    out[key] =
      SCHEMA_MAPS.has(key) && typeof member === 'object' && member !== null && !Array.isArray(member)
        ? Object.fromEntries(Object.entries(member).map(([name, sub]) => [name, canonicalSchema(sub)]))
        : canonicalSchema(member);
  }
  return out;
}
