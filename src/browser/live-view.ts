// The live view of one capture session: CDP screencast frames of the page being shown, broadcast
// to every connected viewer (WebSocket, binary JPEG messages), and viewers' input dispatched to
// that page. Frames are acknowledged at once (Chromium encodes the next while this one travels);
// each viewer has at most one frame in its socket and keeps only the newest waiting, so a slow
// viewer skips stale frames instead of growing buffers or slowing the others. Chromium sends
// frames only when pixels change. Protocol and figures: docs/live-view.md.
import type { CDPSession, Page } from 'playwright-core';
import type { WebSocket } from 'ws';
import { type ChosenFile, FileChooserRelay } from './live-view-files.js';

export interface LiveViewHooks {
  /** Any viewer input (idle timeout bookkeeping). */
  onInput(): void;
  /** The live view is about to navigate the page itself (for the action log). */
  onNavigate(page: Page, cause: 'typed' | 'back' | 'forward' | 'reload'): void;
  /** The live view switched the shown page (new tab, popup, closed tab). */
  onSwitch(page: Page, event: 'opened' | 'closed' | 'switched'): void;
  /** The egress policy's verdict on a typed URL: null = go, else why not (sent as `denied`). */
  refuse?(url: string): Promise<string | null>;
  /** Pick mode: records what the page's pick script found; returns what viewers may be told (redacted). */
  onPick?(page: Page, pick: PickFound): PickedMessage | null;
  /** Files a viewer chose for the page's file chooser, set on it (for the action log). */
  onFiles?(page: Page, files: ChosenFile[]): void;
  /** Total bytes of the files one file chooser may get (default 20 MiB). */
  maxUploadBytes?: number;
}

/** What the in-page `__csPick` returns for a pick (see action-script.ts). */
export interface PickFound {
  scope: 'value' | 'record';
  text: string | null;
  tag: string;
  target: unknown;
  record: { css: string; selectors: unknown[]; index: number; values: string[] } | null;
  list: { css: string; count: number } | null;
  box: { x: number; y: number; width: number; height: number };
}

export interface PickedMessage {
  t: 'picked';
  id: string;
  scope: 'value' | 'record';
  text: string | null;
  tag: string;
  selector: string | null;
  record_selector: string | null;
  list_selector: string | null;
}

/** A read-only viewer gets frames and events; everything it sends is dropped (docs/live-view.md). */
export interface ViewerOptions {
  readOnly?: boolean;
}

const MIN_SIZE = 200;
const MAX_SIZE = 3840;
/**
 * The screencast runs from the session's start (warm) and this long after the last viewer left,
 * so a viewer that connects gets a current frame at once instead of waiting for a cast to start.
 */
const LINGER_MS = 30_000;
/**
 * A viewer that got no frame this long after it connected gets a screenshot and a fresh cast.
 * Chromium sends frames only when pixels change, and a cast can go silent (seen on a loaded
 * machine, right after the page's first navigation): a still page would leave the viewer blank.
 */
const FIRST_FRAME_MS = 2_000;
const FIRST_FRAME_TRIES = 3;
/** A resize with no frame this long after it: the cast is silent (a slow frame under load takes 1–2 s). */
const REPAINT_MS = 5_000;
/** A CDP call of the cast that takes longer is given up, so one stuck call can't wedge the cast for good. */
const CAST_OP_MS = 10_000;

/** One viewer's frame delivery: one frame in its socket at a time, only the newest one waiting. */
interface ViewerState {
  sending: boolean;
  next: Buffer | null;
  /** Whether any frame was sent to it (the first-frame watchdog's question). */
  gotFrame: boolean;
}

