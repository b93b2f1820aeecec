// Bundled in place of zod's `locales/index.js` (`alias` "../locales/index.js"
// in wrangler.toml): zod's 63 error-message translations, of which we ship
// only English, the one zod configures by default.
//
// zod re-exports the translations as a namespace (`z.locales`, also
// `z.core.locales`, `zod/mini`'s `locales`). Because zod, the AI SDK, the MCP
// SDK and `agents` all use `z` as a value (`import { z } from "zod"`), esbuild
// cannot tree-shake that namespace and bundles every language: 364 KiB raw,
// none of it run unless someone calls `z.config(z.locales.xx())`, which
// nothing in this Worker does (zod itself imports `../locales/en.js`
// directly, and the AI SDK `zod/v4/locales/en.js`; neither is aliased).
//
// The alias matches the exact specifier "../locales/index.js", so it must
// only ever be imported by zod (zod/v4/classic, zod/v4/core, zod/v4/mini):
// `npm run bench:bundle` lists its importers. `z.locales.en` still works;
// any other language is undefined.
export { default as en } from 'zod/v4/locales/en.js';
