// Bundled in place of `mimetext` (`alias` in wrangler.jsonc): not code we run.
//
// `agents` imports mimetext in exactly one place, `await import("mimetext")`
// inside `Agent.replyToEmail()`, to build the MIME reply to an inbound email.
// We never call replyToEmail (the Worker has no `email` handler and no Email
// Routing binding), yet esbuild bundles a dynamic import's target anyway:
// mimetext, mime-types, the whole mime-db (207 KiB of JSON) and part of
// core-js-pure, ~265 KiB raw / ~37 KiB gzipped.
//
// If a Conversation ever replied to email, replyToEmail would reject with the
// error below (inside its own try/catch, reported through Agent.onError):
// remove the alias then.
export function createMimeMessage(): never {
  throw new Error('mimetext is not bundled (wrangler.jsonc `alias`): Agent.replyToEmail is not supported by this Worker');
}
