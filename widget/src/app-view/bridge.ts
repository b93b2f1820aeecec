import {
  type CallToolResult,
  type HostContext,
  type InitializeResult,
  type Json,
  METHOD_NOT_FOUND,
  INVALID_PARAMS,
  type RpcMessage,
  SERVER_ERROR,
} from './protocol';

/** What the view may ask of the host; the bridge only checks shapes and speaks the protocol. */
export interface BridgeHandlers {
  /** The answer to `ui/initialize`, made when the view asks (the frame's width is known by then); asked again if the view reloads. */
  initialize(): InitializeResult;
  /** `ui/notifications/initialized`: the view is ready for its tool input. */
  initialized(): void;
  /** `tools/call`: rejects with an `RpcError` (or any error) to answer the view with a JSON-RPC error. */
  callTool(name: string, args: Json): Promise<CallToolResult>;
  /** `ui/notifications/size-changed`: the height the view's content needs, in CSS pixels. */
  resize(height: number): void;
  /** `ui/open-link`: true if the link was opened. */
  openLink(url: string): boolean;
  /** `ui/message`: the view's message for the chat; true if the chat took it. */
  message(params: Json): boolean;
  /** `notifications/message`: the view's log line. */
  log(params: Json): void;
}

/** An error the view receives as a JSON-RPC error with this code. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Messages a view may send in one second; more are dropped (a view that loops must not busy the page). */
const RATE_PER_SECOND = 100;

/**
 * The host side of the MCP Apps postMessage protocol for ONE sandboxed
 * iframe (the official `app-bridge` is ~149 KB gzipped with zod and the
 * SDK's Protocol, so the widget speaks the protocol itself). A message
 * counts only if it comes from that iframe's window (`event.source`): the
 * view's origin is opaque (`null`, the frame is sandboxed without
 * `allow-same-origin`), so the source, not the origin, identifies it; and
 * for the same reason messages go to it with the target origin `*`, always
 * to that one window. Nothing is sent to the view before it said
 * `ui/notifications/initialized`: notifications wait in a queue.
 */
export class ViewBridge {
  private nextId = 1;
  private readonly pending = new Map<number, (answered: boolean) => void>();
  private readonly queue: RpcMessage[] = [];
  private ready = false;
  private closed = false;
  private window = { start: 0, count: 0 };
  private readonly listener = (event: MessageEvent) => {
    if (!this.closed && event.source === this.frame.contentWindow && this.withinRate()) this.receive(event.data);
  };

  constructor(
    private readonly frame: HTMLIFrameElement,
    private readonly handlers: BridgeHandlers,
  ) {
    window.addEventListener('message', this.listener);
  }

  get initialized(): boolean {
    return this.ready;
  }

  toolInput(args: Json): void {
    this.notify('ui/notifications/tool-input', { arguments: args });
  }
  toolResult(result: CallToolResult): void {
    this.notify('ui/notifications/tool-result', result);
  }
  toolCancelled(reason: string): void {
    this.notify('ui/notifications/tool-cancelled', { reason });
  }
  /** What changed of the host context (the theme): only the changed fields, as the spec has it. */
  hostContextChanged(context: Partial<HostContext>): void {
    // Queued until the view is initialized; one queued before `ui/initialize` is dropped there (its answer has it).
    this.notify('ui/notifications/host-context-changed', context);
  }

  /**
   * `ui/resource-teardown`, waiting up to `timeoutMs` for the view's answer
   * (it may save its state); then the bridge stops listening. The caller
   * removes the iframe after this resolves.
   */
  async teardown(reason: string, timeoutMs = 500): Promise<void> {
    if (this.ready && !this.closed) {
      const id = this.nextId++;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        this.pending.set(id, () => (clearTimeout(timer), resolve()));
        this.post({ jsonrpc: '2.0', id, method: 'ui/resource-teardown', params: { reason } });
      });
    }
    this.close();
  }

  close(): void {
    this.closed = true;
    window.removeEventListener('message', this.listener);
    for (const settle of this.pending.values()) settle(false);
    this.pending.clear();
  }

  private notify(method: string, params: Json): void {
    const message: RpcMessage = { jsonrpc: '2.0', method, params };
    if (this.ready) this.post(message);
    else this.queue.push(message);
  }

  private post(message: RpcMessage): void {
    if (!this.closed) this.frame.contentWindow?.postMessage(message, '*');
  }

  private withinRate(): boolean {
    const now = Date.now();
    if (now - this.window.start > 1000) this.window = { start: now, count: 0 };
    return ++this.window.count <= RATE_PER_SECOND;
  }

  private receive(data: unknown): void {
    if (!data || typeof data !== 'object' || (data as RpcMessage).jsonrpc !== '2.0') return;
    const message = data as RpcMessage;
    const params = message.params && typeof message.params === 'object' ? message.params : {};
    const id = message.id;
    if (typeof message.method === 'string') {
      if (typeof id === 'string' || typeof id === 'number') void this.answer(id, message.method, params);
      else this.notified(message.method, params);
    } else if (typeof id === 'number') {
      this.pending.get(id)?.(true);
      this.pending.delete(id);
    }
  }

  private notified(method: string, params: Json): void {
    switch (method) {
      case 'ui/notifications/initialized':
        if (this.ready) return;
        this.ready = true;
        for (const message of this.queue.splice(0)) this.post(message);
        this.handlers.initialized();
        return;
      case 'ui/notifications/size-changed':
        if (typeof params.height === 'number' && Number.isFinite(params.height)) this.handlers.resize(params.height);
        return;
      case 'notifications/message':
        this.handlers.log(params);
        return;
      // Anything else (request-teardown: the host decides; unknown notifications) is ignored.
    }
  }

  private async answer(id: string | number, method: string, params: Json): Promise<void> {
    try {
      let result: unknown;
      switch (method) {
        case 'ui/initialize':
          // Again: the view reloaded (its state is gone); it gets its input and result anew once initialized.
          this.ready = false;
          this.queue.length = 0;
          result = this.handlers.initialize();
          break;
        case 'ping':
          result = {};
          break;
        case 'tools/call': {
          const args = params.arguments ?? {};
          if (typeof params.name !== 'string' || typeof args !== 'object' || Array.isArray(args))
            throw new RpcError(INVALID_PARAMS, 'tools/call needs a name and an arguments object');
          result = await this.handlers.callTool(params.name, args as Json);
          break;
        }
        case 'ui/request-display-mode':
          result = { mode: 'inline' };
          break;
        case 'ui/open-link':
          result = typeof params.url === 'string' && this.handlers.openLink(params.url) ? {} : { isError: true };
          break;
        case 'ui/message':
          result = this.handlers.message(params) ? {} : { isError: true };
          break;
        default:
          throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${method}`);
      }
      this.post({ jsonrpc: '2.0', id, result });
    } catch (error) {
      const code = error instanceof RpcError ? error.code : SERVER_ERROR;
      this.post({
        jsonrpc: '2.0',
        id,
        error: { code, message: error instanceof Error ? error.message : String(error) },
      });
    }
  }
}
