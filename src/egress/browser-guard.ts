// The egress policy for one browser context (a browser run, a capture session). Two layers:
//  - network: the context is created with `proxy` = its own policy-enforcing forward proxy
//    (proxy.ts) and bypass '<-loopback>' (Chromium otherwise sends loopback around any proxy),
//    so every request of every page, frame, worker and websocket is checked after resolution;
//    WebRTC's UDP is kept off by a launch flag in src/browser/chromium.ts;
//  - schemes the proxy never sees (file:, chrome:, view-source:, data: …): checkNavigation()
//    refuses them before page.goto acts (the host asks, never the sandbox); Chromium itself
//    refuses renderer-initiated navigations to file: ("Not allowed to load local resource"),
//    and, in case anything still lands on such a URL, watch() sends that page back to
//    about:blank and assertSafe() refuses to hand out content while any frame shows one.
import type { BrowserContext, Frame, Page, Response } from 'playwright-core';
import type { Egress } from './egress.js';
import { EgressDenied } from './policy.js';
import { checkViaProxy, resolveChecked } from './resolve.js';
import { DENIED_HEADER, headerSafe, startEgressProxy, type EgressProxy } from './proxy.js';

/** URLs a page may navigate to on request. */
const NAVIGABLE = /^(https?:|about:blank$)/i;
/** URLs a frame may show (blank/srcdoc frames, page-made data:/blob: documents, Chromium's network-error page). */
const SHOWABLE = /^(https?:|about:(blank|srcdoc)(#|$)|data:|blob:|chrome-error:\/\/chromewebdata\/|$)/i;

export class ContextGuard {
  private denials: { seq: number; message: string }[] = [];
  private seq = 0;
  /** Per page: a main-frame navigation the proxy refused since the last assertSafe(). */
  private navDenied = new WeakMap<Page, string>();
  private badFrame: string | null = null;

  private constructor(
    private readonly egress: Egress,
    private readonly proxy: EgressProxy,
    readonly upstream: string | null,
  ) {}

  /** Starts the context's proxy; chains to `upstream` (the run's or session's proxy) if set. */
  static async start(egress: Egress, upstream: string | null): Promise<ContextGuard> {
    let guard: ContextGuard | null = null;
    const proxy = await startEgressProxy({
      pin: (host, port) => resolveChecked(egress.policy(), host, port),
      precheck: (host, port) => checkViaProxy(egress.policy(), host, port),
      upstream,
      onDenied: (d) => guard?.denied(d.message),
    });
    egress.addProxyPort(proxy.port);
    guard = new ContextGuard(egress, proxy, upstream);
    return guard;
  }

  /** Options for browser.newContext(). */
  get contextProxy() {
    return { proxy: { server: this.proxy.url, bypass: '<-loopback>' } };
  }

  private denied(message: string) {
    this.denials.push({ seq: ++this.seq, message });
    if (this.denials.length > 50) this.denials.shift();
  }

  /** Watches every page of the context (present and future). */
  watch(context: BrowserContext): void {
    for (const p of context.pages()) this.watchPage(p);
    context.on('page', (p) => this.watchPage(p));
  }

  private watchPage(page: Page) {
    page.on('framenavigated', (f: Frame) => {
      const url = f.url();
      if (SHOWABLE.test(url)) return;
      this.badFrame = url;
      if (f === page.mainFrame()) void page.goto('about:blank').catch(() => {});
    });
    page.on('response', (r: Response) => {
      // Trusted only when this context's proxy did refuse it (a site could send the header itself over https).
      const header = r.headers()[DENIED_HEADER];
      const denial = header && this.denials.find((d) => headerSafe(d.message) === header);
      if (denial && r.request().isNavigationRequest() && r.frame() === page.mainFrame()) this.navDenied.set(page, denial.message);
    });
  }

  /** Refuses a URL before the browser is asked to open it. Throws EgressDenied. */
  checkNavigation(url: string): Promise<void> {
    return checkNavigation(this.egress, url, !!this.upstream);
  }

  /** A point in time for deniedSince(). */
  mark(): number {
    return this.seq;
  }

  /** Distinct refusals since mark (subresources, frames, fetches the page tried), for the run log. */
  deniedSince(mark: number): string[] {
    return [...new Set(this.denials.filter((d) => d.seq > mark).map((d) => d.message))].slice(0, 10);
  }

  /**
   * A page operation failed: if the proxy refused a request meanwhile and the failure is a
   * network error (a refused CONNECT is net::ERR_TUNNEL_CONNECTION_FAILED), the refusal is the
   * real reason.
   */
  explain(e: unknown, mark: number): unknown {
    const last = this.denials.filter((d) => d.seq > mark).pop();
    if (last && /net::ERR_/.test(String((e as Error)?.message))) return new EgressDenied('proxy', last.message);
    return e;
  }

  /**
   * After a page operation (begun at `mark`): throws EgressDenied if the main frame's navigation
   * was refused (an http 403 from the proxy, or Chromium's error page after a refused CONNECT)
   * or a frame shows a forbidden URL.
   */
  assertSafe(page: Page, mark: number): void {
    const nav = this.navDenied.get(page);
    this.navDenied.delete(page);
    if (nav) throw new EgressDenied('proxy', nav);
    const last = this.denials.filter((d) => d.seq > mark).pop();
    if (last && page.mainFrame().url().startsWith('chrome-error:')) throw new EgressDenied('proxy', last.message);
    const bad =
      page
        .frames()
        .find((f) => !SHOWABLE.test(f.url()))
        ?.url() ?? this.badFrame;
    this.badFrame = null;
    if (bad) {
      void page.goto('about:blank').catch(() => {});
      throw new EgressDenied('scheme', `egress denied: the page showed ${bad.slice(0, 40)}…; only http and https content is handed out`);
    }
  }

  private closing: Promise<void> | null = null;

  /** Stops the proxy (idempotent; after the context is closed). */
  close(): Promise<void> {
    return (this.closing ??= (async () => {
      this.egress.removeProxyPort(this.proxy.port);
      await this.proxy.close();
    })());
  }
}

/** The policy's verdict on a URL a browser is about to open (page.goto, start_url). Throws EgressDenied. */
export async function checkNavigation(egress: Egress, url: string, viaProxy: boolean): Promise<void> {
  if (!NAVIGABLE.test(url)) {
    const scheme = /^([a-z][a-z0-9+.-]*:)/i.exec(url)?.[1]?.toLowerCase() ?? `'${url.slice(0, 40)}'`;
    throw new EgressDenied('scheme', `egress denied: ${scheme} URLs are not allowed (only http, https and about:blank)`);
  }
  if (/^about:/i.test(url)) return;
  const d = egress.policy().checkUrl(url);
  if (!d.ok) throw EgressDenied.from(d);
  try {
    await (viaProxy ? checkViaProxy : resolveChecked)(egress.policy(), d.host!, d.port!);
  } catch (e) {
    if (e instanceof EgressDenied) throw e;
    // Not resolvable: let the browser report it (net::ERR_…) as it would.
  }
}
