import type { ZipLimits } from './zip';

/**
 * What one Office package may hold. Real files list tens to a few hundred entries (a 300-slide deck about 1,000)
 * and their XML inflates to a few MiB (a 20,000-row sheet about 10 MiB); a Worker has 128 MB of memory, and the
 * XML trees built from the inflated text take several times its size. Only the XML parts are inflated (media never).
 */
export const ZIP_LIMITS: ZipLimits = { maxEntries: 5_000, maxInflatedBytes: 32 * 1024 * 1024 };
