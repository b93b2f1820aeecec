// Test servers listen on TEST_PORT_BASE + 1..4 (default 3901–3904). Set
// TEST_PORT_BASE to run a second copy of the suite (another checkout) at the
// same time without the two fighting over ports.
export const TEST_PORT_BASE = Number(process.env.TEST_PORT_BASE ?? 3900);
