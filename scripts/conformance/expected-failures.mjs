// Conformance runs we know fail, each with why. Keyed by run id
// (`scenario@specVersion`) or by scenario name (every wire). run.mjs and
// test/conformance/auth.test.ts read it: a listed run that fails is expected
// (the test is `it.fails`); a listed run that passes is a stale entry, and
// fails the run and the test until it is removed. Nothing is skipped.

/** @type {Record<string, string>} */
export const EXPECTED_FAILURES = {
  // Extensions (optional, not scored by any revision's requirement set) that we chose not to build.
  'auth/enterprise-managed-authorization':
    'enterprise-managed authorization (ID-JAG token exchange, then the JWT bearer grant) is not built',
  'auth/dpop': 'DPoP-bound tokens (SEP-1932) are not built: RecordProvider has no dpop(), tokens are sent as Bearer',
  'auth/dpop-nonce':
    'DPoP-bound tokens (SEP-1932) are not built: RecordProvider has no dpop(), tokens are sent as Bearer',
};

/** Why `run` is expected to fail, or undefined when it must pass. */
export function expectedFailureOf(run) {
  return EXPECTED_FAILURES[run.id] ?? EXPECTED_FAILURES[run.scenario];
}
