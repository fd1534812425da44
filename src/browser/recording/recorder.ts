// One capture session's recorder: network traffic of every page (NetworkRecorder), actions from
// the injected script and from the live view, secret pastes. Every line is redacted and appended
// to an NDJSON spool on disk as it happens; finalize() assembles the HAR from the spool.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { BrowserContext, CDPSession, Frame, Page, Request } from 'playwright-core';
import { entryFromPlaywright } from './playwright-entries.js';
import type { ChosenFile } from '../live-view-files.js';
import { NetworkRecorder, type EntrySink } from './network-recorder.js';
import { Redactor, entryLocation } from './redact.js';
import { buildHar, type HarMeta, type SpoolLine, type SpooledAction } from './har-build.js';
import type { ElementInfo, Har, HarEntry, NavigateAction, SecretField, SecretMarker, UploadAction } from '../../formats/recording/types.js';

/** Why a chosen file's content is not in the recording. */
const SECRET_IN_FILE = 'the file holds a value pasted as a secret';

export interface RecorderOptions {
  sessionId: string;
  spoolDir: string;
  maxBodyBytes: number;
  extension: HarMeta['extension'];
  browserVersion: string;
}

type NavCause = NavigateAction['cause'];

interface PageRec {
  id: string;
  net: NetworkRecorder;
  /** Requests that started before this (epoch ms) were not seen by CDP (popups' first loads). */
  cdpSince: number;
  pendingNav: { cause: NavCause; ms: number } | null;
}

export class SessionRecorder {
  readonly redactor = new Redactor();
  readonly startedAt = new Date();
  private readonly file: string;
  private out: fs.WriteStream;
  private pages = new Map<Page, PageRec>();
  private entrySeq = 0;
  private actionSeq = 0;
  private pageSeq = 0;
  private stopped = false;

  constructor(private readonly opts: RecorderOptions) {
    fs.mkdirSync(opts.spoolDir, { recursive: true });
    this.file = path.join(opts.spoolDir, 'recording.ndjson');
    this.out = fs.createWriteStream(this.file, { flags: 'a' });
  }

  private write(line: SpoolLine) {
    if (this.stopped) return;
    this.out.write(`${JSON.stringify(line)}\n`);
  }

  /**
   * Starts recording a page (the first tab, or a popup/new tab with its opener). `pre`: a CDP
   * session of the page with Network and Page enabled and its main frame id (a warm pool slot).
   */
  async attachPage(page: Page, opener: Page | null, pre: { cdp: CDPSession; mainFrameId: string } | null = null): Promise<string> {
    const id = `page_${++this.pageSeq}`;
    const sink: EntrySink = {
      pageId: id,
      maxBodyBytes: this.opts.maxBodyBytes,
      nextEntryId: () => `e${++this.entrySeq}`,
      writeEntry: (e) => this.writeEntry(e),
      writeWsFrame: (f) => {
        const buf = Buffer.from(f.payload ?? '', f.opcode === 2 ? 'base64' : 'utf8');
        const text = f.opcode === 1 && buf.length <= this.opts.maxBodyBytes;
        this.write({
          k: 'ws',
          page: id,
          requestId: f.requestId,
          url: this.redactor.string(f.url),
          direction: f.direction,
          opcode: f.opcode,
          time: f.time,
          size: buf.length,
          ...(text ? { data: this.redactor.string(f.payload) } : { sha256: crypto.createHash('sha256').update(buf).digest('hex') }),
        });
      },
    };
    const cdp = pre?.cdp ?? (await page.context().newCDPSession(page));
    const rec: PageRec = { id, net: new NetworkRecorder(cdp, sink), pendingNav: null, cdpSince: pre ? 0 : Infinity };
    this.pages.set(page, rec);
    this.write({
      k: 'page',
      p: {
        id,
        startedDateTime: new Date().toISOString(),
        title: '',
        pageTimings: {},
        _opener: opener ? (this.pages.get(opener)?.id ?? null) : null,
      },
    });
    page.on('framenavigated', (frame) => {
      if (frame !== page.mainFrame()) return;
      const pending = rec.pendingNav && Date.now() - rec.pendingNav.ms < 15_000 ? rec.pendingNav : null;
      rec.pendingNav = null;
      this.action(page, { type: 'navigate', to: frame.url(), cause: pending?.cause ?? 'page', target: null }, pending?.ms);
    });
    const title = () =>
      void page.title().then(
        (t) => t && this.write({ k: 'title', id, title: this.redactor.string(t) }),
        () => {},
      );
    page.on('load', title);
    title(); // a popup may have loaded before it reached us
    await rec.net.start(pre);
    if (!pre) rec.cdpSince = Date.now();
    // Requests of this page that finished before it was attached.
    const early = this.early.get(page) ?? [];
    this.early.delete(page);
    for (const e of early) this.track(this.earlyEntry(e.req, rec, e.failure));
    return id;
  }

