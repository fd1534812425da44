#!/usr/bin/env node
// Makes sure a Chromium is available for capture sessions and browser runs: Debian's
// /usr/bin/chromium (installed with apt-get when missing) unless BROWSER_CDP_URL points at a
// remote browser fleet. Never downloads browsers from anywhere else.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const BIN = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

if (process.env.BROWSER_CDP_URL) {
  console.log(`[chromium] using remote browser at BROWSER_CDP_URL`);
  process.exit(0);
}
if (existsSync(BIN)) process.exit(0);

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const apt = (args) => {
  const cmd = asRoot ? 'apt-get' : 'sudo';
  const full = asRoot ? args : ['-n', 'apt-get', ...args];
  console.log(`[chromium] ${asRoot ? '' : 'sudo '}apt-get ${args.join(' ')}`);
  return spawnSync(cmd, full, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
};

// --no-install-recommends: the browser and its libraries only (about 240 packages instead of
// 400 with fonts, GUI helpers and documentation a headless server never uses).
const INSTALL = ['install', '-y', '--no-install-recommends', 'chromium'];
console.log(`[chromium] ${BIN} not found: installing Debian's chromium package (headless use, no recommended extras);`);
console.log('[chromium] this happens once and takes a minute or two');
if (!apt(INSTALL)) {
  console.log('[chromium] the package lists may be stale: refreshing them and trying again');
  apt(['update']);
  apt(INSTALL);
}
if (existsSync(BIN)) console.log(`[chromium] installed ${BIN}`);
if (!existsSync(BIN)) {
  console.warn(
    `[chromium] could not install chromium; browser features stay unavailable until ` +
      `/usr/bin/chromium exists or BROWSER_CDP_URL is set`,
  );
}
