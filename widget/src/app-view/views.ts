import type { AppToolCall } from '../../../shared/api/views';
import type { ChatApi } from '../api';
import { h } from '../dom';
import type { Locale } from '../i18n/locale';
import type { ToolPart } from '../types';
import { RpcError, ViewBridge } from './bridge';
import { clampHeight, MAX_HEIGHT, viewFrame } from './frame';
import { type CallToolResult, type InitializeResult, type Json, PROTOCOL_VERSION, SERVER_ERROR } from './protocol';

/** The widget's version, as `hostInfo` tells views. */
const HOST_VERSION = '0.1.0';
/** A view not initialized by then (no `ui/notifications/initialized`) is given up: the step shows the text result. */
const INITIALIZE_TIMEOUT_MS = 5_000;
/** The longest message a view may put in the box (`ui/message`): a sentence or a few, not a document. */
const MAX_MESSAGE_CHARS = 4_000;
/** Log lines one view may write to the console (its `notifications/message`). */
const MAX_LOG_LINES = 50;

export interface AppViewsDeps {
  api: ChatApi;
  /** The conversation the views belong to. */
  conversation(): string | null;
  /** False when the element has `views="off"`. */
  enabled(): boolean;
  /** Applies a view's new height (the log stays at its end if it was there). */
  resize(change: () => void): void;
  /** A view's message (`ui/message`) into the composer: false when the box holds what the person typed. */
  compose(text: string): boolean;
  /** The theme the chat shows: views get it in their host context, and a notification when it flips (setTheme). */
  theme(): 'light' | 'dark';
  /** The widget's language: its strings here, and the view's `locale` (host context). */
  locale(): Locale;
}

/** One view: its element in the step, the iframe in it, and the bridge to it. */
interface LiveView {
  app: AppToolCall;
  node: HTMLElement;
  approvals: HTMLElement;
  /** What became of the view's message (`ui/message`), said below it. */
  notice: HTMLElement;
  bridge?: ViewBridge;
  inputSent: boolean;
  resultSent: boolean;
  failed: boolean;
  timer?: ReturnType<typeof setTimeout>;
  logLines: number;
  /** Tools the person denied this view: asked no more. */
  denied: Set<string>;
  /** Set while an approval card waits: answers it "Deny" (the view is going away). */
  deny?: () => void;
}

/**
 * The MCP Apps views of the transcript, by tool call id. A view's element is
 * made once and then kept: the transcript re-renders a message's DOM while
 * it streams, and an iframe that is moved or removed reloads, so the
 * renderer puts this same element back in place instead of a copy
 * (transcript-view.ts). A later `data-mcp-app` part (the call's result,
 * same part id) reaches the live view through `node()` again: its bridge
 * delivers `tool-result`, no reload. Before a view's element leaves the
 * page it gets `ui/resource-teardown` (`retire`).
 */
export class AppViews {
  private readonly views = new Map<string, LiveView>();

  constructor(private readonly deps: AppViewsDeps) {}

  /**
   * The view's element for the step of `part`, or undefined when the step
   * shows no view (views off; waiting for approval; denied; a call that
   * failed before any result, loaded from history).
   */
  node(app: AppToolCall, part: ToolPart): HTMLElement | undefined {
    const live = this.views.get(app.toolCallId);
    if (!live && !this.deps.enabled()) return undefined; // views="off": no new view (one shown already stays)
    if (live) {
      live.app = app;
      this.deliver(live);
      return live.node;
    }
    if (
      part.state === 'approval-requested' ||
      part.state === 'output-denied' ||
      (app.error !== undefined && !app.result)
    )
      return undefined;
    const conversation = this.deps.conversation();
    if (!conversation) return undefined;
    const view: LiveView = {
      app,
      node: h('div', {
        class: 'app-view',
        role: 'group',
        'aria-label': this.deps.locale().t('views.label', { tool: app.tool }),
      }),
      approvals: h('div', {}),
      notice: h('p', { class: 'notice', role: 'status', hidden: true }),
      inputSent: false,
      resultSent: false,
      failed: false,
      logLines: 0,
      denied: new Set(),
    };
    view.node.append(view.approvals, view.notice);
    this.views.set(app.toolCallId, view);
    void this.mount(view, conversation);
    return view.node;
  }

