// A markdown answer as models write them, for the fake model (fake-model.ts) to stream when asked for
// "a markdown sample": a wide table, nested and hard-wrapped lists, a task list, a code block and a bare link.

/** The Python code of the answer's code block, as the Copy button must put it on the clipboard. */
export const SAMPLE_CODE = [
  'import math',
  '',
  'def estimate(parts):',
  '    """Hours for the parts, rounded up."""',
  '    return sum(math.ceil(p) for p in parts)',
].join('\n');

export const MARKDOWN_ANSWER = `Here is the plan for the release:

| Task | Owner | Hours | Status |
|:-----|:-----:|------:|--------|
| Write the **migration** for the new \`tasks_archive\` table | Ana | 3 | in review |
| Update the API reference and the changelog for the release | Bo | 1.5 | to do |
| Load-test the export endpoint with ten thousand concurrent users | Chen | 6 | blocked |

Steps:

1. Prepare
   - back up the database
   - check the disk
2. Deploy
   1. run the migration
   2. restart the workers, one region
      at a time

- [x] tests pass
- [ ] changelog written

\`\`\`python
${SAMPLE_CODE}
\`\`\`

See https://example.com/runbook for details.`;
