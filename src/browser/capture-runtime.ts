// The running part of one capture session: its leased browser context, recorder and live view,
// wired together. The service owns the rules and the database; this owns the browser side.
import type { BrowserContext, Page, Route } from 'playwright-core';
import type { BrowserPool, Slot } from './pool.js';
import { LiveView } from './live-view.js';
import { SessionRecorder } from './recording/recorder.js';
import type { Har, SecretField } from '../formats/recording/types.js';

export interface CookieInput {
  name: string;
  value: string;
  domain?: string | null;
  path?: string | null;
  secure?: boolean | null;
  http_only?: boolean | null;
}

export interface RuntimeOptions {
  sessionId: string;
  proxy: string | null;
  cookies: CookieInput[];
  startUrl: string | null;
  spoolDir: string;
  maxBodyBytes: number;
  /** Total bytes of the files one file chooser may get from the live view. */
  maxUploadBytes?: number;
  viewport: { width: number; height: number };
  onCrash: () => void;
  onActivity?: () => void;
}

export class CaptureRuntime {
  lastActivity = Date.now();
  readonly startedAt = Date.now();
  /** The origin each page's last document asked Basic or Digest credentials of (a 401), if it did. */
  private readonly challenges = new WeakMap<Page, string>();
  /** The logins given to the context for sites that asked (one per origin, the latest wins). */
  private readonly credentials = new Map<string, { username: string; password: string; origin: string }>();

  private constructor(
    private readonly pool: BrowserPool,
    readonly slot: Slot,
    readonly recorder: SessionRecorder,
    readonly live: LiveView,
  ) {}

  static async start(pool: BrowserPool, o: RuntimeOptions): Promise<CaptureRuntime> {
    const slot = await pool.acquire({ proxy: o.proxy });
    try {
      const browserVersion = slot.context.browser()?.version() ?? 'unknown';
      const recorder = new SessionRecorder({
        sessionId: o.sessionId,
        spoolDir: o.spoolDir,
        maxBodyBytes: o.maxBodyBytes,
        browserVersion,
        extension: {
          start_url: o.startUrl,
          use_proxy: !!o.proxy,
          initial_cookies: o.cookies.map((c) => ({ name: c.name, domain: c.domain ?? null, path: c.path ?? null })),
          viewport: o.viewport,
          limits: { max_body_bytes: o.maxBodyBytes },
        },
      });
      let rt: CaptureRuntime | null = null;
      const live = new LiveView(slot.page, o.viewport, {
        onInput: () => rt?.touch(),
        onNavigate: (page, cause) => recorder.expectNavigation(page, cause),
        onSwitch: (page, event) => {
          const id = recorder.pageId(page);
          if (id) recorder.action(page, { type: 'tab', event, tab: id, target: null });
        },
        onPick: (page, f) => {
          const bound = (v: unknown, n: number) => (typeof v === 'string' ? v.slice(0, n) : null);
          const id = recorder.action(page, {
            type: 'pick',
            scope: f.scope === 'record' ? 'record' : 'value',
            text: bound(f.text, 500),
            tag: String(f.tag),
            target: f.target as never,
            record: f.record,
            list: f.list,
            box: f.box,
          });
          // Viewers (and through them an embedding page) are told what was picked, redacted like the recording.
          const red = (v: string | null) => (v === null ? null : recorder.redactor.string(v));
          const sel = (f.target as { selectors?: { playwright: string }[] } | null)?.selectors?.[0]?.playwright ?? null;
          return {
            t: 'picked',
            id,
            scope: f.scope,
            text: red(bound(f.text, 500)),
            tag: String(f.tag),
            selector: red(sel),
            record_selector: f.record ? red(f.record.css) : null,
            list_selector: f.list ? red(f.list.css) : null,
          };
        },
        maxUploadBytes: o.maxUploadBytes,
        onFiles: (page, files) => recorder.upload(page, files),
        refuse: (url) =>
          slot.guard.checkNavigation(url).then(
            () => null,
            (e: Error) => (e.name === 'EgressDenied' ? e.message : null),
          ),
      });
      rt = new CaptureRuntime(pool, slot, recorder, live);
      const runtime = rt;
      runtime.watchChallenges(slot.page);
      runtime.onActivity = o.onActivity;
      slot.onAction = (page, json) => recorder.pageAction(page, json);
      slot.onCrash = o.onCrash;
      // A cookie without a domain belongs to start_url's host, or (no start_url) to the host of
      // the first page the session navigates to: see setOnFirstNavigation.
      const now = o.cookies.filter((c) => c.domain || o.startUrl);
      const later = o.cookies.filter((c) => !c.domain && !o.startUrl);
      if (now.length) {
        await slot.context.addCookies(
          now.map((c) => toPlaywrightCookie(c, c.domain ? { domain: c.domain, path: c.path ?? '/' } : { url: o.startUrl! })),
        );
      }
      if (later.length) await setOnFirstNavigation(slot.context, later);
      recorder.watchContext(slot.context);
      await recorder.attachPage(slot.page, null, slot.pre);
      slot.context.on('page', (p: Page) => void runtime.adoptPage(p));
      if (o.startUrl) {
        recorder.expectNavigation(slot.page, 'start');
        // Not awaited: the session is usable at once, the viewer watches the page load.
        void slot.page.goto(o.startUrl, { waitUntil: 'commit' }).catch(() => {});
      }
      // Frames from now on: the first viewer (typically opened right after this returns) gets one at once.
      live.warm();
      pool.refillSoon();
      return runtime;
    } catch (e) {
      await pool.release(slot);
      pool.refillSoon();
      throw e;
    }
  }

