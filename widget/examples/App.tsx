// React 19: <mcp-ondemand-chat> in JSX, typed by ../mcp-ondemand-chat.react.d.ts.
import { useRef, useState } from 'react';
import type { McpOndemandChatElement, McpOndemandChatMessage } from '../mcp-ondemand-chat';

export function Help({ initialToken, refresh }: { initialToken: string; refresh: () => Promise<string> }) {
  const [token, setToken] = useState(initialToken);
  const [last, setLast] = useState<McpOndemandChatMessage | null>(null);
  const ref = useRef<McpOndemandChatElement>(null);
  return (
    <section>
      <mcp-ondemand-chat
        ref={ref}
        endpoint="https://chat.example.com"
        token={token}
        heading="Help"
        placeholder="Ask about your order"
        persist="none"
        views="on"
        theme="auto"
        threads="off"
        suggestions={['Where is my order?', { label: 'Returns', prompt: 'How do I return an item?' }]}
        className="chat"
        style={{ maxWidth: 520 }}
        onmcp-ondemand-token-expired={async () => setToken(await refresh())}
        onmcp-ondemand-message={(event) => setLast(event.detail.message)}
        onmcp-ondemand-error={(event) => console.warn(event.detail.code, event.detail.title)}
      />
      {last ? <p>{last.id}</p> : null}
      {/* @ts-expect-error persist is "none" or "session" */}
      <mcp-ondemand-chat persist="local" />
      {/* @ts-expect-error theme is "light", "dark" or "auto" */}
      <mcp-ondemand-chat theme="blue" />
      {/* @ts-expect-error views is "on" or "off" */}
      <mcp-ondemand-chat views="none" />
      {/* @ts-expect-error the conversation event's detail has no `token` */}
      <mcp-ondemand-chat onmcp-ondemand-conversation={(event) => event.detail.token} />
    </section>
  );
}
