// The browser pool of capture sessions: one shared Chromium (openChromium), one isolated context
// per session, a few contexts kept pre-warmed (context + recorder binding + init script + first
// tab) so creating a session doesn't pay for them. A crashed browser is relaunched; the leases
// that lived in it are reported through onCrash.
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { browserPid, openChromium } from './chromium.js';
import { ACTION_SCRIPT, RECORD_BINDING } from './recording/action-script.js';
import { newId } from '../lib/ids.js';
import type { Egress } from '../egress/egress.js';
import type { EventBus } from '../lib/events.js';
import { ContextGuard } from '../egress/browser-guard.js';

export interface PoolOptions {
  cdpUrl: string | null;
  /** Contexts kept ready for sessions without a proxy. */
  warm: number;
  maxSessions: number;
  viewport: { width: number; height: number };
  /** Every context's traffic goes through a policy-enforcing proxy (src/egress/browser-guard.ts). */
  egress: Egress;
  /** browser.launched / browser.disconnected for log lines and metrics. */
  events?: EventBus;
}

/** One browser context, owned by one capture session once leased. */
export interface Slot {
  /** Opaque id reported as browser_session_id. */
  id: string;
  context: BrowserContext;
  page: Page;
  /**
   * CDP session of the first tab with Network/Page already enabled, and its main frame id: handing
   * out a warm slot then costs no round trip to the browser (which may be busy making the next one).
   */
  pre: { cdp: CDPSession; mainFrameId: string } | null;
  /** Receives the injected recorder's messages (null = dropped, e.g. while warm). */
  onAction: ((page: Page, json: string) => void) | null;
  onCrash: (() => void) | null;
  /** The context's egress proxy and scheme watch; closed with the context. */
  guard: ContextGuard;
}

export class CapacityError extends Error {}

/** PIDs of Chromium processes that are direct children of this process. */

/** Longest release() waits for a context to close. */
const RELEASE_WAIT_MS = 3000;

export class BrowserPool {
  private browser: Browser | null = null;
  private launching: Promise<Browser> | null = null;
  private pid: number | null = null;
  private warmSlots: Slot[] = [];
  private warming = 0;
  private leases = new Map<string, Slot>();
  private reserved = 0;
  private closed = false;

  constructor(private readonly opts: PoolOptions) {}

  get active(): number {
    return this.leases.size;
  }

  /** PID of the local Chromium (null for a remote CDP browser or before launch). */
  browserPid(): number | null {
    return this.pid;
  }

  async version(): Promise<string> {
    return (await this.getBrowser()).version();
  }

  /** Launches the browser and fills the warm set; resolves when at least the browser is up. */
  async prewarm(): Promise<void> {
    await this.getBrowser();
    await this.refill();
  }

  private getBrowser(): Promise<Browser> {
    if (this.browser) return Promise.resolve(this.browser);
    if (this.closed) return Promise.reject(new Error('browser pool is closed'));
    this.launching ??= (async () => {
      const b = await openChromium({ cdpUrl: this.opts.cdpUrl });
      this.pid = browserPid(b);
      this.opts.events?.emit({ kind: 'browser.launched', role: 'capture' });
      b.on('disconnected', () => this.onDisconnected(b));
      this.browser = b;
      return b;
    })().finally(() => (this.launching = null));
    return this.launching;
  }

  private onDisconnected(b: Browser) {
    this.opts.events?.emit({ kind: 'browser.disconnected', role: 'capture', expected: this.closed || this.browser !== b });
    if (this.browser !== b) return;
    this.browser = null;
    this.pid = null;
    for (const s of [...this.warmSlots, ...this.leases.values()]) void s.guard.close();
    this.warmSlots = [];
    const crashed = [...this.leases.values()];
    this.leases.clear();
    for (const s of crashed) s.onCrash?.();
    if (!this.closed) void this.refill().catch(() => {});
  }

