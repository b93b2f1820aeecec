/** The operator key of the workers tests (its digest is OPERATOR_KEY_SHA256 in vitest.config.ts); no imports, so the tests in workerd can read it too. */
export const TEST_OPERATOR_KEY = 'test-operator-key-0123456789';
