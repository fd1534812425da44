// Removes secret values from what a run leaves behind: every bound or per-run value, username and
// TOTP code of the run, in every form it can take in transit (src/lib/secret-forms.ts: raw, any
// percent-encoding, form, JSON, HTML, base64 at any alignment, hex, Basic auth), from log lines
// and errors; and the credentials (not usernames: an account page legitimately shows them) from
// the result.
import { basicAuthTokens, secretsPattern } from '../../lib/secret-forms.js';

const REDACTED = '[redacted]';

export class Scrubber {
  private values = new Set<string>();
  private credentials = new Set<string>();
  private re: RegExp | null | undefined;
  private credentialRe: RegExp | null | undefined;

  /** `identity` values (usernames) are scrubbed from logs and errors but kept in results. */
  add(v: string | null | undefined, kind: 'credential' | 'identity' = 'credential'): void {
    if (!v) return;
    if (!this.values.has(v)) {
      this.values.add(v);
      this.re = undefined;
    }
    if (kind === 'credential' && !this.credentials.has(v)) {
      this.credentials.add(v);
      this.credentialRe = undefined;
    }
  }

  addSecret(
    s: { type: 'login'; username: string; password: string; totp_secret: string | null } | { type: 'string'; value: string },
  ): void {
    if (s.type === 'login') {
      this.add(s.username, 'identity');
      this.add(s.password);
      this.add(s.totp_secret);
    } else this.add(s.value);
  }

  scrub(text: string): string {
    if (!this.values.size || !text) return text;
    if (this.re === undefined) this.re = secretsPattern(this.values);
    return replaceAll(text, this.re, this.values);
  }

  /**
   * A JSON value (a run error) with every secret form replaced inside its strings and keys. On
   * the value, not its JSON text: scrubbing the text could cut JSON syntax itself (a one-letter
   * username inside `null`) or miss a form that JSON escaping changed. Top-level keys are the
   * error's own field names and stay; keys below (details) are scrubbed.
   */
  scrubValue<T extends object>(value: T): T {
    if (!this.values.size) return value;
    if (this.re === undefined) this.re = secretsPattern(this.values);
    const fn = (s: string) => replaceAll(s, this.re!, this.values);
    return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, walkStrings(x, fn)])) as T;
  }

  /**
   * The result (JSON text) with every credential inside its strings replaced; the same text
   * when it holds none. Works on the parsed value so the JSON stays valid whatever the value.
   */
  scrubResult(json: string): string {
    if (!this.credentials.size) return json;
    if (this.credentialRe === undefined) this.credentialRe = secretsPattern(this.credentials);
    const re = this.credentialRe;
    const creds = this.credentials;
    // On the parsed strings, not the JSON text: a form inside a string is JSON-escaped in the text
    // (a backslash of a percent-encoded value doubles), so only the decoded string shows it.
    let changed = false;
    const clean = (s: string) => {
      const out = replaceAll(s, re, creds);
      if (out !== s) changed = true;
      return out;
    };
    const out = walkStrings(JSON.parse(json), clean);
    return changed ? JSON.stringify(out) : json;
  }
}

/** A copy of a JSON value with `fn` applied to every string and key. */
function walkStrings(v: unknown, fn: (s: string) => string): unknown {
  if (typeof v === 'string') return fn(v);
  if (Array.isArray(v)) return v.map((x) => walkStrings(x, fn));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [fn(k), walkStrings(x, fn)]));
  return v;
}

function replaceAll(text: string, re: RegExp | null, values: Set<string>): string {
  // Basic auth first (values too short to leave a recognisable base64 core), while the token is
  // still intact: a short raw value could otherwise cut the word "Basic" itself.
  const out = basicAuthTokens(
    text,
    (decoded) => {
      for (const v of values) if (decoded.includes(v)) return true;
      return false;
    },
    () => REDACTED,
  );
  return re ? out.replace(re, REDACTED) : out;
}
