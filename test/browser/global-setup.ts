// vitest globalSetup of the "browser" project: Chromium must be there before
// any test file launches it (installed from Debian if it is not).
import { ensureChromium } from '../../scripts/ensure-chromium.mjs';

export default function setup(): void {
  ensureChromium();
}
