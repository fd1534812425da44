// One run's log, bounded as it arrives (issue 9, finding 3). Used twice with the same limits: in
// the sandbox worker (it buffers and sends at most the cap, then only a count of what it dropped)
// and in the server (it keeps at most the cap whatever a worker sends: the worker is not trusted).
// Every line is scrubbed as it is taken, then cut to LINE_MAX_BYTES; past the run's cap lines are
// only counted, and text() ends with a marker saying how many were dropped.

/** Longest line kept; a longer one is cut and ends with "… (N bytes cut)". */
export const LINE_MAX_BYTES = 16 * 1024;
/** Room kept for the final "… N more log lines dropped (…)" marker. */
const MARKER_BYTES = 120;
/** Longest timestamp accepted from a worker (an ISO date is 24 characters). */
const AT_MAX = 32;

export interface LogEntry {
  at: string;
  line: string;
}

export class LogCap {
  private entries: LogEntry[] = [];
  private bytes = 0;
  /** Lines not kept: dropped here, plus what the other side reported dropping. */
  private droppedHere = 0;
  private droppedElsewhere = 0;
  /** Set by the first connector line that didn't fit: the kept log is a prefix of what was logged. */
  private connectorFull = false;
  /**
   * How far past the cut a line is scrubbed before cutting it, so a secret straddling the cut (or
   * longer than a line) is replaced whole rather than left as a readable prefix. Set from the
   * run's secrets (see scrubMarginFor); TOTP codes and the like are short.
   */
  scrubMargin = 256;

  constructor(
    /** RUN_LOG_MAX_BYTES: the stored text, marker included, is never longer. */
    readonly maxBytes: number,
    private readonly scrub: (s: string) => string = (s) => s,
    private readonly lineMaxBytes = LINE_MAX_BYTES,
  ) {}

  /** The part of the cap open to the connector's own lines; the rest is for the platform's. */
  private get connectorBudget(): number {
    return this.maxBytes - MARKER_BYTES - Math.floor(this.maxBytes / 10);
  }

  get dropped(): number {
    return this.droppedHere + this.droppedElsewhere;
  }

  /** A line the connector logged. False when it was dropped (over the cap). */
  add(at: unknown, line: unknown): boolean {
    if (this.connectorFull) {
      this.droppedHere++;
      return false;
    }
    const kept = this.keep(at, line, this.connectorBudget);
    this.connectorFull = !kept;
    return kept;
  }

  /** A line of the platform's (timeout, saved file, crash): kept while the whole cap allows. */
  note(at: unknown, line: unknown): boolean {
    return this.keep(at, line, this.maxBytes - MARKER_BYTES);
  }

  /** The count a worker reported dropping (cumulative; a hostile worker's number is only a number). */
  reportDropped(n: unknown): void {
    if (typeof n === 'number' && Number.isSafeInteger(n) && n > this.droppedElsewhere) this.droppedElsewhere = n;
  }

  /** Kept lines not taken yet (the worker sends them and forgets them; the cap stays per run). */
  take(): LogEntry[] {
    const out = this.entries;
    this.entries = [];
    return out;
  }

  /** The stored form: one "at line" per line, then the marker when anything was dropped. */
  text(): string {
    const lines = this.entries.map((e) => `${e.at} ${e.line}`);
    if (this.dropped) lines.push(`… ${this.dropped} more log lines dropped (RUN_LOG_MAX_BYTES=${this.maxBytes})`);
    return lines.join('\n');
  }

  private keep(at: unknown, line: unknown, budget: number): boolean {
    // Past the cap nothing is looked at (not even scrubbed or cut): a flood costs a counter increment.
    if (this.bytes >= budget) {
      this.droppedHere++;
      return false;
    }
    const a = typeof at === 'string' ? at.slice(0, AT_MAX) : '';
    const l = this.capLine(typeof line === 'string' ? line : '[malformed log line]');
    const size = Buffer.byteLength(a) + 1 + Buffer.byteLength(l) + 1;
    if (this.bytes + size > budget) {
      this.droppedHere++;
      return false;
    }
    this.bytes += size;
    this.entries.push({ at: a, line: l });
    return true;
  }

  /** Scrubbed and at most lineMaxBytes; only a window of a giant line is ever scrubbed. */
  private capLine(line: string): string {
    // A character is at least one UTF-8 byte: lineMaxBytes characters hold every byte kept.
    const window = this.lineMaxBytes + this.scrubMargin;
    const windowed = line.length > window;
    let s = this.scrub(windowed ? line.slice(0, window) : line);
    // The window's tail may end inside a secret that scrub() could not see whole: never keep it.
    if (windowed) s = s.slice(0, Math.max(0, s.length - this.scrubMargin));
    if (!windowed && Buffer.byteLength(s) <= this.lineMaxBytes) return s;
    const total = Buffer.byteLength(line);
    const room = new Uint8Array(this.lineMaxBytes - 40);
    // encodeInto writes whole characters only: the cut never splits one.
    const { read } = new TextEncoder().encodeInto(s, room);
    const kept = s.slice(0, read);
    return `${kept}… (${Math.max(0, total - Buffer.byteLength(kept))} bytes cut)`;
  }
}

/**
 * The scrub margin for a run's secrets: the longest form a value can take in transit
 * (src/lib/secret-forms.ts: a character of three UTF-8 bytes, percent-encoded twice, is
 * "%25E4%25B8%25AD" = 15 characters per UTF-16 unit; 16 covers it), so a value anywhere around a
 * cut is always scrubbed whole.
 */
export function scrubMarginFor(values: Iterable<string | null | undefined>): number {
  let longest = 0;
  for (const v of values) if (v && v.length > longest) longest = v.length;
  return Math.max(256, longest * 16 + 16);
}

/** Every secret string of a run's slots (for scrubMarginFor). */
export function secretStrings(slots: Record<string, { type: string; [k: string]: unknown }>): string[] {
  const out: string[] = [];
  for (const s of Object.values(slots))
    for (const k of ['username', 'password', 'totp_secret', 'value']) if (typeof s[k] === 'string') out.push(s[k] as string);
  return out;
}
