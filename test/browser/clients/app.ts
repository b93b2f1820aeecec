// The chat clients frontends really use, in a real page: `useChat` from
// @ai-sdk/react with nothing but `api` (HTTP), and `useAgentChat` from
// @cloudflare/ai-chat with `useAgent` from agents/react (WebSocket), both
// rendered with react-dom. Bundled by esbuild for the test; the test drives
// the hooks through `window.chat` and reads what they render and hold.
// Page URL: /?client=http|ws&service=<origin>&conversation=<id>&token=<jwt>
import { useChat } from '@ai-sdk/react';
import { useAgentChat } from '@cloudflare/ai-chat/react';
import { useAgent } from 'agents/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import { createElement as h, Suspense } from 'react';
import { createRoot } from 'react-dom/client';

const params = new URLSearchParams(location.search);
const service = params.get('service')!;
const conversation = params.get('conversation')!;
const token = params.get('token')!;

/** What the test may do and read (the hooks' own API, nothing more). */
interface Driver {
  status: string;
  messages: UIMessage[];
  send(text: string): Promise<void>;
  /** Sends text with one file, as `sendMessage({text, files})` with a FileList makes it: a FileUIPart, its bytes a data: URL. */
  sendFile(text: string, file: { name: string; type: string; base64: string }): Promise<void>;
  stop(): Promise<void>;
  regenerate(): Promise<void>;
  approve(toolCallId: string, approved: boolean): Promise<void>;
  clear(): void;
  /** The hook's own setMessages (useAgentChat sends the list to the service). */
  setMessages(messages: UIMessage[]): void;
  addToolOutput(toolCallId: string, output: unknown): Promise<void>;
  /** Answers a server's question (a data-elicitation part): over HTTP, or as a frame on the socket. */
  answerElicitation(
    id: string,
    action: 'accept' | 'decline' | 'cancel',
    content?: Record<string, unknown>,
  ): Promise<void>;
}
declare global {
  interface Window {
    chat?: Driver;
    errors: string[];
  }
}
window.errors = [];

type Chat = Pick<
  ReturnType<typeof useChat>,
  | 'messages'
  | 'status'
  | 'sendMessage'
  | 'stop'
  | 'regenerate'
  | 'addToolApprovalResponse'
  | 'setMessages'
  | 'addToolOutput'
  | 'error'
>;

const answerOverHttp = async (id: string, action: string, content?: Record<string, unknown>) => {
  const response = await fetch(`${service}/v1/conversations/${conversation}/elicitations/${id}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ action, ...(content ? { content } : {}) }),
  });
  if (!response.ok) throw new Error(`answer refused: ${response.status}`);
};

function expose(
  chat: Chat,
  extra: { clear(): void; stop(): Promise<void>; answerElicitation?: Driver['answerElicitation'] },
) {
  window.chat = {
    status: chat.status,
    messages: chat.messages,
    send: (text) => chat.sendMessage({ text }),
    sendFile: async (text, file) => {
      const bytes = Uint8Array.from(atob(file.base64), (c) => c.charCodeAt(0));
      const list = new DataTransfer();
      list.items.add(new File([bytes], file.name, { type: file.type }));
      await chat.sendMessage({ text, files: list.files });
    },
    stop: extra.stop,
    regenerate: () => chat.regenerate(),
    approve: async (toolCallId, approved) => {
      const part = chat.messages
        .flatMap((m) => m.parts)
        .find((p) => 'toolCallId' in p && p.toolCallId === toolCallId) as { approval?: { id: string } } | undefined;
      await chat.addToolApprovalResponse({ id: part!.approval!.id, approved });
    },
    clear: extra.clear,
    setMessages: (messages) => chat.setMessages(messages),
    addToolOutput: async (toolCallId, output) =>
      void chat.addToolOutput({ tool: 'get_location', toolCallId, output } as never),
    answerElicitation: extra.answerElicitation ?? answerOverHttp,
  };
  if (chat.error) window.errors.push(chat.error.message);
}

function Transcript({ chat }: { chat: Chat }) {
  return h(
    'main',
    { 'data-status': chat.status },
    chat.messages.map((m) =>
      h(
        'article',
        { key: m.id, className: m.role, 'data-id': m.id },
        m.parts.map((p, i) =>
          p.type === 'text'
            ? h('p', { key: i }, p.text)
            : 'toolCallId' in p
              ? h('p', { key: i, className: 'tool', 'data-state': p.state }, `${p.type} ${p.state}`)
              : null,
        ),
      ),
    ),
  );
}

/** useChat with only `api` (and the token): the zero-configuration HTTP client. */
function HttpClient() {
  const chat = useChat({
    id: conversation,
    transport: new DefaultChatTransport({ api: `${service}/v1/chat`, headers: { Authorization: `Bearer ${token}` } }),
    // The AI SDK's own approval flow: answer, then the SDK sends the conversation on.
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    resume: true,
  });
  expose(chat, {
    clear: () => chat.setMessages([]),
    // useChat's stop() only drops the client's stream; the turn is stopped on the service with one call.
    stop: async () => {
      await chat.stop();
      await fetch(`${service}/v1/conversations/${conversation}/stream`, {
        method: 'DELETE',
        headers: { Authorization: `Bearer ${token}` },
      });
    },
  });
  return h(Transcript, { chat });
}

/** useAgentChat over the conversation's WebSocket; the token rides as a subprotocol, never in the URL. */
function SocketClient() {
  const agent = useAgent({
    agent: 'conversation',
    name: conversation,
    host: new URL(service).host,
    basePath: `v1/conversations/${conversation}/ws`,
    protocols: ['mcp-ondemand', `bearer.${token}`],
  });
  const chat = useAgentChat({
    agent,
    // The first load: GET <socket URL>/get-messages, with the same token.
    headers: { Authorization: `Bearer ${token}` },
    // A tool the page runs itself: its schema goes to the service with each request; the model's call comes back here.
    tools: {
      get_location: {
        description: 'Where the user is (asks the browser)',
        parameters: { type: 'object', properties: {} },
        execute: async () => ({ city: 'Lisbon' }),
      },
    },
    onToolCall: async ({
      toolCall,
      addToolOutput,
    }: {
      toolCall: { toolName: string; toolCallId: string };
      addToolOutput: (o: { toolCallId: string; output: unknown }) => void;
    }) => {
      if (toolCall.toolName === 'get_location')
        addToolOutput({ toolCallId: toolCall.toolCallId, output: { city: 'Lisbon' } });
    },
  } as unknown as Parameters<typeof useAgentChat>[0]);
  expose(chat as unknown as Chat, {
    clear: () => chat.clearHistory(),
    stop: async () => chat.stop(),
    answerElicitation: async (id, action, content) =>
      void agent.send(JSON.stringify({ type: 'mcp_elicitation_response', id, action, content })),
  });
  return h(Transcript, { chat: chat as unknown as Chat });
}

window.addEventListener('error', (e) => window.errors.push(String(e.message)));
createRoot(document.getElementById('root')!).render(
  h(Suspense, { fallback: h('p', {}, 'loading') }, h(params.get('client') === 'ws' ? SocketClient : HttpClient)),
);
