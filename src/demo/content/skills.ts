/**
 * The demo server's skills (MCP Skills extension, SEP-2640), served by the
 * SDK's skills extension from these strings (no filesystem in a Worker):
 * each folder is one skill, its SKILL.md first. They point at the demo's own
 * resources, so `npm start` shows a skill loaded, then followed.
 */
export const DEMO_SKILL_FILES: Record<string, string> = {
  'estimate-a-task/SKILL.md': `---
name: estimate-a-task
description: Estimate a task in hours the way this team does - split it, size each part, and check the result against the team's checklist and guidelines.
license: MIT
---

# Estimate a task

Use this when someone asks how long a task will take, or asks you to add a task with an estimate.

1. Read the team guidelines (\`task://guidelines\`, server "demo"): estimates are in hours, and no single task
   may be estimated above the limit they give. A bigger task is split first.
2. Split the work into parts a person can finish in one sitting. Name each part with a verb.
3. Size each part in whole hours; round up, never down.
4. Go through \`checklist.md\` (this skill's file) item by item and add the time it reveals.
5. Answer with the parts, their hours and the total. If you create tasks (\`create_task\`), create one per part:
   the user is asked to approve each.
`,
  'estimate-a-task/checklist.md': `# Estimation checklist

- Did you count review time? Add one hour per part that changes shared code.
- Are there tests to write or update? Add them as their own part.
- Does it touch the database schema? Add a part for the migration and its rollback.
- Is anything blocked on another team? Say so; it does not count as hours.
- Would you be surprised if it took twice as long? Then split it again.
`,
  'write-release-notes/SKILL.md': `---
name: write-release-notes
description: Write release notes for a version from the test matrix - what is supported, what changed, what is known to fail.
license: MIT
---

# Write release notes

Use this when someone asks for release notes, a changelog entry or "what's in this release".

1. Read the test matrix (\`docs://test-matrix\`, server "demo") to the end: it is long and comes in parts. Every
   product and platform it lists is supported unless it says otherwise.
2. Follow \`template.md\` (this skill's file): the sections, their order, one line per item.
3. List only what the matrix says. Never invent a version number, a date or a fix.
`,
  'write-release-notes/template.md': `# Release notes template

## Highlights
One line per notable change, most important first.

## Supported
Product - platforms (from the test matrix).

## Known issues
What the matrix marks as failing or untested, with the platform.
`,
};