  private early = new Map<Page, { req: Request; failure: string | null }[]>();
  private pendingEarly = new Set<Promise<void>>();

  private track(p: Promise<void>) {
    this.pendingEarly.add(p);
    void p.finally(() => this.pendingEarly.delete(p));
  }

  private async earlyEntry(req: Request, rec: PageRec, failure: string | null) {
    if (req.timing().startTime >= rec.cdpSince) return; // CDP has it
    const e = await entryFromPlaywright(req, `e${++this.entrySeq}`, rec.id, this.opts.maxBodyBytes, failure).catch(() => null);
    if (e) this.writeEntry(e);
  }

  /**
   * Watches the context's requests for the ones CDP could not see: those a new page made before
   * its recorder was attached.
   */
  watchContext(context: BrowserContext) {
    const on = (req: Request, failure: string | null) => {
      let page: Page | null = null;
      try {
        page = req.frame().page();
      } catch {
        return; // service worker
      }
      const rec = this.pages.get(page);
      if (rec) return this.track(this.earlyEntry(req, rec, failure));
      const list = this.early.get(page) ?? [];
      list.push({ req, failure });
      this.early.set(page, list);
    };
    context.on('requestfinished', (r) => on(r, null));
    context.on('requestfailed', (r) => on(r, r.failure()?.errorText ?? 'failed'));
  }

  pageId(page: Page): string | null {
    return this.pages.get(page)?.id ?? null;
  }

  /** The live view is about to navigate `page` (URL bar, back, forward, reload, start_url). */
  expectNavigation(page: Page, cause: NavCause) {
    const r = this.pages.get(page);
    if (r) r.pendingNav = { cause, ms: Date.now() };
  }

  /** Records an action; returns its id. `ms` defaults to now. */
  action(page: Page | null, a: Record<string, unknown> & { type: string }, ms = Date.now()): string {
    const id = `a${++this.actionSeq}`;
    const pageId = page ? (this.pages.get(page)?.id ?? 'page_1') : 'page_1';
    const url = page ? page.url() : '';
    const line = { id, page: pageId, url, target: null, ...a, ms } as unknown as SpooledAction;
    this.write({ k: 'action', a: this.redactor.deep(line) });
    return id;
  }

  /**
   * Files the person gave the page's file chooser (the live view's): an `upload` action with their
   * content, up to the body limit. The request that sends them is recorded without it (Chromium
   * hands out a form's parts, not its files), so this is where synthesis finds the bytes.
   */
  upload(page: Page, files: ChosenFile[]): void {
    this.action(page, {
      type: 'upload',
      files: files.map((f) => ({
        name: f.name,
        content_type: f.type,
        size: f.data.length,
        sha256: crypto.createHash('sha256').update(f.data).digest('hex'),
        ...(f.data.length > this.opts.maxBodyBytes
          ? {}
          : this.redactor.inBytes(f.data)
            ? { withheld: SECRET_IN_FILE }
            : { data: f.data.toString('base64') }),
      })),
    });
  }

