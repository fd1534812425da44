// The one way this service gets a Chromium: Debian's /usr/bin/chromium launched by
// playwright-core (never a downloaded browser), or a remote fleet over CDP (BROWSER_CDP_URL).
// Capture sessions (the browser pool) and browser-engine runs both come through here.
import fs from 'node:fs';
import { chromium, type Browser, type LaunchOptions } from 'playwright-core';
import { quietPlaywrightZones } from './playwright-zones.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Playwright's own --disable-features list (playwright-core chromiumSwitches.ts). Chromium honours
 * only the last --disable-features switch, so ours must repeat these; test/chromium-flags.test.ts
 * fails when a Playwright upgrade changes the list.
 */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * Headless Chromium still builds a browser window per context, and since ~M150 that window
 * preloads its omnibox popups as WebUI pages (chrome://omnibox-popup.top-chrome), each in its own
 * renderer process: ~40 MB PSS per context that nobody ever sees (docs/live-view.md, figures).
 */
const OUR_DISABLED_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'WebUIOmniboxFullPopup'];

/** Flags that keep Chromium off the network except for the pages we open (see README), and lean. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-dev-shm-usage',
  // WebRTC would send UDP (STUN/TURN) around any proxy, to any host a page names: only TCP
  // through the context's proxy, where the egress policy applies (src/egress/browser-guard.ts).
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...OUR_DISABLED_FEATURES].join(',')}`,
];

export interface ChromiumOptions {
  /** CDP endpoint of a remote browser (ws:// or http://); unset = launch the local binary. */
  cdpUrl?: string | null;
  headless?: boolean;
  /** Upstream proxy for every context of this browser, e.g. http://127.0.0.1:3128. */
  proxy?: LaunchOptions['proxy'];
  extraArgs?: string[];
}

/** PIDs of local browsers launched here (playwright's Browser doesn't expose its process). */
const pids = new WeakMap<Browser, number>();
/**
 * Local launches of this process, one at a time: a new browser's PID is the chromium child that
 * was not there before, which is unambiguous only while no other launch is under way.
 */
let launches: Promise<unknown> = Promise.resolve();

/** Launches (or connects to) a browser. The caller owns it and must close it. */
export async function openChromium(opts: ChromiumOptions = {}): Promise<Browser> {
  quietPlaywrightZones(); // before Playwright's first call: async hooks must never turn on (playwright-zones.ts)
  if (opts.cdpUrl) return chromium.connectOverCDP(opts.cdpUrl);
  const launched = launches.then(async () => {
    const before = childChromiumPids();
    const b = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: opts.headless ?? true,
      args: [...CHROMIUM_ARGS, ...(opts.extraArgs ?? [])],
      // Per-context proxies need a launch-level proxy on some Chromium builds; 'per-context' is
      // playwright's documented placeholder that enables them without routing anything.
      proxy: opts.proxy ?? { server: 'per-context' },
    });
    const pid = [...childChromiumPids()].find((p) => !before.has(p));
    if (pid) pids.set(b, pid);
    return b;
  });
  launches = launched.catch(() => {});
  return launched;
}

/**
 * Whether a browser can be had (readiness): the local binary is executable, or the CDP endpoint
 * answers its version request. Rejects with the cause; launches nothing.
 */
export async function checkBrowserAvailable(cdpUrl: string | null): Promise<void> {
  if (!cdpUrl) {
    await fs.promises.access(CHROMIUM_PATH, fs.constants.X_OK).catch(() => {
      throw new Error(`no Chromium executable at ${CHROMIUM_PATH} (install it: apt-get install -y chromium)`);
    });
    return;
  }
  const u = new URL(cdpUrl);
  u.protocol = u.protocol === 'wss:' ? 'https:' : u.protocol === 'ws:' ? 'http:' : u.protocol;
  u.pathname = '/json/version';
  u.search = '';
  const res = await fetch(u, { signal: AbortSignal.timeout(2000) }).catch((e: Error) => {
    throw new Error(`browser endpoint ${u.host} unreachable: ${e.cause instanceof Error ? e.cause.message : e.message}`);
  });
  await res.body?.cancel();
  if (!res.ok) throw new Error(`browser endpoint ${u.host} answered ${res.status}`);
}

/** The PID of a browser launched by openChromium (null for a remote one). */
export function browserPid(b: Browser): number | null {
  return pids.get(b) ?? null;
}

function childChromiumPids(): Set<number> {
  const out = new Set<number>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      if (/chrom/i.test(fs.readFileSync(`/proc/${d}/cmdline`, 'utf8'))) out.add(Number(d));
    } catch {
      /* gone */
    }
  }
  return out;
}
