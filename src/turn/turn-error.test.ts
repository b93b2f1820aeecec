import { NoSuchToolError } from 'ai';
import { describe, expect, it } from 'vitest';
import { ToolFailure } from '../tools/tool-failure';
import { describeTurnError } from './turn-error';

describe('describeTurnError: what a stream carries of a failure', () => {
  it('masks provider keys and tokens', () => {
    const text = describeTurnError(new Error('401 from the provider: key sk-proj-abc123DEF456ghi789 was rejected'));
    expect(text).toBe('The model call failed: 401 from the provider: key [redacted] was rejected');
    expect(describeTurnError(new Error('bad token_9f8e7d6c5b4a3210 given'))).toContain('bad [redacted] given');
  });

  it('leaves words that only contain "sk", "key" or "token" (a setting name, an English word)', () => {
    const failure = ToolFailure.mcpRequest(
      'jobs',
      'wait_forever',
      new Error('1 tasks are already running in this conversation (TASKS_PER_CONVERSATION); asking_questions_about it'),
    );
    expect(describeTurnError(failure)).toContain('(TASKS_PER_CONVERSATION); asking_questions_about it');
  });

  it('a call of a tool that does not exist: in words, with the closest names, whatever the number of tools', () => {
    const available = [...Array.from({ length: 60 }, (_, i) => `server${i}__tool_${i}`), 'read_resource', 'load_skill'];
    const text = describeTurnError(new NoSuchToolError({ toolName: 'read_resources', availableTools: available }));
    expect(text).toBe(
      'There is no tool "read_resources". Did you mean "read_resource"? Call only the tools you were given, by their exact names.',
    );
  });
});