  /**
   * Tears down the views inside `el` (a message leaving the log): resolves
   * once they answered `ui/resource-teardown` (at most ~500 ms); undefined
   * when there is none, so the caller removes `el` at once.
   */
  retire(el: Element, reason: string): Promise<void> | undefined {
    const inside = [...this.views.entries()].filter(([, view]) => el.contains(view.node));
    if (!inside.length) return undefined;
    for (const [id] of inside) this.views.delete(id);
    return Promise.all(inside.map(([, view]) => this.close(view, reason))).then(() => undefined);
  }

  /** The chat's theme flipped: every view is told (`ui/notifications/host-context-changed`), as the spec has it. */
  setTheme(theme: 'light' | 'dark'): void {
    for (const view of this.views.values()) view.bridge?.hostContextChanged({ theme });
  }

  /** The element left the page: its iframes are gone already, so no teardown can be sent; stop listening. */
  closeAll(): void {
    for (const view of this.views.values()) void this.close(view, 'closed', 0);
    this.views.clear();
  }

  private async mount(view: LiveView, conversation: string): Promise<void> {
    const { app } = view;
    try {
      const link = await this.deps.api.viewLink(conversation, { server: app.server, uri: app.resourceUri });
      if (this.views.get(app.toolCallId) !== view) return; // retired meanwhile
      const frame = viewFrame(
        new URL(link.url, this.deps.api.endpoint).href,
        link.security,
        `${app.tool} (${app.server})`,
      );
      view.bridge = new ViewBridge(frame, {
        initialize: () => {
          view.inputSent = view.resultSent = false;
          this.deliver(view); // held by the bridge until the view says it is initialized
          return initializeResult(app, frame, this.deps.theme(), this.deps.locale().lang);
        },
        initialized: () => clearTimeout(view.timer),
        callTool: (name, args) => this.callTool(view, conversation, name, args),
        resize: (height) => this.deps.resize(() => (frame.style.height = `${clampHeight(height)}px`)),
        openLink,
        message: (params) => this.message(view, params),
        log: (params) => {
          if (view.logLines++ < MAX_LOG_LINES)
            console.debug(`[mcp-app ${app.server}/${app.tool}]`, params.level ?? 'info', params.data);
        },
      });
      view.timer = setTimeout(() => view.bridge?.initialized || this.fail(view), INITIALIZE_TIMEOUT_MS);
      view.node.prepend(frame);
      this.deliver(view);
    } catch {
      this.fail(view);
    }
  }

  /** Tool input once, then the result (or the cancellation) once it is there; the bridge holds them until the view is ready. */
  private deliver(view: LiveView): void {
    const { app, bridge } = view;
    if (!bridge || view.failed) return;
    if (!view.inputSent) {
      view.inputSent = true;
      bridge.toolInput(app.input);
    }
    if (view.resultSent) return;
    if (app.result) bridge.toolResult(app.result as CallToolResult);
    else if (app.error !== undefined) bridge.toolCancelled(app.error);
    else return;
    view.resultSent = true;
  }

  /** The view could not be shown: the step above it (the text result) is what the person sees. */
  private fail(view: LiveView): void {
    if (view.failed) return;
    view.failed = true;
    clearTimeout(view.timer);
    view.bridge?.close();
    view.node.replaceChildren(h('p', { class: 'notice' }, this.deps.locale().t('views.failed')));
  }

  private async close(view: LiveView, reason: string, timeoutMs = 500): Promise<void> {
    clearTimeout(view.timer);
    view.approvals.replaceChildren(); // a pending approval resolves as denied (its buttons are gone)
    view.deny?.();
    await view.bridge?.teardown(reason, timeoutMs);
    view.node.querySelector('iframe')?.remove();
  }

