import { Validator, type OutputUnit, type Schema, type SchemaDraft } from '@cfworker/json-schema';

type Checked = { success: true; value: Record<string, unknown> } | { success: false; error: Error };

/**
 * Checks a model's arguments for an MCP tool against the tool's
 * `inputSchema` (JSON Schema; 2020-12 unless its `$schema` says otherwise),
 * as the AI SDK's `jsonSchema(…, {validate})`: a call that does not fit is
 * an invalid tool call, which the AI SDK answers with a tool error at once —
 * so the model can correct it, and the person is never asked to approve a
 * call the server would refuse (a string where create_entities wants an
 * array: -32602 after the approval, before this). The error names the field.
 * Compiled on first use: most offered tools are never called.
 *
 * A schema the validator cannot compile lets the call through: the server is
 * the judge of its own schema, and refusing every call of its tool for our
 * validator's sake would be worse.
 */
export function toolArgumentsCheck(schema: unknown): (value: unknown) => Checked {
  let validator: Validator | null | undefined;
  return (value) => {
    const args = (value ?? {}) as Record<string, unknown>;
    if (validator === undefined) {
      try {
        validator = new Validator(schema as Schema, draftOf(schema), false);
      } catch {
        validator = null;
      }
    }
    if (!validator) return { success: true, value: args };
    let result: ReturnType<Validator['validate']>;
    try {
      result = validator.validate(args);
    } catch {
      return { success: true, value: args };
    }
    return result.valid ? { success: true, value: args } : { success: false, error: new Error(describeArgumentErrors(result.errors)) };
  };
}

function draftOf(schema: unknown): SchemaDraft {
  const declared = (schema as { $schema?: unknown } | null)?.$schema;
  if (typeof declared !== 'string') return '2020-12';
  if (declared.includes('draft-04')) return '4';
  if (declared.includes('draft-07') || declared.includes('draft-06')) return '7';
  if (declared.includes('2019-09')) return '2019-09';
  return '2020-12';
}

/**
 * The most specific of the validator's errors (the deepest instance
 * location; its outer errors only say "does not match schema"), naming the
 * argument: `argument "entities": Instance type "string" is invalid. Expected "array".`
 */
export function describeArgumentErrors(errors: readonly OutputUnit[]): string {
  const deepest = [...errors].sort((a, b) => depth(b.instanceLocation) - depth(a.instanceLocation))[0];
  if (!deepest) return 'the arguments do not fit the tool’s input schema';
  const path = deepest.instanceLocation.replace(/^#\/?/, '');
  const where = path ? `argument "${path.split('/').map(decodeURIComponent).join('.')}": ` : '';
  return `${where}${deepest.error}`;
}

const depth = (location: string) => (location === '#' ? 0 : location.split('/').length - 1);
