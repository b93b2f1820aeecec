/** Types for ensure-chromium.mjs (imported by the browser tests' globalSetup). */
export const CHROMIUM: string;
export function ensureChromium(): string;
