/** Types for the part of skills-policy.mjs the workerd benchmark uses (bench/skills.bench.test.ts). */
export function chooseEntry(
  question: string,
  system: string,
  sentWithMessage?: string,
  offered?: ReadonlySet<string>,
): { tool: 'read_resource' | 'load_skill'; args: Record<string, unknown> } | undefined;
