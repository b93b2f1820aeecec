import { describe, expect, it } from 'vitest';
import { parseSuggestions, serverPrompts } from './start-screen';
import { themeSetting } from './theme';
import type { Catalog } from './types';

describe('parseSuggestions', () => {
  it('takes strings and {label, prompt}, from JSON or an array; a missing label is the prompt', () => {
    expect(parseSuggestions('["Hi", {"label": "Plan", "prompt": "Plan my day"}, {"prompt": "Due?"}]')).toEqual([
      { label: 'Hi', prompt: 'Hi' },
      { label: 'Plan', prompt: 'Plan my day' },
      { label: 'Due?', prompt: 'Due?' },
    ]);
    expect(parseSuggestions(['Hi'])).toEqual([{ label: 'Hi', prompt: 'Hi' }]);
  });

  it('names none for what is not a list of them: the servers’ prompts show instead', () => {
    for (const value of [null, undefined, '', 'not json', '{"a":1}', '[]', '["  "]', '[{"label":"no prompt"}]', 42])
      expect(parseSuggestions(value), String(value)).toBeUndefined();
    // What is usable in a list with junk is kept.
    expect(parseSuggestions([null, 3, 'Ok'])).toEqual([{ label: 'Ok', prompt: 'Ok' }]);
  });
});

describe('serverPrompts', () => {
  it('the connected servers’ prompts, at most six', () => {
    const prompts = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}` }));
    const catalog = {
      servers: [
        { id: 'down', status: 'error', prompts: prompts(2, 'd') },
        { id: 'a', status: 'connected', prompts: prompts(4, 'a') },
        { id: 'b', status: 'connected', prompts: prompts(4, 'b') },
      ],
    } as unknown as Catalog;
    expect(serverPrompts(catalog).map((p) => `${p.server}/${p.prompt.name}`)).toEqual([
      'a/a0',
      'a/a1',
      'a/a2',
      'a/a3',
      'b/b0',
      'b/b1',
    ]);
  });
});

describe('themeSetting', () => {
  it('light, dark or auto; anything else is light', () => {
    expect(['dark', 'auto', 'light', null, 'blue'].map(themeSetting)).toEqual([
      'dark',
      'auto',
      'light',
      'light',
      'light',
    ]);
  });
});
