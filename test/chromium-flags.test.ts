// The Chromium we launch (src/browser/chromium.ts): Chromium honours only the last
// --disable-features switch, so ours must keep every feature Playwright disables (a Playwright
// upgrade that adds one fails here), and a browser context must not carry the omnibox popup WebUI
// renderers that headless Chromium preloads per window (~40 MB each, never seen).
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser } from 'playwright-core';
import { browserPid, openChromium } from '../src/browser/chromium.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

describe('chromium launch flags', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await openChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('the last --disable-features keeps every feature an earlier one (Playwright) disables', () => {
    const args = fs.readFileSync(`/proc/${browserPid(browser)}/cmdline`, 'utf8').split('\0');
    const lists = args.filter((a) => a.startsWith('--disable-features=')).map((a) => a.slice('--disable-features='.length).split(','));
    expect(lists.length).toBeGreaterThanOrEqual(2); // Playwright's, then ours
    const last = new Set(lists[lists.length - 1]);
    const missing = lists
      .slice(0, -1)
      .flat()
      .filter((f) => f && !last.has(f));
    expect(missing).toEqual([]);
    expect([...last]).toEqual(expect.arrayContaining(['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup']));
  });

  it('a context with a page has no browser UI targets (no preloaded omnibox popup renderers)', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto('about:blank');
      await new Promise((r) => setTimeout(r, 1000)); // the preload happens just after the window opens
      const cdp = await browser.newBrowserCDPSession();
      const { targetInfos } = (await cdp.send('Target.getTargets', { filter: [{}] } as never)) as {
        targetInfos: { type: string; url: string }[];
      };
      await cdp.detach();
      expect(targetInfos.filter((t) => t.type === 'browser_ui' || t.url.startsWith('chrome://')).map((t) => t.url)).toEqual([]);
      expect(targetInfos.some((t) => t.type === 'page')).toBe(true);
    } finally {
      await context.close();
    }
  });
});
