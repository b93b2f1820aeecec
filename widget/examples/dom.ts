// Plain DOM: the element and its events are typed by ../mcp-ondemand-chat.d.ts.
import type { McpOndemandChatElement } from '../mcp-ondemand-chat';

const chat: McpOndemandChatElement | null = document.querySelector('mcp-ondemand-chat');
const made: McpOndemandChatElement = document.createElement('mcp-ondemand-chat');
made.setAttribute('endpoint', 'https://chat.example.com');

chat?.addEventListener('mcp-ondemand-token-expired', async (event) => {
  const code: string = event.detail.code;
  const { token } = (await (await fetch(`/api/chat-token?after=${code}`)).json()) as { token: string };
  event.currentTarget;
  chat.setAttribute('token', token);
});
chat?.addEventListener('mcp-ondemand-message', (event) => {
  for (const part of event.detail.message.parts) {
    if (part.type === 'text' && 'text' in part) console.log(part.text);
  }
});
chat?.addEventListener('mcp-ondemand-error', (event) =>
  console.log(event.detail.status, event.detail.code, event.detail.title),
);
chat?.addEventListener('mcp-ondemand-conversation', (event) => localStorage.setItem('chat', event.detail.id));
// A rating the person gave an answer, for the host's own analytics.
chat?.addEventListener('mcp-ondemand-feedback', (event) => {
  const { messageId, rating, comment }: { messageId: string; rating: 'up' | 'down'; comment?: string } = event.detail;
  console.log(messageId, rating, comment ?? '');
});
// Ordinary DOM events keep their own types.
chat?.addEventListener('click', (event) => event.clientX);

// @ts-expect-error the conversation event's detail has no `token`
chat?.addEventListener('mcp-ondemand-conversation', (event) => event.detail.token);
