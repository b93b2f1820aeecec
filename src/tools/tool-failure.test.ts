import { describe, expect, it } from 'vitest';
import { closestNames, plainInvalidInput } from './tool-failure';

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

describe('a call of a tool that does not exist, in words', () => {
  // The step's tools of a conversation with the demo server and server-everything (38 and more names).
  const AVAILABLE = [
    'demo__list_tasks',
    'demo__create_task',
    'demo__complete_task',
    'everything__echo',
    'everything__get-sum',
    'everything__get-resource-links',
    'read_resource',
    'search_resource',
    'list_resources',
    'invoke_prompt',
    'load_skill',
  ];
  const aiSdk = (name: string, available = AVAILABLE) =>
    `AI_NoSuchToolError: Model tried to call unavailable tool '${name}'. Available tools: ${available.join(', ')}.`;

  it('the name it used and the closest few, not every tool', () => {
    expect(plainInvalidInput(aiSdk('read_resources'))).toBe(
      'There is no tool "read_resources". Did you mean "read_resource", "list_resources", "search_resource"? Call only the tools you were given, by their exact names.',
    );
    expect(plainInvalidInput(aiSdk('demo__creat_task'))).toBe(
      'There is no tool "demo__creat_task". Did you mean "demo__create_task", "demo__list_tasks", "demo__complete_task"? Call only the tools you were given, by their exact names.',
    );
    // A server tool called without its server's prefix.
    expect(closestNames('create_task', AVAILABLE, 3)[0]).toBe('demo__create_task');
  });

  it('nothing close: no guess; search_tools among them: the reminder; no tools at all: said so', () => {
    expect(plainInvalidInput(aiSdk('weather'))).toBe(
      'There is no tool "weather". Call only the tools you were given, by their exact names.',
    );
    expect(plainInvalidInput(aiSdk('weather', [...AVAILABLE, 'search_tools', 'call_tool']))).toMatch(
      /exact names\. A server tool that is not offered yet is found with search_tools\.$/,
    );
    expect(plainInvalidInput("Model tried to call unavailable tool 'x'. No tools are available.")).toBe(
      'There is no tool "x", and no tools can be called now.',
    );
  });

  it('a list cut short (the step’s error text stops at 1,000 characters) loses only its partial last name', () => {
    const cut = `Model tried to call unavailable tool 'read_resources'. Available tools: read_resource, load_skill, search_reso`;
    expect(plainInvalidInput(cut)).toBe(
      'There is no tool "read_resources". Did you mean "read_resource"? Call only the tools you were given, by their exact names.',
    );
  });
});