export class LiveView {
  private viewers = new Map<WebSocket, ViewerState>();
  private pages: Page[] = [];
  private shown: Page;
  private cdp: CDPSession | null = null;
  private casting = false;
  /**
   * Screencast starts and stops, one at a time. A viewer's first resize used to stop a cast whose
   * start was still awaiting its CDP session (nothing stopped), then the late start overwrote the
   * new session: two screencasts, the shown one's frames dropped unacknowledged, a blank viewer.
   */
  private castOps: Promise<void> = Promise.resolve();
  /** Bumped by every stop: a start whose CDP calls return after a stop (or a timeout) gives up its session. */
  private castGen = 0;
  private lastFrame: Buffer | null = null;
  /** The newest frame (JPEG) of the shown page, if the cast has produced one. */
  get latestFrame(): Buffer | null {
    return this.lastFrame;
  }
  /** Casting without viewers (warm at start, then LINGER_MS after the last one left). */
  private lingering = false;
  private lingerTimer: NodeJS.Timeout | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /**
   * The last queued input while it is still waiting, if it is a wheel or a pointer move: the next
   * one of its kind is merged into it (deltas summed, latest position), so input that arrives
   * faster than the page takes it (a loaded machine) never builds a backlog of stale scrolling.
   */
  private tail: { t: 'wheel' | 'move'; m: any } | null = null;
  /** Where the page's mouse is (a wheel or click at the same point needs no move first). */
  private mouseAt: { page: Page; x: number; y: number } | null = null;
  private ended = false;
  /** Pick mode: mouse clicks point at results instead of reaching the page (one mode for all viewers). */
  private picking = false;
  /** Pick mode: the latest pointer position waiting for a highlight (moves coalesce while one is queued). */
  private hoverAt: { x?: unknown; y?: unknown } | null = null;
  framesSent = 0;
  bytesSent = 0;

  /** The pages' file choosers, answered from the viewers (live-view-files.ts). */
  private readonly files: FileChooserRelay;

  constructor(
    first: Page,
    private viewport: { width: number; height: number },
    private readonly hooks: LiveViewHooks,
    private readonly quality = 70,
  ) {
    this.shown = first;
    this.files = new FileChooserRelay({
      maxBytes: hooks.maxUploadBytes ?? 20 * 1024 * 1024,
      send: (m) => this.send(m),
      chosen: (page, files) => hooks.onFiles?.(page, files),
    });
    this.track(first);
  }

  get viewerCount(): number {
    return this.viewers.size;
  }

  get page(): Page {
    return this.shown;
  }

  /** Resolves once every viewer input received so far was dispatched (paste waits for it). */
  settled(): Promise<void> {
    return this.queue.then(() => undefined);
  }

  private track(p: Page) {
    this.pages.push(p);
    // (Listening makes Playwright take the page's file dialogs: a headless page has none to show.)
    p.on('filechooser', (fc) => this.files.offer(p, fc));
    p.on('framenavigated', (f) => {
      if (p === this.shown && f === p.mainFrame()) this.broadcastUrl();
    });
    p.on('close', () => {
      this.pages = this.pages.filter((x) => x !== p);
      if (p === this.shown && this.pages.length && !this.ended) void this.show(this.pages[this.pages.length - 1], 'closed');
    });
  }

  /** A new tab or popup: follow it. */
  async adopt(p: Page): Promise<void> {
    this.track(p);
    await p.setViewportSize(this.viewport).catch(() => {});
    await this.show(p, 'opened');
  }

  private async show(p: Page, event: 'opened' | 'closed' | 'switched') {
    await this.stopCast();
    this.shown = p;
    this.hooks.onSwitch(p, event);
    this.send({ t: 'tabs', count: this.pages.length, index: this.pages.indexOf(p) });
    this.broadcastUrl();
    if (this.wantCast()) await this.startCast();
  }

  /** Starts the screencast before any viewer connects (at the session's start). */
  warm(): void {
    this.linger();
    void this.startCast();
  }

  private linger() {
    clearTimeout(this.lingerTimer);
    this.lingering = true;
    this.lingerTimer = setTimeout(() => {
      this.lingering = false;
      if (!this.viewers.size) void this.stopCast();
    }, LINGER_MS);
    this.lingerTimer.unref();
  }

  private wantCast(): boolean {
    return !this.ended && (this.viewers.size > 0 || this.lingering);
  }

  addViewer(ws: WebSocket, opts: ViewerOptions = {}): void {
    if (this.ended) {
      ws.close(4001, 'session ended');
      return;
    }
    const state: ViewerState = { sending: false, next: null, gotFrame: false };
    this.viewers.set(ws, state);
    // Enforced here, not by the page: a read-only socket's messages never reach the dispatcher.
    ws.on('message', (data, isBinary) => {
      if (!isBinary && !opts.readOnly) this.onMessage(String(data));
    });
    ws.on('close', () => {
      this.viewers.delete(ws);
      if (!this.viewers.size && !this.ended) this.linger();
    });
    this.sendTo(ws, {
      t: 'hello',
      viewport: this.viewport,
      url: this.shown.url(),
      tabs: this.pages.length,
      mode: opts.readOnly ? 'view' : 'control',
      pick: this.picking,
      filechooser: this.files.pending(),
    });
    if (this.lastFrame) this.deliver(ws, state, this.lastFrame);
    if (!this.casting) void this.startCast();
    this.watchFirstFrame(ws, state, 0);
  }

