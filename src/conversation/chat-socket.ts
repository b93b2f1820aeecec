import type { UIMessage, UIMessageChunk } from 'ai';
import { ApiError } from '../errors';
import type { LiveStream } from '../loop/live-stream';
import { type Attachment, SendMessageBody, userMessageFrom } from './user-message';

/**
 * The WebSocket side of a conversation, speaking the subset of the `agents`
 * chat protocol that `useAgentChat` relies on: the transcript on connect,
 * `cf_agent_use_chat_request` → streamed `cf_agent_use_chat_response` frames,
 * tool approvals, clearing, and resuming a running turn after a reconnect.
 * The turn itself is the same as over HTTP.
 */
export interface ChatHost {
  messages(): UIMessage[];
  turn(userMessage: UIMessage, attachments: Attachment[]): Promise<LiveStream>;
  approve(request: { toolCallId: string; approved: boolean }): Promise<LiveStream>;
  clear(): void;
  /** The running turn and the request id it answers, if any. */
  running(): { id: string; stream: LiveStream } | undefined;
  setRunning(id: string, stream: LiveStream): void;
  broadcast(frame: object, except?: string): void;
}

export interface ChatConnection {
  id: string;
  send(data: string): void;
}

type Frame = { type?: string; id?: string; init?: { body?: unknown }; toolCallId?: string; approved?: boolean; probeId?: string };

export async function handleChatFrame(host: ChatHost, connection: ChatConnection, raw: string | ArrayBuffer): Promise<void> {
  let frame: Frame;
  try {
    frame = JSON.parse(typeof raw === 'string' ? raw : new TextDecoder().decode(raw)) as Frame;
  } catch {
    return; // not ours (the Agent base class has its own frames)
  }
  switch (frame.type) {
    case 'cf_agent_use_chat_request': {
      const id = frame.id ?? crypto.randomUUID();
      await respond(host, connection, id, async () => {
        let body: unknown;
        try {
          body = typeof frame.init?.body === 'string' ? JSON.parse(frame.init.body) : frame.init?.body;
        } catch {
          throw new ApiError(400, 'invalid_json', 'Request body is not valid JSON');
        }
        const parsed = SendMessageBody.safeParse(body);
        if (!parsed.success) throw new ApiError(400, 'invalid_body', 'Send {"messages": [...]} with a user message last');
        return host.turn(userMessageFrom(parsed.data), parsed.data.attachments ?? []);
      });
      return;
    }
    case 'cf_agent_tool_approval': {
      const { toolCallId, approved } = frame;
      if (typeof toolCallId !== 'string' || typeof approved !== 'boolean') return;
      await respond(host, connection, crypto.randomUUID(), () => host.approve({ toolCallId, approved }), true);
      return;
    }
    case 'cf_agent_chat_clear':
      host.clear();
      host.broadcast({ type: 'cf_agent_chat_clear' }, connection.id);
      return;
    case 'cf_agent_stream_resume_request': {
      const running = host.running();
      if (!running || running.stream.done) {
        connection.send(JSON.stringify({ type: 'cf_agent_stream_resume_none', ...(frame.probeId ? { probeId: frame.probeId } : {}) }));
        return;
      }
      connection.send(JSON.stringify({ type: 'cf_agent_stream_resuming', id: running.id, ...(frame.probeId ? { probeId: frame.probeId } : {}) }));
      return;
    }
    case 'cf_agent_stream_resume_ack': {
      const running = host.running();
      if (running && running.id === frame.id) await pipe(running.stream, connection, running.id, { replay: true });
      return;
    }
  }
}

/** Runs one turn for a request and streams it to the connection; errors become an error frame. */
async function respond(host: ChatHost, connection: ChatConnection, id: string, start: () => Promise<LiveStream>, continuation = false) {
  let stream: LiveStream;
  try {
    stream = await start();
  } catch (error) {
    const message = error instanceof ApiError ? error.message : 'Internal error';
    connection.send(JSON.stringify({ type: 'cf_agent_use_chat_response', id, body: message, done: true, error: true }));
    return;
  }
  host.setRunning(id, stream);
  await pipe(stream, connection, id, { continuation });
  host.broadcast({ type: 'cf_agent_chat_messages', messages: host.messages() }, connection.id);
}

async function pipe(stream: LiveStream, connection: ChatConnection, id: string, flags: { continuation?: boolean; replay?: boolean }) {
  const reader = stream.reader().getReader();
  let failed = false;
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    const chunk: UIMessageChunk = next.value;
    if (chunk.type === 'error') failed = true;
    connection.send(JSON.stringify({ type: 'cf_agent_use_chat_response', id, body: JSON.stringify(chunk), done: false, ...(flags.continuation ? { continuation: true } : {}) }));
  }
  connection.send(JSON.stringify({ type: 'cf_agent_use_chat_response', id, body: '', done: true, outcome: failed ? 'error' : 'completed', ...(flags.continuation ? { continuation: true } : {}) }));
}
