// The parent side of the browser engine: one shared Chromium (src/browser/chromium.ts, launched on
// first use), a fresh context per run (no cookies or storage shared between runs; the run's proxy),
// and the page operations the sandbox may ask for over RPC.
// Egress: each run's context sends all its traffic through its own policy-enforcing proxy
// (chained to the run's upstream proxy), page.goto is checked here before the browser acts, and
// no content leaves a page operation while a frame shows a non-web URL (src/egress/browser-guard.ts).
import type { Browser, BrowserContext, HTTPCredentials, Page } from 'playwright-core';
import { openChromium } from '../../browser/chromium.js';
import type { Egress } from '../../egress/egress.js';
import { ContextGuard } from '../../egress/browser-guard.js';
import type { EventBus } from '../../lib/events.js';

type HttpCredentials = HTTPCredentials & { origin: string };

interface RunPage {
  context: BrowserContext;
  page: Page;
  lastStatus: number | undefined;
  guard: ContextGuard;
}

export class BrowserHost {
  private browser: Promise<Browser> | null = null;
  private pages = new Map<string, Promise<RunPage>>();

  constructor(private readonly opts: { cdpUrl: string | null; egress: Egress; events?: EventBus }) {}

  private chromium(): Promise<Browser> {
    if (!this.browser) {
      const launching = openChromium({ cdpUrl: this.opts.cdpUrl }).then((b) => {
        this.opts.events?.emit({ kind: 'browser.launched', role: 'runs' });
        b.on('disconnected', () => {
          // close() clears the field first: a browser that leaves while still ours went away on its own.
          const expected = this.browser !== launching;
          if (!expected) this.browser = null;
          this.opts.events?.emit({ kind: 'browser.disconnected', role: 'runs', expected });
        });
        return b;
      });
      this.browser = launching;
      launching.catch(() => {
        if (this.browser === launching) this.browser = null;
      });
    }
    return this.browser;
  }

  /** `auth`: the HTTP Basic/Digest credentials of one origin (sandbox-run.ts reads them from the run's secrets). */
  private open(runId: string, proxy: string | null, auth?: HttpCredentials): Promise<RunPage> {
    let p = this.pages.get(runId);
    if (!p) {
      p = (async () => {
        const b = await this.chromium();
        const guard = await ContextGuard.start(this.opts.egress, proxy);
        try {
          // (No service workers, as in capture sessions: the run talks to the site itself.)
          const context = await b.newContext({
            serviceWorkers: 'block',
            ...guard.contextProxy,
            ...(auth ? { httpCredentials: auth } : {}),
          });
          guard.watch(context);
          const page = await context.newPage();
          return { context, page, lastStatus: undefined, guard };
        } catch (e) {
          await guard.close();
          throw e;
        }
      })();
      this.pages.set(runId, p);
    }
    return p;
  }

  async closeRun(runId: string): Promise<void> {
    const p = this.pages.get(runId);
    if (!p) return;
    this.pages.delete(runId);
    let rp: RunPage;
    try {
      rp = await p;
    } catch {
      return; // never opened
    }
    await rp.context.close().catch(() => {}); // the browser may be gone already
    await rp.guard.close();
  }

  /** Executes one page operation for a run. */
  async call(runId: string, proxy: string | null, method: string, a: Record<string, any>): Promise<unknown> {
    if (method === 'browser.open') {
      await this.open(runId, proxy, a.httpCredentials);
      return {};
    }
    const rp = await this.open(runId, proxy);
    // Before acting: page.goto only to web URLs the policy allows (file:, chrome: … never reach the browser).
    if (method === 'page.goto') await rp.guard.checkNavigation(String(a.url));
    const mark = rp.guard.mark();
    let out: unknown;
    try {
      out = await this.operate(rp.page, method, a);
    } catch (e) {
      throw rp.guard.explain(e, mark);
    }
    // After: a refused main-frame navigation fails the operation, and nothing is handed out
    // while a frame shows a non-web URL.
    rp.guard.assertSafe(rp.page, mark);
    // What the page tried and the proxy refused (an image, a fetch, a frame) goes to the run log.
    const blocked = method === 'page.goto' || method === 'page.click' ? rp.guard.deniedSince(mark) : [];
    return blocked.length ? { ...(out as object), blocked } : out;
  }

  private async operate(page: Page, method: string, a: Record<string, any>): Promise<unknown> {
    switch (method) {
      case 'page.goto': {
        const res = await page.goto(a.url, { timeout: a.timeout, waitUntil: 'load' });
        return { status: res?.status(), url: page.url() };
      }
      case 'page.click': {
        // A click may or may not navigate: watch for a main-frame navigation request briefly.
        let navStatus: number | undefined;
        let started = false;
        const onReq = (r: import('playwright-core').Request) => {
          if (r.isNavigationRequest() && r.frame() === page.mainFrame()) started = true;
        };
        page.on('request', onReq);
        const nav = page.waitForNavigation({ timeout: a.timeout, waitUntil: 'load' }).then(
          (r) => (navStatus = r?.status()),
          () => undefined,
        );
        try {
          await page.click(a.selector, { timeout: a.timeout });
          const until = Date.now() + 250;
          while (!started && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
          if (started) await nav;
        } finally {
          page.off('request', onReq);
        }
        return { navigated: started, status: navStatus, url: page.url() };
      }
      case 'page.fill':
        await page.fill(a.selector, a.text, { timeout: a.timeout });
        return {};
      case 'page.select':
        await page.selectOption(a.selector, a.value, { timeout: a.timeout });
        return {};
      case 'page.press':
        if (a.selector) await page.press(a.selector, a.key, { timeout: a.timeout });
        else await page.keyboard.press(a.key);
        return {};
      case 'page.wait':
        if (a.selector) await page.waitForSelector(a.selector, { state: a.state ?? 'visible', timeout: a.timeout });
        else if (a.url) await page.waitForURL(new RegExp(a.url), { timeout: a.timeout });
        else if (a.load) await page.waitForLoadState(a.load, { timeout: a.timeout });
        else if (a.ms) await page.waitForTimeout(a.ms);
        return {};
      case 'page.snapshot':
        return { url: page.url(), html: await page.content() };
      case 'page.exists':
        return (await page.$(a.selector)) !== null;
      case 'page.text':
        return page.textContent(a.selector, { timeout: a.timeout });
      case 'page.evaluate':
        return page.evaluate(a.js);
      default:
        throw new Error(`unknown page operation ${method}`);
    }
  }

  async close(): Promise<void> {
    for (const id of [...this.pages.keys()]) await this.closeRun(id);
    const b = this.browser;
    this.browser = null;
    if (b) await (await b.catch(() => null))?.close().catch(() => {});
  }
}
