// vitest globalSetup of the "browser" project: Chromium must be there before
// any test file launches it (installed from Debian if it is not). It also
// starts this project's own OAuth authorization server and protected MCP
// server (test/infra/oauth-servers.ts) on BROWSER_PORTS, apart from the
// workers project's pair, so the two projects never share OAuth state.
import type { TestProject } from 'vitest/node';
import { ensureChromium } from '../../scripts/ensure-chromium.mjs';
import { startOAuthServers } from '../infra/oauth-servers';
import { BROWSER_PORTS } from '../infra/ports';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  ensureChromium();
  const oauth = await startOAuthServers({ asPort: BROWSER_PORTS.oauthAs, rsPort: BROWSER_PORTS.oauthRs });
  project.provide('oauthAsUrl', oauth.asUrl);
  project.provide('oauthRsUrl', oauth.rsUrl);
  return oauth.stop;
}
