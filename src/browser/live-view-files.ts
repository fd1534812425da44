// The page's file chooser, answered from the live view. A headless page has no file dialog: the
// live view intercepts each chooser (Playwright's `filechooser`), tells viewers, and a viewer sends
// the person's files over the socket in chunks (the socket's messages are small), which are then
// set on the chooser. Bounded here, never by the viewer: a count, a total size, names without
// paths. Protocol: docs/live-view.md ("Choosing a file").
import type { FileChooser, Page } from 'playwright-core';

/** One chosen file as the page gets it. */
export interface ChosenFile {
  name: string;
  type: string;
  data: Buffer;
}

export interface FileRelayOptions {
  /** Total bytes of the files for one chooser. */
  maxBytes: number;
  send(msg: object): void;
  /** The files were set on the page's chooser (for the action log). */
  chosen(page: Page, files: ChosenFile[]): void;
}

const MAX_FILES = 20;

/** A file name as the page may see it: no directories, no control characters, bounded. */
function safeName(v: unknown): string {
  const base = String(v ?? '')
    .split(/[\\/]/)
    .pop()!
    .replace(/[\p{Cc}]/gu, '')
    .trim()
    .slice(0, 255);
  return base && base !== '.' && base !== '..' ? base : 'file';
}

/** A media type the page may see (`type/subtype[; params]`, printable ASCII), else octet-stream. */
function safeType(v: unknown): string {
  const t = String(v ?? '').trim();
  return /^[\x21-\x7e]+\/[\x21-\x7e]+(?:\s*;[\x20-\x7e]*)?$/.test(t) && t.length <= 200 ? t : 'application/octet-stream';
}

export class FileChooserRelay {
  private chooser: { page: Page; fc: FileChooser; accept: string | null } | null = null;
  private files: ChosenFile[] = [];
  private current: { name: string; type: string; size: number; chunks: Buffer[]; got: number } | null = null;
  private total = 0;

  constructor(private readonly o: FileRelayOptions) {}

  /** The page opened a file chooser: the newest one is answered. */
  offer(page: Page, fc: FileChooser): void {
    this.reset();
    this.chooser = { page, fc, accept: null };
    void fc
      .element()
      .getAttribute('accept')
      .catch(() => null)
      .then((a) => {
        if (this.chooser?.fc !== fc) return;
        this.chooser.accept = a ? a.slice(0, 500) : null;
        this.o.send({ t: 'filechooser', ...this.pending() });
      });
  }

  /** The open chooser (for a viewer that connects while it is open), or null. */
  pending(): { multiple: boolean; accept: string | null } | null {
    return this.chooser ? { multiple: this.chooser.fc.isMultiple(), accept: this.chooser.accept } : null;
  }

  /** A viewer's `file_*` message; true when it was one. */
  receive(m: { t: string; [k: string]: unknown }): boolean {
    if (!m.t.startsWith('file_')) return false;
    if (!this.chooser) return true;
    switch (m.t) {
      case 'file_begin': {
        const size = typeof m.size === 'number' && Number.isSafeInteger(m.size) && m.size >= 0 ? m.size : -1;
        if (size < 0 || this.current) return this.refuse('file_begin needs a size, one file at a time');
        if (this.files.length >= (this.chooser.fc.isMultiple() ? MAX_FILES : 1)) return this.refuse('too many files for this chooser');
        if (this.total + size > this.o.maxBytes)
          return this.refuse(`the files are larger than the ${this.o.maxBytes} bytes a chooser may get`);
        this.current = { name: safeName(m.name), type: safeType(m.type), size, chunks: [], got: 0 };
        return true;
      }
      case 'file_chunk': {
        const c = this.current;
        if (!c || typeof m.data !== 'string') return this.refuse('file_chunk without file_begin');
        const buf = Buffer.from(m.data, 'base64');
        c.got += buf.length;
        if (c.got > c.size) return this.refuse('more bytes than the file announced');
        c.chunks.push(buf);
        return true;
      }
      case 'file_end': {
        const c = this.current;
        if (c) {
          if (c.got !== c.size) return this.refuse('fewer bytes than the file announced');
          this.files.push({ name: c.name, type: c.type, data: Buffer.concat(c.chunks) });
          this.total += c.size;
          this.current = null;
        }
        // (`done`: every file was sent; without it, another file follows.)
        if (m.done === true) void this.apply();
        return true;
      }
      case 'file_cancel':
        void this.apply(true);
        return true;
      default:
        return this.refuse(`unknown message ${m.t.slice(0, 40)}`);
    }
  }

  private async apply(cancel = false): Promise<void> {
    const ch = this.chooser;
    const files = cancel ? [] : this.files;
    this.chooser = null;
    this.reset();
    if (!ch) return;
    try {
      await ch.fc.setFiles(files.map((f) => ({ name: f.name, mimeType: f.type, buffer: f.data })));
      if (files.length) this.o.chosen(ch.page, files);
      this.o.send({ t: 'filechooser_done', files: files.length });
    } catch (e) {
      this.o.send({ t: 'filechooser_done', files: 0, error: String((e as Error).message ?? e).slice(0, 200) });
    }
  }

  private refuse(reason: string): true {
    // The chooser stays open: the person may try again (a smaller file, one at a time).
    this.reset();
    this.o.send({ t: 'filechooser_refused', reason });
    return true;
  }

  private reset(): void {
    this.files = [];
    this.current = null;
    this.total = 0;
  }
}
