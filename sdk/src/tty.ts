// Terminal helpers of the CLI, without dependencies: a spinner and a progress bar drawn with ANSI
// on stderr (only when it is a TTY; otherwise they print nothing), and a prompt that reads a
// secret with echo off.

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const CLEAR_LINE = '\r\x1b[2K';
const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';

type Out = NodeJS.WriteStream;

let cursorHidden = false;
// Ctrl-C while a spinner or bar hides the cursor: give the terminal its cursor back, then exit 130 as a shell would.
const onSigint = () => {
  restoreCursor(process.stderr);
  process.stderr.write('\n');
  process.exit(130);
};
function hideCursor(stream: Out) {
  if (cursorHidden) return;
  stream.write(HIDE_CURSOR);
  cursorHidden = true;
  process.once('SIGINT', onSigint);
}
function restoreCursor(stream: Out) {
  if (cursorHidden) stream.write(SHOW_CURSOR);
  cursorHidden = false;
  process.off('SIGINT', onSigint);
}
process.once('exit', () => restoreCursor(process.stderr));

/** A spinner with a text and the elapsed time: `⠹ running … 3.2s`. A no-op unless the stream is a TTY. */
export class Spinner {
  private timer: NodeJS.Timeout | null = null;
  private frame = 0;
  private readonly started = Date.now();
  private text = '';
  private stopped = false;
  constructor(private readonly stream: Out = process.stderr) {}

  get active(): boolean {
    return Boolean(this.stream.isTTY);
  }

  start(text: string): this {
    this.text = text;
    if (!this.active) return this;
    hideCursor(this.stream);
    this.render();
    this.timer = setInterval(() => this.render(), 80);
    this.timer.unref();
    return this;
  }

  update(text: string): void {
    this.text = text;
    if (this.active && this.timer) this.render();
  }

  /** Clears the spinner line; `final` (if any) is written in its place, on its own line. */
  stop(final?: string): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (!this.active) return;
    this.stream.write(CLEAR_LINE + (final ? `${final}\n` : ''));
    restoreCursor(this.stream);
  }

  private render() {
    const s = ((Date.now() - this.started) / 1000).toFixed(1);
    const width = Math.max(20, (this.stream.columns || 80) - 1);
    const line = `${FRAMES[this.frame++ % FRAMES.length]} ${this.text} ${s}s`;
    this.stream.write(CLEAR_LINE + (line.length > width ? `${line.slice(0, width - 1)}…` : line));
  }
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/** A progress bar: `label [██████░░░░]  60%  1.2 MiB / 2.0 MiB`. A no-op unless the stream is a TTY. */
export class ProgressBar {
  private last = 0;
  private drawn = false;
  constructor(
    private readonly label: string,
    private readonly stream: Out = process.stderr,
  ) {}

  get active(): boolean {
    return Boolean(this.stream.isTTY);
  }

  update(done: number, total: number | null, force = false): void {
    if (!this.active) return;
    const now = Date.now();
    if (!force && this.drawn && now - this.last < 50) return; // at most 20 redraws a second
    this.last = now;
    if (!this.drawn) hideCursor(this.stream);
    this.drawn = true;
    const width = 24;
    let bar: string;
    let pct: string;
    if (total && total > 0) {
      const f = Math.min(1, done / total);
      const n = Math.round(f * width);
      bar = '█'.repeat(n) + '░'.repeat(width - n);
      pct = `${String(Math.floor(f * 100)).padStart(3)}%`;
    } else {
      const pos = Math.floor(now / 100) % width;
      bar = `${'░'.repeat(pos)}█${'░'.repeat(width - pos - 1)}`;
      pct = '   ?';
    }
    const amount = total === null ? formatBytes(done) : `${formatBytes(done)} / ${formatBytes(total)}`;
    this.stream.write(`${CLEAR_LINE}${this.label} [${bar}] ${pct}  ${amount}`);
  }

  finish(done: number, total: number | null): void {
    if (!this.active) return;
    this.update(done, total, true);
    this.stream.write('\n');
    restoreCursor(this.stream);
  }

  /** Removes the bar (on an error). */
  clear(): void {
    if (!this.active || !this.drawn) return;
    this.stream.write(CLEAR_LINE);
    restoreCursor(this.stream);
  }
}

export class PromptInterrupted extends Error {}

/**
 * Reads one line from a TTY with echo off (raw mode), the prompt on stderr. Backspace edits,
 * Enter ends, Ctrl-C / Ctrl-D on an empty line abort. Nothing typed is ever written anywhere.
 */
export function promptHidden(prompt: string, input: NodeJS.ReadStream = process.stdin, out: Out = process.stderr): Promise<string> {
  return new Promise((resolve, reject) => {
    out.write(prompt);
    input.setRawMode(true);
    input.setEncoding('utf8');
    input.resume();
    let value = '';
    let inEscape = false;
    const done = (err: Error | null) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      out.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (inEscape) {
          // Skip an escape sequence (arrow keys, bracketed paste markers) up to its final letter or ~.
          if (/[A-Za-z~]/.test(ch)) inEscape = false;
          continue;
        }
        if (ch === '\x1b') inEscape = true;
        else if (ch === '\r' || ch === '\n') return done(null);
        else if (ch === '\x03') return done(new PromptInterrupted('interrupted'));
        else if (ch === '\x04') {
          if (!value) return done(new PromptInterrupted('no input'));
        } else if (ch === '\x7f' || ch === '\b') value = [...value].slice(0, -1).join('');
        else if (ch === '\x15')
          value = ''; // Ctrl-U
        else if (ch >= ' ') value += ch;
      }
    };
    input.on('data', onData);
  });
}

/** Reads all of a (piped) stream as text. */
export async function readAll(input: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of input) parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(parts).toString('utf8');
}
