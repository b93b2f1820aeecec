// Every other client scenario of the MCP conformance suite, at each wire it belongs to, against our MCP path (one
// conversation's McpSessions and the tools a turn gives the model, driven by scripts/conformance/mcp-client.ts):
// `npm run conformance:mcp`, one test per run.
import { describeConformanceSet } from './conformance-set';

describeConformanceSet('mcp', 'MCP conformance: client scenarios (the MCP path)');
