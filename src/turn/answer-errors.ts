import type { ElicitationNotice } from '../../shared/api/stream';
import { deepestError } from '../tools/tool-arguments';

/*
 * Why an answer to a server's question (elicitation) was refused, in words a person reads: the field by its title and
 * what it expects, from the server's own schema — not the validator's `#: Property "email" does not match schema.;
 * #/email: String does not match format "email".`.
 */

type Field = {
  type?: string;
  title?: string;
  format?: string;
  enum?: unknown[];
  oneOf?: unknown[];
  anyOf?: unknown[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
};

const FORMATS: Record<string, string> = {
  email: 'an email address',
  uri: 'a web address (URL)',
  date: 'a date (YYYY-MM-DD)',
  'date-time': 'a date and time',
};

/** One sentence: `"Email" (email) must be an email address.`, `"Name" (name) is required.` */
export function describeAnswerErrors(schema: ElicitationNotice['requestedSchema'], validatorMessage: string): string {
  const deepest = deepestError(validatorMessage);
  const missing = /required property "([^"]+)"/.exec(deepest?.error ?? validatorMessage)?.[1];
  const name = missing ?? deepest?.path[0];
  const field = name === undefined ? undefined : (schema.properties?.[name] as Field | undefined);
  if (name === undefined) return deepest?.error ?? validatorMessage;
  const label = field?.title && field.title !== name ? `"${field.title}" (${name})` : `"${name}"`;
  if (missing !== undefined) return `${label} is required.`;
  const expected = field && expectation(field);
  return expected ? `${label} must be ${expected}.` : `${label}: ${deepest?.error ?? validatorMessage}`;
}

/** What a field takes, in words; undefined when its schema says nothing a person could act on. */
function expectation(field: Field): string | undefined {
  const choices = choicesOf(field);
  if (choices) return `one of: ${choices.join(', ')}`;
  if (field.type === 'boolean') return 'yes or no';
  if (field.type === 'number' || field.type === 'integer') {
    const what = field.type === 'integer' ? 'a whole number' : 'a number';
    if (field.minimum !== undefined && field.maximum !== undefined)
      return `${what} from ${field.minimum} to ${field.maximum}`;
    if (field.minimum !== undefined) return `${what} of at least ${field.minimum}`;
    if (field.maximum !== undefined) return `${what} of at most ${field.maximum}`;
    return what;
  }
  if (field.type === 'string') {
    if (field.format && FORMATS[field.format]) return FORMATS[field.format];
    if (field.minLength !== undefined && field.maxLength !== undefined)
      return `text of ${field.minLength} to ${field.maxLength} characters`;
    if (field.minLength !== undefined) return `text of at least ${field.minLength} character${plural(field.minLength)}`;
    if (field.maxLength !== undefined) return `text of at most ${field.maxLength} character${plural(field.maxLength)}`;
    return 'text';
  }
  return undefined;
}

const plural = (n: number) => (n === 1 ? '' : 's');

/** The values (or their titles) a single-choice field allows: `enum`, or `oneOf`/`anyOf` of `{const, title}`. */
function choicesOf(field: Field): string[] | undefined {
  if (Array.isArray(field.enum)) return field.enum.map((value) => JSON.stringify(value));
  const titled = field.oneOf ?? field.anyOf;
  if (!Array.isArray(titled)) return undefined;
  const choices = titled.flatMap((choice) => {
    const { const: value, title } = (choice ?? {}) as { const?: unknown; title?: unknown };
    if (value === undefined) return [];
    return [typeof title === 'string' ? `${JSON.stringify(value)} (${title})` : JSON.stringify(value)];
  });
  return choices.length ? choices : undefined;
}
