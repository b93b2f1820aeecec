/** Types for mint-token.mjs (imported by the browser tests). */
export function mintToken(options: { tenant: string; user: string; secret: string; minutes?: number }): string;
