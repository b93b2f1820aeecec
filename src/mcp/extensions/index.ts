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

/*
 * The one door: what code outside mcp/extensions/ uses of an extension is exported here, and nothing outside imports
 * a file inside an extension's folder (test/node/dependency-direction.test.ts). An extension's internals can then move
 * inside its folder without touching its users, and what each extension gives the rest of the service is this list.
 */

// Skills: a skill's files found, its name as the model sees it (its read rules are the registry's: guardRead).
export { findSkill, requireSkills, type Skill, skillBytes, skillFileOf, skillName } from './skills/skills';

// Tasks: a tool call that may become a task (either era), its shapes, when to look again.
export {
  callTool,
  cancelTask,
  getTask,
  isStartedTask,
  type StartedTask,
  type TaskEra,
  taskResult,
  taskSupportOf,
  unusableTaskTools,
  updateTask,
} from './tasks/tool-tasks';
export type { TaskSnapshot, TaskStatus } from './tasks/task-schemas';
export { pollDelay, taskEnded } from './tasks/poll-rules';
