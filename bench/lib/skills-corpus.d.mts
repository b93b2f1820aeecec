/** Types for the part of skills-corpus.mjs the workerd benchmark uses (bench/skills.bench.test.ts). */
export interface SkillSpec {
  name: string;
  description: string;
  /** Paths under the skill's folder (SKILL.md first) → text. */
  files: Record<string, string>;
}
export interface Question {
  text: string;
  /** The skill it is meant for, or the document. */
  skill?: string;
  doc?: string;
  /** What a right answer quotes (fact questions). */
  expect?: string;
}
export const SERVER_ID: string;
export const TEAM_SKILLS: Array<SkillSpec & { fact: { file: string; text: string } }>;
export const TEAM_DOCS: Array<{
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  size: number;
  text: string;
}>;
export const QUESTIONS: Question[];
export const COST_TURNS: Question[];
export function skillUri(name: string, path?: string): string;
export function byteLength(text: string): number;
export function generateSkills(n: number): SkillSpec[];
