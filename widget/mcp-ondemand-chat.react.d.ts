// <mcp-ondemand-chat> in React 19 JSX (with mcp-ondemand-chat.d.ts next to
// it). React 19 passes a custom element's props as attributes, or as
// properties where the element has one (`suggestions`, `theme`, `threads`,
// `strings`: `suggestions` then takes an array too), and turns `on<event-name>` props
// into listeners for that exact event name:
//
//   <mcp-ondemand-chat endpoint="https://chat.example.com" token={token}
//     onmcp-ondemand-token-expired={() => refreshToken()} />
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type {
  McpOndemandChatAttributes,
  McpOndemandChatElement,
  McpOndemandChatEventMap,
  McpOndemandChatStrings,
  McpOndemandChatSuggestion,
} from './mcp-ondemand-chat';

/** `on<event-name>` props for the element's events. */
export type McpOndemandChatEventProps = {
  [K in keyof McpOndemandChatEventMap as `on${K}`]?: (event: McpOndemandChatEventMap[K]) => void;
};

export type McpOndemandChatProps = DetailedHTMLProps<HTMLAttributes<McpOndemandChatElement>, McpOndemandChatElement> &
  Omit<McpOndemandChatAttributes, 'suggestions' | 'lang'> & {
    suggestions?: string | ReadonlyArray<string | McpOndemandChatSuggestion>;
    strings?: McpOndemandChatStrings;
  } & McpOndemandChatEventProps;

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'mcp-ondemand-chat': McpOndemandChatProps;
    }
  }
}
