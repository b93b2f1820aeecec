import type { Prompt } from '@modelcontextprotocol/client';
import { ApiError } from '../../errors';

/** Longest prompt argument value accepted (the server may have its own, smaller limit). */
export const MAX_PROMPT_ARGUMENT_CHARS = 10_000;

/**
 * Checks prompt arguments against the prompt's declared arguments before the
 * server is called: required ones present, only declared names, all
 * strings, bounded length. Errors name the argument (400).
 */
export function validatePromptArguments(
  prompt: Prompt,
  args: Record<string, unknown>,
  server: string,
): Record<string, string> {
  const declared = new Map((prompt.arguments ?? []).map((a) => [a.name, a]));
  const bad = (message: string) =>
    new ApiError(400, 'invalid_argument', `Prompt "${prompt.name}" on server "${server}": ${message}`);
  for (const name of Object.keys(args)) {
    if (!declared.has(name)) {
      throw bad(
        `unknown argument "${name}" (it takes ${[...declared.keys()].map((n) => `"${n}"`).join(', ') || 'no arguments'})`,
      );
    }
  }
  const valid: Record<string, string> = {};
  for (const [name, argument] of declared) {
    const value = args[name];
    if (value === undefined || value === null || value === '') {
      if (argument.required)
        throw bad(`argument "${name}" is required${argument.description ? ` (${argument.description})` : ''}`);
      continue;
    }
    if (typeof value !== 'string') throw bad(`argument "${name}" must be a string, got ${typeof value}`);
    if (value.length > MAX_PROMPT_ARGUMENT_CHARS)
      throw bad(`argument "${name}" is longer than ${MAX_PROMPT_ARGUMENT_CHARS} characters`);
    valid[name] = value;
  }
  return valid;
}
