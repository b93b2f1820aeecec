import { appsExtension } from './apps/extension';
import { ExtensionRegistry } from './registry';
import { skillsExtension } from './skills/extension';
import { tasksExtension } from './tasks/extension';

export type { McpExtension } from './registry';

/**
 * The MCP extensions this service consumes, each one folder beside this
 * file. A new one is its folder and one line here.
 */
export const extensions = new ExtensionRegistry([appsExtension, skillsExtension, tasksExtension]);