  /**
   * Makes sure a new viewer sees the page: with no frame after FIRST_FRAME_MS, the cast is started
   * anew and a screenshot of the shown page is sent (a few times at most, while the viewer stays).
   */
  private watchFirstFrame(ws: WebSocket, state: ViewerState, tries: number) {
    const timer = setTimeout(async () => {
      if (state.gotFrame || this.ended || !this.viewers.has(ws)) return;
      const shot = await this.recast();
      if (shot && !state.gotFrame && this.viewers.has(ws)) {
        this.lastFrame ??= shot;
        this.deliver(ws, state, shot);
      }
      if (tries + 1 < FIRST_FRAME_TRIES) this.watchFirstFrame(ws, state, tries + 1);
    }, FIRST_FRAME_MS);
    timer.unref();
  }

  /** The way out of a silent cast (both watchdogs): a fresh cast, and the page as it is now. */
  private async recast(): Promise<Buffer | null> {
    await this.stopCast();
    await this.startCast();
    return this.screenshot();
  }

  /** A JPEG of the shown page as it is now, or null (page closed, or no answer within CAST_OP_MS). */
  private async screenshot(): Promise<Buffer | null> {
    const p = this.shown;
    if (p.isClosed()) return null;
    return p
      .screenshot({ type: 'jpeg', quality: this.quality, timeout: CAST_OP_MS, animations: 'allow', caret: 'initial' })
      .catch(() => null);
  }

  private startCast(): Promise<void> {
    return (this.castOps = this.castOps.then(() => bounded(this.startCastNow())));
  }

  private stopCast(): Promise<void> {
    return (this.castOps = this.castOps.then(() => bounded(this.stopCastNow())));
  }

  private async startCastNow(attempt = 0): Promise<void> {
    if (this.casting || this.ended || this.shown.isClosed()) return;
    this.casting = true;
    const gen = this.castGen;
    let cdp: CDPSession | null = null;
    try {
      cdp = await this.shown.context().newCDPSession(this.shown);
      if (gen !== this.castGen) {
        // Stopped (or given up on) while the session was being made: this start is void.
        await cdp.detach().catch(() => {});
        return;
      }
      this.cdp = cdp;
      const mine = cdp;
      (cdp as any).on('Page.screencastFrame', (e: { data: string; sessionId: number }) => this.onFrame(mine, e));
      // Frames are the viewport's size (device scale factor 1); the bound never scales them, so a
      // resize needs no restart of the cast (a restart cost a frame's wait after every resize).
      await cdp.send('Page.startScreencast', {
        format: 'jpeg',
        quality: this.quality,
        maxWidth: MAX_SIZE,
        maxHeight: MAX_SIZE,
        everyNthFrame: 1,
      });
    } catch {
      if (gen !== this.castGen) return;
      this.casting = false;
      if (cdp && this.cdp === cdp) this.cdp = null;
      await cdp?.detach().catch(() => {});
      // A session made while the page was between documents (the start URL still committing) is
      // "not attached to an active page": try again shortly, or the viewer stays blank for good.
      if (attempt < 10 && this.wantCast()) {
        await new Promise((r) => setTimeout(r, 100 * (attempt + 1)));
        return this.startCastNow(attempt + 1);
      }
    }
  }

  private async stopCastNow() {
    this.castGen++;
    const cdp = this.cdp;
    this.cdp = null;
    this.casting = false;
    if (cdp) {
      await cdp.send('Page.stopScreencast').catch(() => {});
      await cdp.detach().catch(() => {});
    }
  }

  /**
   * A resize always repaints: with no frame of the new size REPAINT_MS after it, the cast went
   * silent (seen on a loaded machine right after a restart; a frame of the old size may still
   * have come), so it is started anew and every viewer gets a screenshot at the new size.
   */
  private watchRepaint() {
    const timer = setTimeout(async () => {
      if (this.ended || !this.viewers.size || this.showsViewport()) return;
      const shot = await this.recast();
      if (!shot || this.showsViewport()) return;
      this.lastFrame = shot;
      for (const [ws, state] of this.viewers) this.deliver(ws, state, shot);
    }, REPAINT_MS);
    timer.unref();
  }

  /** Whether the newest frame has the viewport's size (from its JPEG frame header). */
  private showsViewport(): boolean {
    const size = this.lastFrame && jpegSize(this.lastFrame);
    return !!size && size.width === this.viewport.width && size.height === this.viewport.height;
  }