  private onActivity?: () => void;

  touch() {
    this.lastActivity = Date.now();
    this.onActivity?.();
  }

  /**
   * A site behind HTTP Basic or Digest auth answers its pages 401 until a browser's sign-in dialog
   * gives a login. The live view has no such dialog: the page shows the 401, and a login pasted
   * then (`paste`, by secret id) answers the challenge instead (answerChallenge).
   */
  private watchChallenges(p: Page) {
    p.on('response', (r) => {
      if (!r.request().isNavigationRequest() || r.frame() !== p.mainFrame()) return;
      if (r.status() === 401 && /^\s*(basic|digest)\b/i.test(r.headers()['www-authenticate'] ?? ''))
        this.challenges.set(p, new URL(r.url()).origin);
      else this.challenges.delete(p);
    });
  }

  /** The origin whose challenge the page in the live view is showing, if any. */
  challenge(): string | null {
    return this.challenges.get(this.live.page) ?? null;
  }

  /**
   * Answers the live page's challenge with a stored login, as a sign-in dialog would: both values
   * are registered for redaction first (the recording shows placeholders, in the Authorization
   * header's Basic token too), the context sends them to that origin only, and the page loads again.
   */
  async answerChallenge(secretId: string, username: string, password: string): Promise<void> {
    this.touch();
    const page = this.live.page;
    const origin = this.challenges.get(page);
    if (!origin) return;
    this.recorder.registerPaste(page, secretId, 'username', username, null);
    this.recorder.registerPaste(page, secretId, 'password', password, null);
    this.credentials.set(origin, { username, password, origin });
    await this.slot.context.setHTTPCredentials([...this.credentials.values()]);
    this.challenges.delete(page);
    this.recorder.expectNavigation(page, 'reload');
    await page.reload({ waitUntil: 'commit' }).catch(() => {});
  }

  private async adoptPage(p: Page) {
    this.watchChallenges(p);
    const opener = await p.opener().catch(() => null);
    await this.recorder.attachPage(p, opener).catch(() => {});
    await this.live.adopt(p);
  }

  /**
   * Types a secret value at the caret of the page shown in the live view. The value is
   * registered for redaction before a single character reaches the page.
   */
  async paste(secretId: string, field: SecretField, value: string): Promise<void> {
    this.touch();
    // A click that focused the field may still be queued: paste lands after it.
    await this.live.settled();
    const page = this.live.page;
    const target = (await page.evaluate('window.__csDescribeActive ? window.__csDescribeActive() : null').catch(() => null)) as any;
    this.recorder.registerPaste(page, secretId, field, value, target);
    await page.keyboard.insertText(value);
  }

  /** Stops recording and the live view, builds the HAR, releases the browser. */
  async finish(state: string, creatorVersion: string): Promise<Har> {
    await this.live.end(state);
    // (The recorder asks each page for the text typed into a field that still has the focus —
    // without blurring it, which would run the page's own handlers after the person finished.)
    await this.recorder.stop();
    try {
      return await this.recorder.finalize(creatorVersion);
    } finally {
      await this.recorder.discard();
      this.releaseInBackground();
    }
  }

  /**
   * Closing a context can take long (seen: tens of seconds with requests still open through a
   * proxy). Its capacity is freed at once; nothing waits for the close itself.
   */
  private releaseInBackground() {
    void this.pool.release(this.slot);
  }

  /** Ends without keeping anything. */
  async discard(state: string): Promise<void> {
    await this.live.end(state).catch(() => {});
    await this.recorder.discard();
    this.releaseInBackground();
  }
}

function toPlaywrightCookie(c: CookieInput, where: { domain: string; path: string } | { url: string }) {
  return {
    name: c.name,
    value: c.value,
    ...where,
    ...(c.secure != null ? { secure: c.secure } : {}),
    ...(c.http_only != null ? { httpOnly: c.http_only } : {}),
  };
}

/**
 * SessionCookie.domain is optional in the API. A cookie given without a domain and without a
 * start_url is host-only for the first site the session navigates to (as a Set-Cookie without
 * Domain would be): the first http(s) navigation request is held until the cookies are set
 * for its host, so that very request already carries them. Then the interception is removed.
 * `fallback()` leaves any other route handler (e.g. an egress policy) in charge of the request.
 */
async function setOnFirstNavigation(context: BrowserContext, cookies: CookieInput[]): Promise<void> {
  let done = false;
  const handler = async (route: Route) => {
    const req = route.request();
    if (!done && req.isNavigationRequest() && /^https?:/.test(req.url())) {
      done = true;
      const host = new URL(req.url()).hostname;
      await context.addCookies(cookies.map((c) => toPlaywrightCookie(c, { domain: host, path: c.path ?? '/' }))).catch(() => {});
      void context.unroute('**/*', handler).catch(() => {});
    }
    await route.fallback().catch(() => {});
  };
  await context.route('**/*', handler);
}