  /**
   * A view's tool call, through the service (which checks the tool is the
   * view's server's and applies the model's approval rules). When the
   * service asks for approval, the person is asked here, outside the
   * iframe; the view only hears the outcome.
   */
  private async callTool(view: LiveView, conversation: string, name: string, args: Json): Promise<CallToolResult> {
    const call = async (approved: boolean) => {
      try {
        return await this.deps.api.callViewTool(conversation, {
          server: view.app.server,
          name,
          arguments: args,
          ...(approved ? { approved: true } : {}),
        });
      } catch (error) {
        throw new RpcError(SERVER_ERROR, messageOf(error));
      }
    };
    const first = await call(false);
    if ('result' in first) return first.result;
    if (view.deny) throw new RpcError(SERVER_ERROR, 'Another call of this view is waiting for the user.');
    // Denied once, denied for the view's life: a view cannot wear the person down by asking again.
    if (view.denied.has(name) || !(await this.ask(view, name, args))) {
      view.denied.add(name);
      throw new RpcError(SERVER_ERROR, 'Denied by the user');
    }
    const allowed = await call(true);
    if ('result' in allowed) return allowed.result;
    throw new RpcError(SERVER_ERROR, allowed.approvalRequired.message);
  }

  /**
   * `ui/message` ("Send Message" in a view): its text goes into the composer, where the person reads it and sends it,
   * or not. Sent on their behalf it would be the view speaking as the person; dropped, a button that does nothing.
   * What became of it is said below the view, whatever it was.
   */
  private message(view: LiveView, params: Json): boolean {
    const blocks = Array.isArray(params.content) ? (params.content as Json[]) : [];
    const text = blocks
      .flatMap((b) => (b?.type === 'text' && typeof b.text === 'string' ? [b.text] : []))
      .join('\n\n')
      .trim();
    const t = this.deps.locale().t.bind(this.deps.locale());
    const refused =
      params.role !== 'user' || !text
        ? t('views.notText')
        : text.length > MAX_MESSAGE_CHARS
          ? t('views.tooLong', { max: MAX_MESSAGE_CHARS })
          : undefined;
    const took = !refused && this.deps.compose(text);
    view.notice.textContent = refused ?? t(took ? 'views.put' : 'views.kept');
    view.notice.hidden = false;
    return took;
  }

  /** The approval card, in the step below the view (never inside it): true when allowed. */
  private ask(view: LiveView, name: string, args: Json): Promise<boolean> {
    return new Promise((resolve) => {
      const settle = (allowed: boolean) => () => {
        delete view.deny;
        view.approvals.replaceChildren();
        resolve(allowed);
      };
      view.deny = settle(false);
      const t = this.deps.locale().t.bind(this.deps.locale());
      view.approvals.replaceChildren(
        h(
          'div',
          { class: 'approval', role: 'group', 'aria-label': t('views.approval') },
          // The chat's own approval card's words (transcript.ts): one wording for the same decision.
          h('p', {}, t('views.wants', { tool: name, server: view.app.server })),
          h('pre', { 'aria-label': t('transcript.arguments') }, JSON.stringify(args, null, 2)),
          h(
            'div',
            { class: 'row' },
            h('button', { type: 'button', class: 'primary', onclick: settle(true) }, t('transcript.approve')),
            h('button', { type: 'button', class: 'secondary', onclick: settle(false) }, t('transcript.deny')),
          ),
        ),
      );
    });
  }
}

/** The answer to `ui/initialize`: who the host is, what it implements, and the view's place (inline, as wide as the step, up to MAX_HEIGHT tall). */
function initializeResult(
  app: AppToolCall,
  frame: HTMLIFrameElement,
  theme: 'light' | 'dark',
  locale: string,
): InitializeResult {
  return {
    protocolVersion: PROTOCOL_VERSION,
    hostInfo: { name: 'mcp-ondemand', version: HOST_VERSION },
    hostCapabilities: { serverTools: {}, logging: {}, message: { text: {} } },
    hostContext: {
      toolInfo: { id: app.toolCallId, tool: { name: app.tool, inputSchema: { type: 'object' } } },
      theme,
      platform: 'web',
      displayMode: 'inline',
      availableDisplayModes: ['inline'],
      containerDimensions: { maxHeight: MAX_HEIGHT, ...(frame.clientWidth ? { width: frame.clientWidth } : {}) },
      locale,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    },
  };
}

/** `ui/open-link`: http(s) only, in a new tab that cannot reach this page. */
function openLink(url: string): boolean {
  if (!/^https?:\/\//i.test(url)) return false;
  window.open(url, '_blank', 'noopener,noreferrer');
  return true;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
