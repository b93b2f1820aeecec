/** The team rules served as `task://guidelines` until `update_guidelines` replaces them. */
export const DEFAULT_GUIDELINES = `Team guidelines (Acme Tasks)

1. Every task has one owner. Unassigned tasks are picked up at the daily stand-up.
2. Estimate in hours, never more than 8 for a single task: split anything bigger.
3. Close a task only when its change is merged and deployed to staging.
4. Bugs found in production jump the queue: they are planned before any feature work.
5. Keep work in progress low: no more than 2 open tasks per person at a time.
6. Friday afternoons are for reviews and documentation, not for starting new work.
7. Customer-facing changes need a note in the release log before they ship.
`;
