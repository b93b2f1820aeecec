import type { Feedback, FeedbackBody } from '../../shared/api/feedback';
import type { UploadedFile, UploadedFiles } from '../../shared/api/files';
import type {
  ApprovalBody,
  ElicitationAnswerBody,
  RunPromptBody,
  ThreadList,
  TitleSet,
} from '../../shared/api/conversations';
import type {
  ViewLink,
  ViewLinkBody,
  ViewToolCallApprovalRequired,
  ViewToolCallBody,
  ViewToolCallResult,
} from '../../shared/api/views';
import type { Catalog, CompleteRequest, CompleteResponse, Connection, Message, PromptPreview, Snapshot } from './types';

/**
 * An error from the service, or about reaching it. `status` 0 means no HTTP
 * answer: `unreachable` (the service is down or the network is) or
 * `origin_refused` (the service is up but its CORS policy refuses this page).
 */
export class ChatError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/**
 * The HTTP API of mcp-ondemand, as the widget uses it. The token is read on
 * every request, so a host page that swaps it (after `token-expired`) is
 * heard at once.
 */
export class ChatApi {
  constructor(
    readonly endpoint: string,
    private readonly token: () => string | null,
  ) {}

  createConversation(): Promise<{ id: string }> {
    return this.json('POST', '/v1/conversations');
  }
  /** The person's conversations, most recent activity first, a page at a time (`cursor`: the last page's `nextCursor`). */
  conversations(cursor?: string): Promise<ThreadList> {
    return this.json('GET', `/v1/conversations${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`);
  }
  /** Sets a conversation's title ("" goes back to the first words of its first message). */
  rename(id: string, title: string): Promise<TitleSet> {
    return this.json('PATCH', `/v1/conversations/${encodeURIComponent(id)}`, { title });
  }
  /** Deletes a conversation: its history, files and cache (204). */
  deleteConversation(id: string): Promise<Response> {
    return this.request('DELETE', `/v1/conversations/${encodeURIComponent(id)}`);
  }
  conversation(id: string): Promise<Snapshot> {
    return this.json('GET', `/v1/conversations/${encodeURIComponent(id)}`);
  }
  /** The newest `limit` messages (`GET …/messages`), oldest first: what a poll needs, not the whole history. */
  latestMessages(id: string, limit: number): Promise<{ messages: Message[]; hasMore: boolean }> {
    return this.json('GET', `/v1/conversations/${encodeURIComponent(id)}/messages?limit=${limit}`);
  }
  catalog(id: string): Promise<Catalog> {
    return this.json('GET', `/v1/conversations/${encodeURIComponent(id)}/catalog`);
  }
  complete(id: string, request: CompleteRequest): Promise<CompleteResponse> {
    return this.json('POST', `/v1/conversations/${encodeURIComponent(id)}/complete`, request);
  }
  previewPrompt(id: string, prompt: RunPromptBody): Promise<PromptPreview> {
    return this.json('POST', `/v1/conversations/${encodeURIComponent(id)}/prompts/run?preview=1`, prompt);
  }

  /** The turns: each answers with the AI SDK UI message stream (SSE). */
  sendMessage(
    id: string,
    body: { text: string; attachments: Array<{ server: string; uri: string }>; language?: string },
    signal: AbortSignal,
  ): Promise<Response> {
    return this.request('POST', `/v1/conversations/${encodeURIComponent(id)}/messages`, body, signal);
  }
  runPrompt(id: string, prompt: RunPromptBody, signal: AbortSignal): Promise<Response> {
    return this.request('POST', `/v1/conversations/${encodeURIComponent(id)}/prompts/run`, prompt, signal);
  }
  answerApproval(id: string, answer: ApprovalBody, signal: AbortSignal): Promise<Response> {
    return this.request('POST', `/v1/conversations/${encodeURIComponent(id)}/approvals`, answer, signal);
  }
  /** The user's answer to a server's question (a `data-elicitation` part); the running turn goes on. */
  answerElicitation(id: string, elicitationId: string, answer: ElicitationAnswerBody): Promise<unknown> {
    return this.json(
      'POST',
      `/v1/conversations/${encodeURIComponent(id)}/elicitations/${encodeURIComponent(elicitationId)}`,
      answer,
    );
  }
  /**
   * A new answer in place of `messageId` (the chat protocol's regenerate, as
   * `useChat`'s `regenerate()` sends it to `/v1/chat`): streamed like a turn.
   */
  regenerate(id: string, messageId: string, signal: AbortSignal): Promise<Response> {
    return this.request(
      'POST',
      '/v1/chat',
      { id, messages: [{ id: messageId, role: 'assistant', parts: [] }], trigger: 'regenerate-message', messageId },
      signal,
    );
  }

  /** The person's rating of an answer; a second one replaces the first. */
  rateAnswer(id: string, messageId: string, body: FeedbackBody): Promise<Feedback> {
    return this.json(
      'POST',
      `/v1/conversations/${encodeURIComponent(id)}/messages/${encodeURIComponent(messageId)}/feedback`,
      body,
    );
  }

