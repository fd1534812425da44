// Removes secret values from what a run leaves behind: every bound or per-run value, username and
// TOTP code of the run, also in URL-encoded and JSON-escaped form, from log lines and errors; and
// the credentials (not usernames: an account page legitimately shows them) from the result.
export class Scrubber {
  private values = new Set<string>();
  private credentials = new Set<string>();
  private re: RegExp | null = null;
  private credentialRe: RegExp | null = null;

  /** `identity` values (usernames) are scrubbed from logs and errors but kept in results. */
  add(v: string | null | undefined, kind: 'credential' | 'identity' = 'credential'): void {
    if (!v) return;
    for (const form of [v, encodeURIComponent(v), new URLSearchParams({ v }).toString().slice(2), JSON.stringify(v).slice(1, -1)]) {
      if (!form) continue;
      if (!this.values.has(form)) {
        this.values.add(form);
        this.re = null;
      }
      if (kind === 'credential' && !this.credentials.has(form)) {
        this.credentials.add(form);
        this.credentialRe = null;
      }
    }
  }

  addSecret(s: { type: 'login'; username: string; password: string; totp_secret: string | null } | { type: 'string'; value: string }): void {
    if (s.type === 'login') {
      this.add(s.username, 'identity');
      this.add(s.password);
      this.add(s.totp_secret);
    } else this.add(s.value);
  }

  scrub(text: string): string {
    if (!this.values.size) return text;
    this.re ??= alternation(this.values);
    return text.replace(this.re, '[redacted]');
  }

  /**
   * The result (JSON text) with every credential inside its strings replaced; the same text
   * when it holds none. Works on the parsed value so the JSON stays valid whatever the value.
   */
  scrubResult(json: string): string {
    if (!this.credentials.size) return json;
    this.credentialRe ??= alternation(this.credentials);
    this.credentialRe.lastIndex = 0;
    if (!this.credentialRe.test(json)) return json;
    const re = this.credentialRe;
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return v.replace(re, '[redacted]');
      if (Array.isArray(v)) return v.map(walk);
      if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.replace(re, '[redacted]'), walk(x)]));
      return v;
    };
    return JSON.stringify(walk(JSON.parse(json)));
  }
}

/** One regex matching any of the values, longest first (so a value's encoded form wins). */
function alternation(values: Set<string>): RegExp {
  const sorted = [...values].sort((a, b) => b.length - a.length);
  return new RegExp(sorted.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
}
