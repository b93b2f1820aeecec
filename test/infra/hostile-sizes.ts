// Sizes of the hostile server's resources (hostile-server.ts), shared with the tests in workerd.
export const BIG_TEXT_CHARS = 5_000_000;
export const BINARY_BYTES = 50 * 1024 * 1024;
export const DEEP_LEVELS = 100_000;