  private async newSlot(proxy: string | null): Promise<Slot> {
    const browser = await this.getBrowser();
    // The session's own egress proxy, chained to its upstream (use_proxy) when there is one.
    const guard = await ContextGuard.start(this.opts.egress, proxy);
    let context: BrowserContext;
    try {
      // (No service workers: a site's worker would answer the page's requests from inside the
      // browser — LAM's PWA worker does — and the recording would see its copies, not the site.)
      context = await browser.newContext({
        viewport: this.opts.viewport,
        deviceScaleFactor: 1,
        serviceWorkers: 'block',
        ...guard.contextProxy,
      });
    } catch (e) {
      await guard.close();
      throw e;
    }
    guard.watch(context);
    const slot: Slot = { id: newId(), context, page: null as unknown as Page, pre: null, onAction: null, onCrash: null, guard };
    await context.exposeBinding(RECORD_BINDING, (src, json: string) => slot.onAction?.(src.page, String(json)));
    await context.addInitScript(ACTION_SCRIPT);
    slot.page = await context.newPage();
    const cdp = await context.newCDPSession(slot.page);
    const [, , tree] = await Promise.all([
      cdp.send('Network.enable', { maxPostDataSize: 65536 } as any),
      cdp.send('Page.enable'),
      cdp.send('Page.getFrameTree'),
    ]);
    slot.pre = { cdp, mainFrameId: tree.frameTree.frame.id };
    return slot;
  }

  private async refill(): Promise<void> {
    while (!this.closed && this.warmSlots.length + this.warming < this.opts.warm) {
      this.warming++;
      try {
        const s = await this.newSlot(null);
        if (this.closed || !this.browser) {
          await s.context.close().catch(() => {});
          await s.guard.close();
        } else this.warmSlots.push(s);
      } finally {
        this.warming--;
      }
    }
  }

  /**
   * Reserves capacity synchronously (so concurrent creates never exceed the limit), then hands
   * out a warm context, or a fresh one when a proxy is wanted or none is warm.
   */
  async acquire(opts: { proxy: string | null }): Promise<Slot> {
    if (this.leases.size + this.reserved >= this.opts.maxSessions) {
      throw new CapacityError(`Too many active capture sessions (maximum ${this.opts.maxSessions}); complete or abandon one first`);
    }
    this.reserved++;
    try {
      let slot = !opts.proxy ? this.warmSlots.shift() : undefined;
      if (!slot || slot.page.isClosed()) slot = await this.newSlot(opts.proxy);
      this.leases.set(slot.id, slot);
      return slot;
    } finally {
      this.reserved--;
    }
  }

  /**
   * Tops the warm set up again, a moment later: creating a context competes for the browser with
   * the session that was just handed out, whose setup should go first.
   */
  refillSoon(): void {
    setTimeout(() => void this.refill().catch(() => {}), 150).unref();
  }

  /**
   * Closes the session's context (idempotent). Waits at most RELEASE_WAIT_MS: Chromium can take
   * minutes to dispose of a context whose first navigation is still in flight (seen when a
   * session is abandoned right after it was created); the close goes on in the background.
   */
  async release(slot: Slot): Promise<void> {
    slot.onAction = null;
    slot.onCrash = null;
    this.leases.delete(slot.id);
    const closing = slot.context
      .close()
      .catch(() => {})
      .then(() => slot.guard.close());
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([closing, new Promise<void>((r) => (timer = setTimeout(r, RELEASE_WAIT_MS)))]);
    clearTimeout(timer);
  }

  async close(): Promise<void> {
    this.closed = true;
    const b = this.browser ?? (this.launching ? await this.launching.catch(() => null) : null);
    this.browser = null;
    const guards = [...this.warmSlots, ...this.leases.values()].map((s) => s.guard);
    this.warmSlots = [];
    this.leases.clear();
    if (b) await b.close().catch(() => {});
    await Promise.all(guards.map((g) => g.close()));
  }
}
