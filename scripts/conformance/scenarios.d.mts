/** Types for scenarios.mjs (imported by test/conformance/conformance-set.ts). */
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
/** The sets of client scenarios: `auth` (our OAuth code) and `mcp` (every other: our MCP path). */
export const SETS: Array<'auth' | 'mcp'>;
export function scenarioRuns(set?: 'auth' | 'mcp'): ScenarioRun[];
