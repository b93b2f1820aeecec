// The two Node modules the MCP client under test uses, declared for the Worker's tsconfig (which has the runtime's
// types, not Node's: the client runs our src/ in Node, and src/ is typed for workerd). Only what it calls.
declare module 'node:sqlite' {
  export type SQLInputValue = null | number | bigint | string | Uint8Array;
  export class DatabaseSync {
    constructor(path: string);
    exec(sql: string): void;
    prepare(sql: string): {
      run(...values: SQLInputValue[]): { changes: number | bigint };
      all(...values: SQLInputValue[]): unknown[];
    };
  }
}

declare module 'node:process' {
  const process: { argv: string[]; env: Record<string, string | undefined>; exit(code?: number): never };
  export default process;
}
