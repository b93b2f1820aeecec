/**
 * A document the converter will not convert, and why, in words the person can act on ("encrypted: a password is
 * needed"). Readers throw it; the entrypoint turns it into `{ ok: false, reason }`. Any other error is a failure
 * of the document too (a damaged file), worded by the entrypoint.
 */
export class Refusal extends Error {}
