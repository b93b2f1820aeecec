// Types for <mcp-ondemand-chat>, the chat widget (README, "Embed the chat
// widget"). Copy this file into a TypeScript project that embeds the widget
// (the service also serves it at /widget/mcp-ondemand-chat.d.ts) and include
// it (tsconfig "include", or `import type {} from './mcp-ondemand-chat'`):
// `document.querySelector('mcp-ondemand-chat')` is then typed, and so are its
// events. React users add mcp-ondemand-chat.react.d.ts next to it.
//
// widget/src/element.ts emits its events through these types, so they cannot
// drift from what the widget does (npm run typecheck).

/** The element's attributes (all strings; set them with setAttribute or in markup). */
export interface McpOndemandChatAttributes {
  /** The service's origin; default: where the script was loaded from. */
  endpoint?: string;
  /** The browser token, sent as `Authorization: Bearer`; set a new one at any time (after `mcp-ondemand-token-expired`). */
  token?: string;
  /** Continue this conversation id instead of starting one; set another id later to switch to it (between turns). */
  conversation?: string;
  /** `none`: forget the conversation on reload. By default its id is kept in sessionStorage (per endpoint, per tab). */
  persist?: 'none' | 'session';
  /** The header text (default "Assistant"). */
  heading?: string;
  /** The input's placeholder. */
  placeholder?: string;
  /** `off`: tools' interactive views (MCP Apps) are not shown; their steps show the text result only (a view already shown stays). Default: shown. */
  views?: 'on' | 'off';
  /**
   * Suggested prompts for the start screen of an empty conversation, as JSON: an array of strings or of
   * `{"label": …, "prompt": …}`; clicking one sends its prompt. Without it the start screen offers the servers' prompts.
   */
  suggestions?: string;
  /** `light` (default), `dark`, or `auto` (follows the system's `prefers-color-scheme`, live). */
  theme?: 'light' | 'dark' | 'auto';
  /** `off`: no thread list (conversations, New chat, rename, delete) in the header, for hosts that manage conversations themselves. Default: shown. */
  threads?: 'on' | 'off';
  /**
   * The widget's language (BCP 47: `de`, `pt-BR`); default: the page's (`<html lang>`), then the browser's. Its
   * strings, direction (`ar`, `he`, `fa`, `ur`: right to left), numbers, sizes and times, and the language the model
   * is asked to answer in. Shipped: en, de, fr, es, ja (complete), ar, he (the chat's shell); others fall back to
   * their base language, then English.
   */
  lang?: string;
}

/**
 * The host's own words for any of the widget's strings (the `strings` property): groups of the string table
 * (docs/FRONTENDS.md, "Languages"), each a partial object of its keys, e.g. `{ shell: { send: 'Ask' } }`.
 * Placeholders are ICU-like: `{server}`, `{count, plural, one {# file} other {# files}}`. Unknown keys are ignored.
 */
export type McpOndemandChatStrings = {
  readonly [group: string]: { readonly [key: string]: string } | undefined;
};

/** A suggested prompt of the start screen: the button's label, and what it sends. */
export interface McpOndemandChatSuggestion {
  label: string;
  prompt: string;
}

/** A part of a message (an AI SDK `UIMessage` part): text, reasoning, a tool step, or data. */
export type McpOndemandChatMessagePart =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | McpOndemandChatToolPart
  | { type: string; [key: string]: unknown };

/** A tool step: `tool-<name>` (read_resource, an MCP tool…), its input, and what the model received. */
export interface McpOndemandChatToolPart {
  type: `tool-${string}`;
  toolCallId: string;
  state:
    | 'input-streaming'
    | 'input-available'
    | 'approval-requested'
    | 'approval-responded'
    | 'output-available'
    | 'output-error'
    | 'output-denied';
  input?: unknown;
  output?: unknown;
  errorText?: string;
  approval?: { id: string; approved?: boolean; reason?: string };
  /**
   * An MCP tool's call: its server and its own name (the part's type carries the model's name, which may be rewritten
   * or suffixed), and `definition` when auto-approval did not apply because the tool's definition `changed` since it
   * was approved (or could not be checked yet: `unchecked`).
   */
  toolMetadata?: { server?: string; tool?: string; definition?: 'changed' | 'unchecked'; [key: string]: unknown };
}