  /** A link to a tool's view (MCP Apps): the URL the view's iframe loads, and the sandbox needs it declared. */
  viewLink(id: string, body: ViewLinkBody): Promise<ViewLink> {
    return this.json('POST', `/v1/conversations/${encodeURIComponent(id)}/views`, body);
  }
  /**
   * A view's tool call; `{approvalRequired}` (a 202) until the user allowed it (then again with `approved: true`).
   * Asked as a 202, not the 409 error: a view waiting for the person is no failed request in the browser's console.
   */
  callViewTool(
    id: string,
    body: Omit<ViewToolCallBody, 'onApprovalRequired'>,
  ): Promise<ViewToolCallResult | ViewToolCallApprovalRequired> {
    return this.json('POST', `/v1/conversations/${encodeURIComponent(id)}/views/call`, {
      ...body,
      onApprovalRequired: '202',
    });
  }

  /** The person's connections to the OAuth servers (never a token). */
  connections(): Promise<{ connections: Connection[] }> {
    return this.json('GET', '/v1/connections');
  }
  /** A fresh connect link (single use, 10 minutes), minted when the person asks to connect. */
  connectLink(server: string): Promise<{ server: string; url: string; expiresAt: string }> {
    return this.json('POST', `/v1/connections/${encodeURIComponent(server)}`);
  }
  /** Completes a connect with what the callback page handed back (only the link's owner can). */
  completeConnection(
    server: string,
    body: { state: string; code: string; iss?: string },
  ): Promise<{ server: string; status: 'connected' }> {
    return this.json('POST', `/v1/connections/${encodeURIComponent(server)}/complete`, body);
  }
  /** Revoked at the server where it can be, then forgotten. */
  disconnect(server: string): Promise<{ server: string; status: string; revoked: string }> {
    return this.json('DELETE', `/v1/connections/${encodeURIComponent(server)}`);
  }

  /**
   * Uploads one file (`POST …/files`, one `file` field) with its progress: XMLHttpRequest, because fetch reports no
   * upload progress. The same token and origin as every request; a refusal is the service's error (the limit named).
   */
  uploadFile(id: string, file: File, onProgress: (loaded: number) => void, signal: AbortSignal): Promise<UploadedFile> {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', new URL(`/v1/conversations/${encodeURIComponent(id)}/files`, this.endpoint));
      const token = this.token();
      if (token) xhr.setRequestHeader('authorization', `Bearer ${token}`);
      xhr.upload.onprogress = (event) => onProgress(event.loaded);
      xhr.onload = async () => {
        const response = new Response(xhr.responseText, {
          status: xhr.status,
          headers: { 'retry-after': xhr.getResponseHeader('retry-after') ?? '' },
        });
        if (response.ok) resolve(((await response.json()) as UploadedFiles).files[0]!);
        else reject(await errorOf(response));
      };
      xhr.onerror = async () => reject(await this.whyUnreachable());
      xhr.onabort = () => reject(new DOMException('The upload was stopped.', 'AbortError'));
      signal.addEventListener('abort', () => xhr.abort(), { once: true });
      const form = new FormData();
      form.append('file', file);
      xhr.send(form);
    });
  }
  /** Deletes one of the conversation's files (a chip removed before its message was sent). */
  deleteFile(id: string, name: string): Promise<Response> {
    return this.request('DELETE', `/v1/conversations/${encodeURIComponent(id)}/files/${encodeURIComponent(name)}`);
  }

  /** Stops the running turn (its stream then ends with an `abort` chunk; the partial answer is kept). */
  stop(id: string): Promise<{ stopped: boolean }> {
    return this.json('DELETE', `/v1/conversations/${encodeURIComponent(id)}/stream`);
  }
  /** The running turn from its first chunk, or null when none is running (204). */
  async resume(id: string, signal: AbortSignal): Promise<Response | null> {
    const response = await this.request('GET', `/v1/conversations/${encodeURIComponent(id)}/stream`, undefined, signal);
    return response.status === 204 ? null : response;
  }

  private async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    return (await (await this.request(method, path, body)).json()) as T;
  }

  private async request(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = {};
    const token = this.token();
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(new URL(path, this.endpoint), {
        method,
        headers,
        body: body === undefined ? null : JSON.stringify(body),
        signal: signal ?? null,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw await this.whyUnreachable();
    }
    if (!response.ok) throw await errorOf(response);
    return response;
  }

  /**
   * A failed fetch says nothing about why (the browser hides CORS refusals).
   * /health answers any origin: if it is reachable, the service is up and
   * refused this page's origin.
   */
  private async whyUnreachable(): Promise<ChatError> {
    const origin = globalThis.location?.origin ?? 'this page';
    try {
      const health = await fetch(new URL('/health', this.endpoint), { cache: 'no-store' });
      if (health.ok)
        return new ChatError(0, 'origin_refused', `The chat service does not accept requests from ${origin}.`);
    } catch {
      // Down or offline: said below.
    }
    return new ChatError(0, 'unreachable', 'The chat service cannot be reached.');
  }
}

async function errorOf(response: Response): Promise<ChatError> {
  const retryAfter = Number(response.headers.get('retry-after')) || undefined;
  try {
    const { error } = (await response.json()) as { error?: { code?: string; message?: string } };
    if (error?.code)
      return new ChatError(response.status, error.code, error.message ?? response.statusText, retryAfter);
  } catch {
    // Not our JSON error (a proxy's page): fall back to the status.
  }
  return new ChatError(
    response.status,
    `http_${response.status}`,
    response.statusText || `HTTP ${response.status}`,
    retryAfter,
  );
}
