export function varsTable(): Promise<string>;
export function settingsTable(): Promise<string>;
export function documentedNames(): Promise<Set<string>>;
export function withTable(doc: string, table: string, section?: 'vars' | 'settings'): string;
export function checkDoc(): Promise<{ current: string; expected: string }>;