  /** From the injected script (JSON text through the binding). Unknown shapes are dropped. */
  pageAction(page: Page, json: string) {
    let a: any;
    try {
      a = JSON.parse(json);
    } catch {
      return;
    }
    if (!a || typeof a !== 'object' || !['click', 'fill', 'select', 'check', 'submit', 'key'].includes(a.type)) return;
    const ms = typeof a.time === 'number' ? a.time : Date.now();
    delete a.time;
    this.action(page, a, ms);
  }

  /**
   * Registers a secret value before it is typed: from now on it is replaced everywhere.
   * Records the paste action; returns nothing that contains the value.
   */
  registerPaste(page: Page | null, secretId: string, field: SecretField, value: string, target: ElementInfo | null) {
    const placeholder = this.redactor.add(secretId, field, value, target?.name ?? target?.id ?? null);
    const actionId = this.action(page, { type: 'paste', secret: { secret_id: secretId, field }, target });
    this.write({ k: 'secret', s: { secret_id: secretId, field, action_id: actionId, target, placeholder } });
  }

  private writeEntry(e: HarEntry) {
    const markers: SecretMarker[] = [];
    const red = this.redactor.deep(e, markers, entryLocation);
    red._secrets = markers;
    this.write({ k: 'entry', e: red });
  }

  /** Stops recording: waits for bodies in flight, closes the spool. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    await this.flushTyping();
    // Last titles (a page may never fire load, or fired it before we listened).
    await Promise.all(
      [...this.pages].map(([page, r]) =>
        page.isClosed()
          ? null
          : page.title().then(
              (t) => t && this.write({ k: 'title', id: r.id, title: this.redactor.string(t) }),
              () => {},
            ),
      ),
    );
    await Promise.all([...this.pages.values()].map((p) => p.net.stop().catch(() => {})));
    await Promise.allSettled([...this.pendingEarly]);
    this.stopped = true;
    await new Promise<void>((r) => this.out.end(() => r()));
  }

  /**
   * Asks every frame of every open page for the text typed but not yet reported (a field that
   * still has the focus: a search box whose results showed as the person typed). The page's own
   * script answers through the binding; a page that does not answer within a second is left.
   */
  private async flushTyping(): Promise<void> {
    const frames = [...this.pages.keys()].filter((p) => !p.isClosed()).flatMap((p) => p.frames());
    const flush = (f: Frame) => f.evaluate(() => (window as unknown as { __csFlush?: () => void }).__csFlush?.()).catch(() => {});
    await Promise.race([Promise.all(frames.map(flush)), new Promise((r) => setTimeout(r, 1000).unref())]);
  }

  /** Reads the spool and builds the HAR (call after stop()). */
  async finalize(creatorVersion: string): Promise<Har> {
    const text = await fs.promises.readFile(this.file, 'utf8');
    const lines = text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as SpoolLine);
    for (const l of lines) if (l.k === 'action') this.withholdSecretFiles(l.a);
    // Values registered late (a paste during a request in flight) are caught by a last pass.
    const har = buildHar(lines, {
      sessionId: this.opts.sessionId,
      startedAt: this.startedAt.toISOString(),
      endedAt: new Date().toISOString(),
      browserVersion: this.opts.browserVersion,
      creatorVersion,
      extension: this.opts.extension,
    });
    return this.redactor.deep(har);
  }

  /**
   * A chosen file's content that holds a value pasted after the file was chosen is dropped too: it
   * is base64 in the recording, where a placeholder put in by the last pass would only garble it.
   */
  private withholdSecretFiles(a: SpooledAction) {
    if ((a as { type?: string }).type !== 'upload') return;
    for (const f of (a as unknown as UploadAction).files) {
      if (f.data !== undefined && this.redactor.inBytes(Buffer.from(f.data, 'base64'))) {
        delete f.data;
        f.withheld = SECRET_IN_FILE;
      }
    }
  }

  /** Deletes the spool (after finalize, abandon or failure). */
  async discard(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      await new Promise<void>((r) => this.out.end(() => r()));
    }
    await fs.promises.rm(this.opts.spoolDir, { recursive: true, force: true });
  }
}
