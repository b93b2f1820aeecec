import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors';
import { type ChatRequestBody, chatCommand, MAX_MESSAGE_CHARS, parseChatBody, userMessageFrom } from './use-chat-body';

/** The error `run` throws (fails the test if it throws none). */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
const rejects = (run: () => unknown, status: number, code: string) => {
  const error = thrown(run);
  expect(error).toBeInstanceOf(ApiError);
  expect(error).toMatchObject({ status, code });
};

const userMessage = (id: string, text: string) => ({ id, role: 'user', parts: [{ type: 'text', text }] });
const answered = (toolCallId: string, approved: boolean, reason?: string) => ({
  type: 'tool-delete_file',
  toolCallId,
  state: 'approval-responded',
  input: {},
  approval: { id: `ap-${toolCallId}`, approved, ...(reason === undefined ? {} : { reason }) },
});
const body = (messages: unknown[], extra: Partial<ChatRequestBody> = {}): ChatRequestBody => ({
  messages,
  trigger: 'submit-message',
  ...extra,
});

describe('userMessageFrom', () => {
  it('reads {text}, {message} (keeping its id) and the last of {messages}', () => {
    const fromText = userMessageFrom({ text: 'hello' });
    expect(fromText).toMatchObject({ role: 'user', parts: [{ type: 'text', text: 'hello' }] });
    expect(fromText.id).toEqual(expect.any(String));
    expect(fromText.id).not.toBe(userMessageFrom({ text: 'hello' }).id);
    const parts = [
      { type: 'text' as const, text: 'one' },
      { type: 'text' as const, text: 'two' },
    ];
    expect(userMessageFrom({ message: { id: 'm1', role: 'user', parts } })).toEqual({ id: 'm1', role: 'user', parts });
    expect(
      userMessageFrom({
        messages: [userMessage('u1', 'old'), { id: 'a1', role: 'assistant', parts: [] }, userMessage('u2', 'new')],
      }),
    ).toEqual(userMessage('u2', 'new'));
  });

  it('413 message_too_large past MAX_MESSAGE_CHARS, counted over all its parts', () => {
    expect(userMessageFrom({ text: 'x'.repeat(MAX_MESSAGE_CHARS) }).parts).toHaveLength(1);
    rejects(() => userMessageFrom({ text: 'x'.repeat(MAX_MESSAGE_CHARS + 1) }), 413, 'message_too_large');
    const half = { type: 'text' as const, text: 'x'.repeat(MAX_MESSAGE_CHARS / 2) };
    rejects(
      () => userMessageFrom({ message: { role: 'user', parts: [half, half, { type: 'text', text: '!' }] } }),
      413,
      'message_too_large',
    );
  });

  it('400 invalid_body for an empty message or none, or a last message that is not a user text message', () => {
    for (const sent of [
      { text: '' },
      { text: ' \n\t' },
      { message: { role: 'user' as const, parts: [{ type: 'text' as const, text: '  ' }] } },
      {},
      { messages: [] },
      { messages: [userMessage('u1', 'hi'), { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'yes' }] }] },
      { messages: [{ id: 'u1', role: 'user', parts: [{ type: 'reasoning', text: 'x' }] }] },
      { messages: [{ id: 'u1', role: 'user' }] },
    ])
      rejects(() => userMessageFrom(sent), 400, 'invalid_body');
  });

  it("keeps a message's file parts (FileUIPart) for the conversation to store as uploads; a file alone is a message", () => {
    const file = { type: 'file' as const, url: 'data:,x', mediaType: 'text/plain', filename: 'x.txt' };
    const message = userMessageFrom({
      messages: [{ id: 'u1', role: 'user', parts: [{ ...file, providerMetadata: { client: { a: 1 } } }] }],
    });
    expect(message.parts).toEqual([file]);
  });
});

describe('chatCommand', () => {
  it("regenerate: the message named, else the last message's id", () => {
    const messages = [userMessage('u1', 'hi'), { id: 'a1', role: 'assistant', parts: [] }];
    expect(chatCommand(body(messages, { trigger: 'regenerate-message', messageId: 'u1' }))).toEqual({
      kind: 'regenerate',
      messageId: 'u1',
    });
    expect(chatCommand(body(messages, { trigger: 'regenerate-message' }))).toEqual({
      kind: 'regenerate',
      messageId: 'a1',
    });
  });

  it("an assistant message last: the client's approval answers, reasons kept, other parts ignored", () => {
    const assistant = {
      id: 'a1',
      role: 'assistant',
      parts: [
        { type: 'text', text: 'May I?' },
        answered('c1', true),
        answered('c2', false, 'not that one'),
        { type: 'tool-x', toolCallId: 'c3', state: 'approval-requested', input: {}, approval: { id: 'ap' } },
      ],
    };
    expect(chatCommand(body([userMessage('u1', 'clean up'), assistant]))).toEqual({
      kind: 'approvals',
      answers: [
        { toolCallId: 'c1', approved: true },
        { toolCallId: 'c2', approved: false, reason: 'not that one' },
      ],
      fromClient: true,
    });
  });

  it('400 invalid_body for an assistant message last with no answer in it', () => {
    rejects(
      () =>
        chatCommand(
          body([userMessage('u1', 'hi'), { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'hello' }] }]),
        ),
      400,
      'invalid_body',
    );
  });

  it('a user message last: the message, with the attachments (none by default)', () => {
    const attachments = [{ server: 'docs', uri: 'docs://guide' }];
    expect(chatCommand(body([userMessage('u1', 'read this')], { attachments }))).toEqual({
      kind: 'message',
      message: userMessage('u1', 'read this'),
      attachments,
    });
    expect(chatCommand(body([userMessage('u1', 'hi')]))).toMatchObject({ kind: 'message', attachments: [] });
  });
});

describe('parseChatBody', () => {
  it('400 invalid_body for what is not a chat body', () => {
    for (const sent of [
      null,
      'hi',
      {},
      { messages: [] },
      { messages: 'hi' },
      { messages: [userMessage('u1', 'hi')], trigger: 'resend' },
    ])
      rejects(() => parseChatBody(sent), 400, 'invalid_body');
  });

  it("the command, and the client's tools passed through; an application's own fields are ignored", () => {
    const clientTools = [
      { name: 'get_location', description: 'Where the browser is', parameters: { type: 'object', properties: {} } },
    ];
    expect(
      parseChatBody({ id: 'chat-1', messages: [userMessage('u1', 'where am I?')], clientTools, theme: 'dark' }),
    ).toEqual({
      command: { kind: 'message', message: userMessage('u1', 'where am I?'), attachments: [] },
      clientTools,
    });
    expect(parseChatBody({ messages: [userMessage('u1', 'hi')] }).clientTools).toBeUndefined();
  });
});
