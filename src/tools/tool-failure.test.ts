import { describe, expect, it } from 'vitest';
import { plainInvalidInput } from './tool-failure';

describe('an invalid tool call, worded as the tool’s failure', () => {
  it('the AI SDK’s chain of errors becomes the tool’s name and the last sentence', () => {
    const chained =
      'Invalid input for tool memory__create_entities: AI_TypeValidationError: Type validation failed: Value: {"entities":"x"}.\nError message: Error: argument "entities": Instance type "string" is invalid. Expected "array".';
    const sentence =
      'Tool "create_entities" of MCP server "memory" was not called: argument "entities": Instance type "string" is invalid. Expected "array".';
    expect(plainInvalidInput(chained)).toBe(sentence);
    expect(plainInvalidInput(`AI_InvalidToolInputError: ${chained}`)).toBe(sentence);
  });

  it('zod’s issues, for our own tools, name the argument', () => {
    const zod =
      'Invalid input for tool read_resource: AI_TypeValidationError: Type validation failed: Value: {}.\nError message: [{"expected":"string","code":"invalid_type","path":["uri"],"message":"Invalid input: expected string, received undefined"}]';
    expect(plainInvalidInput(zod)).toBe(
      'Tool "read_resource" was not called: argument "uri": Invalid input: expected string, received undefined.',
    );
  });

  it('any other text is left alone', () => {
    expect(plainInvalidInput('Tool "x" of MCP server "y" returned an error: no')).toBeUndefined();
  });
});
