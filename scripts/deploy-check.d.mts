export function deployProblems(input: {
  configVars: Record<string, unknown>;
  cliVars: Record<string, string>;
  secretNames: string[] | undefined;
}): {
  problems: string[];
  warnings: string[];
};
export function cliVarsOf(args: string[]): Record<string, string>;
