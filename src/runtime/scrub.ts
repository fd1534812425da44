// Removes secret values from text (log lines, error messages): every bound or per-run value,
// username and TOTP code of the run, also in URL-encoded and JSON-escaped form.
export class Scrubber {
  private values = new Set<string>();
  private re: RegExp | null = null;

  add(v: string | null | undefined): void {
    if (!v) return;
    for (const form of [v, encodeURIComponent(v), new URLSearchParams({ v }).toString().slice(2), JSON.stringify(v).slice(1, -1)]) {
      if (form && !this.values.has(form)) {
        this.values.add(form);
        this.re = null;
      }
    }
  }

  addSecret(s: { type: 'login'; username: string; password: string; totp_secret: string | null } | { type: 'string'; value: string }): void {
    if (s.type === 'login') {
      this.add(s.username);
      this.add(s.password);
      this.add(s.totp_secret);
    } else this.add(s.value);
  }

  scrub(text: string): string {
    if (!this.values.size) return text;
    if (!this.re) {
      const sorted = [...this.values].sort((a, b) => b.length - a.length);
      this.re = new RegExp(sorted.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
    }
    return text.replace(this.re, '[redacted]');
  }
}
