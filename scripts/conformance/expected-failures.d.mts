/** Types for expected-failures.mjs (imported by test/conformance/auth.test.ts). */
export const EXPECTED_FAILURES: Record<string, string>;
export function expectedFailureOf(run: { id: string; scenario: string }): string | undefined;
