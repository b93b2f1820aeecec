export function settingsTable(): Promise<string>;
export function withTable(doc: string, table: string): string;
export function checkDoc(): Promise<{ current: string; expected: string }>;
