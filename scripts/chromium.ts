// Debian's Chromium, for the test that renders the pull request body and the job summaries as GitHub
// shows them (__tests__/screens.e2e.test.ts). No browser is downloaded: playwright-core drives this one.
//   node scripts/chromium.ts install   installs Debian's chromium when missing (root; runs apt-get update first)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';

/** Why Chromium cannot be used here, or undefined when it can. */
export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is missing. Install Debian's chromium with: sudo node scripts/chromium.ts install`;
}

/** apt-get update and install of chromium, when missing (needs root). */
export function installChromium(): void {
  if (!chromiumMissing()) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', 'chromium']]) {
    const result = spawnSync('apt-get', args, { stdio: 'inherit', env });
    if (result.status !== 0) throw new Error(`apt-get ${args[0]} failed (${result.status}); the rendering test needs Debian's chromium.`);
  }
  const still = chromiumMissing();
  if (still) throw new Error(`Chromium is still not usable after the install: ${still}`);
}

// Only when run as a script: the test imports this file too.
if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === 'install') {
  installChromium();
  console.log(`Chromium is installed at ${CHROMIUM}.`);
}
