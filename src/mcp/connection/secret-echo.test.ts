import { describe, expect, it } from 'vitest';
import { credentialsOf } from '../../observability/redact';
import { maskStrings } from './secret-echo';

describe('a server’s credential masked in what it sends back', () => {
  it('in every string, however deep, but never inside a base64 blob', () => {
    const message = {
      jsonrpc: '2.0',
      id: 1,
      result: {
        content: [{ type: 'text', text: 'key tok_live_123456 twice tok_live_123456' }],
        structuredContent: { nested: [{ auth: 'tok_live_123456' }] },
        contents: [{ uri: 'x', blob: 'dG9rX2xpdmVfMTIzNDU2tok_live_123456' }],
      },
    };
    const masked = maskStrings(message, credentialsOf('Bearer tok_live_123456'));
    expect(masked.result.content[0]!.text).toBe('key [redacted] twice [redacted]');
    expect(masked.result.structuredContent.nested[0]!.auth).toBe('[redacted]');
    expect(masked.result.contents[0]!.blob).toBe('dG9rX2xpdmVfMTIzNDU2tok_live_123456');
  });

  it('an Authorization value is masked by its credential, so "Bearer [redacted]" stays readable; short values never', () => {
    expect(credentialsOf('Bearer tok_live_123456')).toEqual(['tok_live_123456']);
    expect(credentialsOf('Basic dXNlcjpwYXNz')).toEqual(['dXNlcjpwYXNz']);
    expect(credentialsOf('opaque-key-value')).toEqual(['opaque-key-value']);
    expect(credentialsOf('abc')).toEqual([]);
  });
});
