// Puts the API reference page's renderer next to it: Swagger UI
// (swagger-ui-dist, from the npm registry) copied into
// public/docs/api/swagger-ui/, served as static assets with the page
// (public/docs/api/index.html), which renders GET /v1/openapi.json. Run by
// wrangler before `wrangler dev` and `wrangler deploy` ("build" in
// wrangler.toml), after the widget. The copy is not committed (.gitignore):
// the version is the one package-lock.json pins.
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const OUT = 'public/docs/api/swagger-ui';
const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
mkdirSync(OUT, { recursive: true });
for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'LICENSE', 'NOTICE'])
  copyFileSync(join(dist, file), join(OUT, file));
const { version } = JSON.parse(readFileSync(join(dist, 'package.json'), 'utf8'));
console.log(`API reference: Swagger UI ${version} in ${OUT}/ (page: /docs/api/)`);
