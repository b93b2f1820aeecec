import type { Tool } from '@modelcontextprotocol/client';
import { toolVisibleTo } from '../../../shared/mcp-apps';
import { quotedName } from './server-warnings';

/** How the warning about tools named otherwise for the model begins (catalog-refresh.ts replaces it by this prefix). */
export const RENAMED_TOOLS =
  'tools named otherwise for the model (providers accept a-z, 0-9, "_" and "-", 64 at most; a name another tool has takes a suffix):';

/**
 * The model's name of a server's tool: `<server>__<tool>`, characters
 * providers refuse replaced by `_`, cut at 64, and `_2`, `_3`… for a name
 * `taken` already. Providers accept `^[a-zA-Z0-9_-]{1,64}$` (OpenAI's rule,
 * the strictest common one). Two servers' tools never meet: config refuses
 * ids that could (`ambiguousIds`, config/servers.ts), and `<server>__` is
 * always within the first 64 characters.
 */
export function modelToolName(server: string, name: string, taken: Set<string>): string {
  const base = `${server}__${name}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  let candidate = base;
  for (let n = 2; taken.has(candidate); n++) candidate = `${base.slice(0, 64 - String(n).length - 1)}_${n}`;
  taken.add(candidate);
  return candidate;
}

/**
 * The server's warning when the model sees some of its tools under another
 * name than `<server>__<tool>` (so the person's approval card names the
 * server and the tool as the server does, widget/src/transcript.ts): the
 * first five, then a count. Tools named as tools/mcp-tools.ts names them —
 * in list order, those the model is offered (not `skip`ped).
 */
export function renamedToolsWarning(server: string, tools: readonly Tool[], skip: ReadonlySet<string>): string[] {
  const taken = new Set<string>();
  const renamed: string[] = [];
  for (const tool of tools) {
    if (!toolVisibleTo(tool, 'model') || skip.has(tool.name)) continue;
    const name = modelToolName(server, tool.name, taken);
    if (name !== `${server}__${tool.name}`) renamed.push(`${quotedName(tool.name)} is ${name}`);
  }
  if (!renamed.length) return [];
  const more = renamed.length > 5 ? ` and ${renamed.length - 5} more` : '';
  return [`${RENAMED_TOOLS} ${renamed.slice(0, 5).join(', ')}${more}`];
}
