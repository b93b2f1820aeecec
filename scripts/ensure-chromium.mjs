// Makes sure Debian's Chromium is installed for the browser tests: run by
// .ci/run and by the browser tests' globalSetup, so `npm test` works on a
// fresh machine. Installs with apt-get (as root, or through passwordless
// sudo); never lets a tool download a browser of its own.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function ensureChromium() {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  if (process.env.CHROMIUM_PATH) throw new Error(`CHROMIUM_PATH is ${CHROMIUM}, which does not exist`);
  const root = process.getuid?.() === 0;
  const run = (args) =>
    execFileSync(root ? args[0] : 'sudo', root ? args.slice(1) : ['-n', ...args], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  console.log('Chromium is missing: installing the Debian package (apt-get install chromium)…');
  try {
    run(['apt-get', 'update', '-qq']);
    run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', 'chromium']);
  } catch (error) {
    throw new Error(
      `Could not install Chromium (${error.message}). Install it yourself: sudo apt-get install chromium (or set CHROMIUM_PATH).`,
    );
  }
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium, but ${CHROMIUM} does not exist`);
  return CHROMIUM;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(`chromium: ${ensureChromium()}`);
}
