import { tool, zodSchema } from 'ai';
import { z } from 'zod';
import { templateLine } from '../../prompt/catalog-lines';
import { pick } from './tool-host';
import type { SyntheticTool } from './tool';

const INPUT = zodSchema(z.object({ server: z.string().optional() }));

/** The resource templates the catalog does not show. */
export const listResourceTemplates: SyntheticTool = {
  name: 'list_resource_templates',
  group: 'discover',
  offeredWhen: (facts) => facts.templates > facts.templatesShown,
  sentence: () => 'list_resource_templates lists templates the catalog does not show.',
  create: (host) =>
    tool({
      description: 'List resource templates (URIs with {placeholders}); fill one in and call read_resource.',
      inputSchema: INPUT,
      execute: async ({ server }) => {
        const lines = pick(host.states, server).flatMap((s) =>
          s.resourceTemplates.map((t) => `${templateLine(t)} [server ${s.id}]`),
        );
        return lines.length ? lines.join('\n') : 'No resource templates.';
      },
    }),
};