/** A finished answer, as the widget built it from the stream (an AI SDK `UIMessage`). */
export interface McpOndemandChatMessage {
  id: string;
  role: 'user' | 'assistant' | 'system';
  parts: McpOndemandChatMessagePart[];
  metadata?: { [key: string]: unknown };
}

/** The `detail` of each event the element dispatches (they bubble out of the shadow root). */
export interface McpOndemandChatEventDetails {
  /** A conversation was created. */
  'mcp-ondemand-conversation': { id: string };
  /**
   * An answer finished without error: once per answer, when it is complete. An answer that stops for the person
   * (a tool call to approve) is not finished: `mcp-ondemand-waiting` fires then, and this event once it goes on and ends.
   */
  'mcp-ondemand-message': { message: McpOndemandChatMessage };
  /**
   * The answer waits for the person: `approval`, it stopped at a tool call to approve or deny (the card is in the
   * chat); `question`, a server asks something in a form in the chat. Once per approval or question; a host with
   * the chat out of sight (a closed panel, another tab) can bring it back or show a badge.
   */
  'mcp-ondemand-waiting': { waitingFor: 'approval' | 'question'; message: McpOndemandChatMessage };
  /** Something went wrong; `title` is what the widget shows. `status` 0: no connection. */
  'mcp-ondemand-error': { status: number; code: string; message: string; title: string };
  /** The token expired or was refused: get a new one and set the `token` attribute. */
  'mcp-ondemand-token-expired': { code: string };
  /**
   * The person rated an answer (👍 `up` / 👎 `down`) and the service kept it. A comment added afterwards is sent as
   * the same rating with `comment`, and fires again: the newest event for a `messageId` is the rating that stands.
   */
  'mcp-ondemand-feedback': { conversation: string; messageId: string; rating: 'up' | 'down'; comment?: string };
}

export type McpOndemandChatEventMap = {
  [K in keyof McpOndemandChatEventDetails]: CustomEvent<McpOndemandChatEventDetails[K]>;
};

/**
 * `<mcp-ondemand-chat>`. Configured by attributes; three are properties too, and `strings` is a property only (setting one sets its attribute, except
 * an array given to `suggestions`). It has no public methods of its own.
 */
export interface McpOndemandChatElement extends HTMLElement {
  /** The start screen's suggestions: set an array (of strings or `{label, prompt}`) or a JSON string; read: the parsed list. */
  get suggestions(): McpOndemandChatSuggestion[];
  set suggestions(value: string | ReadonlyArray<string | McpOndemandChatSuggestion>);
  theme: 'light' | 'dark' | 'auto';
  threads: 'on' | 'off';
  /** The host's own strings, over the language's (only a property: it is an object). */
  strings: McpOndemandChatStrings;
  addEventListener<K extends keyof McpOndemandChatEventMap>(
    type: K,
    listener: (this: McpOndemandChatElement, event: McpOndemandChatEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener<K extends keyof HTMLElementEventMap>(
    type: K,
    listener: (this: McpOndemandChatElement, event: HTMLElementEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ): void;
  removeEventListener<K extends keyof McpOndemandChatEventMap>(
    type: K,
    listener: (this: McpOndemandChatElement, event: McpOndemandChatEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener<K extends keyof HTMLElementEventMap>(
    type: K,
    listener: (this: McpOndemandChatElement, event: HTMLElementEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | EventListenerOptions,
  ): void;
}

declare global {
  interface HTMLElementTagNameMap {
    'mcp-ondemand-chat': McpOndemandChatElement;
  }
}