  private onFrame(cdp: CDPSession, e: { data: string; sessionId: number }) {
    if (cdp !== this.cdp) return;
    void cdp.send('Page.screencastFrameAck', { sessionId: e.sessionId }).catch(() => {});
    const buf = Buffer.from(e.data, 'base64');
    this.lastFrame = buf;
    for (const [ws, state] of this.viewers) this.deliver(ws, state, buf);
  }

  /** Sends a frame, or keeps it as the one to send next when the viewer's socket still has one. */
  private deliver(ws: WebSocket, state: ViewerState, frame: Buffer) {
    if (ws.readyState !== 1) return;
    if (state.sending) {
      state.next = frame;
      return;
    }
    state.sending = true;
    state.gotFrame = true;
    this.framesSent++;
    this.bytesSent += frame.length;
    ws.send(frame, { binary: true }, () => {
      state.sending = false;
      const next = state.next;
      state.next = null;
      if (next) this.deliver(ws, state, next);
    });
  }

  private broadcastUrl() {
    const p = this.shown;
    void p
      .title()
      .catch(() => '')
      .then((title) => this.send({ t: 'url', url: p.url(), title }));
  }

  private send(msg: object) {
    const s = JSON.stringify(msg);
    for (const v of this.viewers.keys()) if (v.readyState === 1) v.send(s);
  }

  private sendTo(ws: WebSocket, msg: object) {
    if (ws.readyState === 1) ws.send(JSON.stringify(msg));
  }

  private onMessage(text: string) {
    let m: any;
    try {
      m = JSON.parse(text);
    } catch {
      return;
    }
    if (!m || typeof m.t !== 'string') return;
    this.hooks.onInput();
    if (this.files.receive(m)) return;
    if (this.picking && m.t === 'mouse' && m.type === 'move') {
      const queued = this.hoverAt !== null;
      this.hoverAt = m;
      if (queued) return; // the queued highlight uses the latest position
    }
    const kind: 'wheel' | 'move' | null = m.t === 'wheel' ? 'wheel' : m.t === 'mouse' && m.type === 'move' && !this.picking ? 'move' : null;
    if (kind && this.tail?.t === kind) {
      const t = this.tail.m;
      if (kind === 'wheel') {
        t.dx = num(t.dx) + num(m.dx);
        t.dy = num(t.dy) + num(m.dy);
      }
      t.x = m.x;
      t.y = m.y;
      return;
    }
    const entry = kind ? { t: kind, m } : null;
    this.tail = entry;
    // One input at a time, in order; a failing input never blocks the next.
    this.queue = this.queue
      .then(() => {
        if (entry && this.tail === entry) this.tail = null; // from now on it is being dispatched
        return this.dispatch(m);
      })
      .catch(() => {});
  }

  /** Moves the page's mouse unless it is already there. */
  private async moveTo(p: Page, x: number, y: number) {
    const at = this.mouseAt;
    if (at && at.page === p && at.x === x && at.y === y) return;
    this.mouseAt = null; // unknown while the move is under way (it may fail)
    await p.mouse.move(x, y);
    this.mouseAt = { page: p, x, y };
  }

