import type { TestProject } from 'vitest/node';
import { startOAuthServers } from '../../test/infra/oauth-servers';
import { TEST_PORT_BASE } from '../../test/infra/ports';

export default async function setup(project: TestProject) {
  const servers = await startOAuthServers({ asPort: TEST_PORT_BASE + 30, rsPort: TEST_PORT_BASE + 31 });
  project.provide('oauthAsUrl', servers.asUrl);
  project.provide('oauthRsUrl', servers.rsUrl);
  return () => servers.stop();
}
