import { asSchema, tool, zodSchema, type Tool } from 'ai';
import { z } from 'zod';
import type { SyntheticTool } from './tool';

const INPUT = zodSchema(
  z.object({
    name: z.string().min(1).describe('The tool’s name, as search_tools gave it'),
    arguments: z.record(z.string(), z.unknown()).optional().describe('Its arguments, as its JSON Schema says'),
  }),
);

type CallToolInput = { name: string; arguments?: Record<string, unknown> | undefined };

/**
 * `call_tool`: on models whose provider cannot load a tool definition mid-conversation (tools/tool-offer.ts,
 * `dispatcher`), the tools search_tools finds are run through this one tool, so the request's tools array never
 * changes. The call is the named tool's own: its arguments checked against its schema, its approval asked for when it
 * needs one, its result (and MCP Apps view, task, progress) as if it had been called directly.
 */
export const callTool: SyntheticTool = {
  name: 'call_tool',
  group: 'tools',
  offeredWhen: (facts) => facts.hiddenTools > 0 && facts.toolDispatcher,
  sentence: () => 'A tool search_tools found is run with call_tool, by its name.',
  create: (host) => {
    const target = (name: string): Tool | undefined =>
      host.mcpTools?.offer.hidden.has(name) || host.mcpTools?.offer.offered.has(name)
        ? host.mcpTools.tools[name]
        : undefined;
    const checked = async (input: CallToolInput) => {
      const called = target(input.name);
      if (!called)
        return { error: `No server tool "${input.name}": search_tools finds them by what they do.` } as const;
      const validation = await asSchema(called.inputSchema).validate?.(input.arguments ?? {});
      if (validation && !validation.success) return { error: validation.error.message } as const;
      return { called, args: validation?.value ?? input.arguments ?? {} } as const;
    };
    return tool({
      description: 'Call a server tool that search_tools found, by its name, with its arguments.',
      inputSchema: INPUT,
      // The called tool's rule: a call that would not run (unknown tool, arguments that do not fit) is never asked about.
      needsApproval: async (input: CallToolInput, options) => {
        const call = await checked(input);
        if ('error' in call) return false;
        const rule = call.called.needsApproval;
        return typeof rule === 'function' ? rule(call.args as never, options as never) : rule === true;
      },
      execute: async (input: CallToolInput, options) => {
        const call = await checked(input);
        if ('error' in call) throw new Error(call.error);
        if (!call.called.execute) throw new Error(`The tool "${input.name}" cannot be run here.`);
        return call.called.execute(call.args as never, options as never);
      },
      toModelOutput: ({ output, toolCallId, input }) => {
        const called = target((input as CallToolInput).name);
        return called?.toModelOutput
          ? called.toModelOutput({ output, toolCallId, input: (input as CallToolInput).arguments ?? {} } as never)
          : typeof output === 'string'
            ? { type: 'text', value: output }
            : { type: 'json', value: output as never };
      },
    });
  },
};