  private async dispatch(m: any): Promise<void> {
    const p = this.shown;
    if (p.isClosed() || this.ended) return;
    const n = num;
    const button = ['left', 'middle', 'right'].includes(m.button) ? m.button : 'left';
    switch (m.t) {
      case 'pick':
        if (typeof m.on !== 'boolean' || m.on === this.picking) return;
        this.picking = m.on;
        this.hoverAt = null;
        return this.send({ t: 'pick', on: m.on });
      case 'pick_at':
        return this.pick(p, {
          x: n(m.x),
          y: n(m.y),
          selector: typeof m.selector === 'string' ? m.selector : null,
          record: m.record === true,
        });
      case 'mouse':
        if (this.picking) {
          // Nothing reaches the page: a move highlights, a left button release picks (shift: the whole record).
          if (m.type === 'move') {
            const at = this.hoverAt ?? m;
            this.hoverAt = null;
            return this.hover(p, n(at.x), n(at.y));
          }
          if (m.type === 'up' && button === 'left') return this.pick(p, { x: n(m.x), y: n(m.y), selector: null, record: m.shift === true });
          return;
        }
        this.hoverAt = null; // a move queued in pick mode that ran after it ended
        if (m.type === 'move') return this.moveTo(p, n(m.x), n(m.y));
        await this.moveTo(p, n(m.x), n(m.y));
        if (m.type === 'down') return p.mouse.down({ button, clickCount: n(m.clickCount, 1) });
        if (m.type === 'up') return p.mouse.up({ button, clickCount: n(m.clickCount, 1) });
        return;
      case 'wheel':
        await this.moveTo(p, n(m.x), n(m.y));
        return p.mouse.wheel(n(m.dx), n(m.dy));
      case 'key':
        if (typeof m.key !== 'string' || !m.key) return;
        if (m.type === 'down') return p.keyboard.down(m.key);
        if (m.type === 'up') return p.keyboard.up(m.key);
        return;
      case 'text':
        if (typeof m.text === 'string' && m.text) return p.keyboard.insertText(m.text);
        return;
      case 'navigate': {
        if (typeof m.url !== 'string') return;
        const url = /^[a-z][a-z0-9+.-]*:/i.test(m.url) ? m.url : `http://${m.url}`;
        if (!/^(https?:|about:blank$)/i.test(url)) return;
        // Checked before the browser acts (the context's proxy would refuse it too, less clearly).
        const refused = await this.hooks.refuse?.(url);
        if (refused) return this.send({ t: 'denied', url, detail: refused });
        this.hooks.onNavigate(p, 'typed');
        await p.goto(url, { waitUntil: 'commit' }).catch(() => {});
        return;
      }
      case 'back':
        this.hooks.onNavigate(p, 'back');
        await p.goBack({ waitUntil: 'commit' }).catch(() => {});
        return;
      case 'forward':
        this.hooks.onNavigate(p, 'forward');
        await p.goForward({ waitUntil: 'commit' }).catch(() => {});
        return;
      case 'reload':
        this.hooks.onNavigate(p, 'reload');
        await p.reload({ waitUntil: 'commit' }).catch(() => {});
        return;
      case 'resize': {
        const width = Math.round(Math.min(MAX_SIZE, Math.max(MIN_SIZE, n(m.width, this.viewport.width))));
        const height = Math.round(Math.min(MAX_SIZE, Math.max(MIN_SIZE, n(m.height, this.viewport.height))));
        if (width === this.viewport.width && height === this.viewport.height) return;
        this.viewport = { width, height };
        await Promise.all(this.pages.map((x) => x.setViewportSize(this.viewport).catch(() => {})));
        this.send({ t: 'viewport', viewport: this.viewport });
        this.watchRepaint();
        return;
      }
    }
  }

  private async hover(p: Page, x: number, y: number) {
    const h = await p.evaluate(`window.__csPick ? window.__csPick(${JSON.stringify({ x, y, hover: true })}) : null`).catch(() => null);
    this.send({ t: 'hover', ...((h as object | null) ?? { box: null }) });
  }

  private async pick(p: Page, o: { x: number; y: number; selector: string | null; record: boolean }) {
    const found = (await p
      .evaluate(`window.__csPick ? window.__csPick(${JSON.stringify(o)}) : null`)
      .catch(() => null)) as PickFound | null;
    if (!found) return this.send({ t: 'picked', id: null, error: 'nothing to pick there' });
    const msg = this.hooks.onPick?.(p, found);
    if (msg) this.send(msg);
  }

  /** Tells viewers the session ended and closes their sockets; stops the screencast. */
  async end(state: string): Promise<void> {
    this.ended = true;
    clearTimeout(this.lingerTimer);
    this.send({ t: 'ended', state });
    for (const v of this.viewers.keys()) {
      v.close(4001, 'session ended');
      // A viewer that never answers the close handshake must not keep the server open.
      setTimeout(() => v.terminate(), 1000).unref();
    }
    this.viewers.clear();
    await this.stopCast();
  }
}

/** Waits for a cast operation at most CAST_OP_MS (it carries on alone; its generation voids it). */
function bounded(op: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((r) => {
    timer = setTimeout(r, CAST_OP_MS);
  });
  return Promise.race([op.catch(() => {}), limit]).finally(() => clearTimeout(timer));
}

/** Width and height from a JPEG's start-of-frame marker, or null. */
function jpegSize(b: Buffer): { width: number; height: number } | null {
  let i = 2;
  while (i + 9 <= b.length && b[i] === 0xff) {
    const marker = b[i + 1]!;
    if (marker >= 0xc0 && marker <= 0xc3) return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    i += 2 + b.readUInt16BE(i + 2);
  }
  return null;
}

function num(v: unknown, d = 0): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : d;
}
