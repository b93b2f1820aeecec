/** Types for scenarios.mjs (imported by test/conformance/auth.test.ts). */
export interface ScenarioRun {
  /** `scenario@specVersion`, or the scenario's name for an extension (the suite's default wire). */
  id: string;
  scenario: string;
  specVersion: string | undefined;
  kind: 'required' | 'not-scored' | 'extension' | 'back-compat';
  requiredBy: string[];
}
export const ROOT: string;
export const PACKAGE: string;
export const REVISIONS: string[];
export function conformanceCli(): { cli: string; version: string };
export function scenarioRuns(): ScenarioRun[];
