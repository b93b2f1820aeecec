// The embeddable chat widget: one <script> tag defines <mcp-ondemand-chat>.
// See docs/FRONTENDS.md ("Embed the chat widget") for attributes, theming and events.
import { McpOndemandChat } from './element';

if (!customElements.get('mcp-ondemand-chat')) customElements.define('mcp-ondemand-chat', McpOndemandChat);
