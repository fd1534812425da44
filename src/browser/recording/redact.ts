// Redaction of pasted secret values from everything the recorder writes. A value is registered
// before it is typed, so every later string (URLs, headers, bodies, action values) passes through
// here before it reaches disk. Each encoding a browser or site may apply is searched for
// (src/lib/secret-forms.ts, shared with the run-log scrubber).
import { base64Cores, classify, secretsPattern } from '../../lib/secret-forms.js';
import {
  secretPlaceholder,
  type SecretEncoding,
  type SecretField,
  type SecretMarker,
  type SecretRef,
} from '../../formats/recording/types.js';

interface Rule extends SecretRef {
  value: string;
  placeholder: string;
  /** Every form of the value (src/lib/secret-forms.ts), longest first, as one regex. */
  pattern: RegExp;
  /** The name of the field it was pasted into (for markers). */
  fieldName: string | null;
}

export interface Hit extends SecretRef {
  encodings: Set<SecretEncoding>;
}

const PLACEHOLDER_SPLIT = /(\{\{secret:[0-9a-zA-Z-]+:(?:username|password|totp)\}\})/;
function outsidePlaceholders(s: string, fn: (part: string) => string): string {
  if (!s.includes('{{secret:')) return fn(s);
  return s
    .split(PLACEHOLDER_SPLIT)
    .map((p, i) => (i % 2 ? p : fn(p)))
    .join('');
}

export { base64Cores };

export class Redactor {
  private rules: Rule[] = [];

  get size(): number {
    return this.rules.length;
  }

  /** Registers a value; returns its placeholder. Empty values are ignored. */
  add(secretId: string, field: SecretField, value: string, fieldName: string | null = null): string {
    const placeholder = secretPlaceholder(secretId, field);
    if (!value || this.rules.some((r) => r.value === value && r.secret_id === secretId && r.field === field)) return placeholder;
    let pattern = secretsPattern([value])!;
    // A plain-word username (`admin`) is also a word of the site (`/wp-admin/`, `do=admin`): it is
    // the username only where it stands alone, not inside a longer word or path segment.
    if (field === 'username' && /^[A-Za-z0-9_]{1,16}$/.test(value))
      pattern = new RegExp(`(?<![A-Za-z0-9_-])(?:${pattern.source})(?![A-Za-z0-9_-])`, 'g');
    this.rules.push({ secret_id: secretId, field, value, placeholder, pattern, fieldName });
    // Longer values first: a password that contains the username is replaced as a whole.
    this.rules.sort((a, b) => b.value.length - a.value.length);
    return placeholder;
  }

  /** Replaces every occurrence in one string; records which secrets/encodings were found. */
  string(s: string, hits?: Map<string, Hit>): string {
    if (!this.rules.length || !s) return s;
    let out = s;
    for (const r of this.rules) {
      // Placeholders already in the text are left alone (a value like "secret" is inside them).
      out = outsidePlaceholders(out, (part) =>
        part.replace(r.pattern, (m) => {
          if (hits) {
            const key = `${r.secret_id}:${r.field}`;
            const h = hits.get(key) ?? { secret_id: r.secret_id, field: r.field, encodings: new Set() };
            h.encodings.add(classify(r.value, m));
            hits.set(key, h);
          }
          return r.placeholder;
        }),
      );
    }
    return out;
  }

  /** Whether some registered value, in any of its forms, is in these bytes (a file's content). */
  inBytes(data: Buffer): boolean {
    if (!this.rules.length || !data.length) return false;
    const text = data.toString('utf8');
    return this.string(text) !== text;
  }

  /** Authorization: Basic b64(user:pass) → decoded, redacted, re-encoded. */
  private basicAuth(v: string, hits: Map<string, Hit>): string {
    const m = /^(Basic\s+)([A-Za-z0-9+/=]+)\s*$/i.exec(v);
    if (!m) return this.string(v, hits);
    const decoded = Buffer.from(m[2], 'base64').toString('utf8');
    const inner = new Map<string, Hit>();
    const red = this.string(decoded, inner);
    if (red === decoded) return this.string(v, hits);
    for (const [k, h] of inner) hits.set(k, { ...h, encodings: new Set(['basic-auth']) });
    return m[1] + Buffer.from(red, 'utf8').toString('base64');
  }

  /**
   * Deep copy of `value` with every string redacted. Markers: one per (secret, field, location),
   * where location is derived from the path (arrays of {name, value} are keyed by name).
   */
  deep<T>(value: T, markers?: SecretMarker[], locationOf: (path: string[]) => string = (p) => p.join('.')): T {
    if (!this.rules.length) return value;
    const byLoc = new Map<string, Map<string, Hit>>();
    const walk = (v: unknown, path: string[]): unknown => {
      if (typeof v === 'string') {
        const hits = new Map<string, Hit>();
        const isAuth = path.length >= 2 && /^(proxy-)?authorization$/i.test(path[path.length - 2]) && path[path.length - 1] === 'value';
        const out = isAuth ? this.basicAuth(v, hits) : this.string(v, hits);
        if (hits.size) {
          const loc = locationOf(path);
          const m = byLoc.get(loc) ?? new Map<string, Hit>();
          for (const [k, h] of hits) {
            const prev = m.get(k);
            if (prev) for (const e of h.encodings) prev.encodings.add(e);
            else m.set(k, h);
          }
          byLoc.set(loc, m);
        }
        return out;
      }
      if (Array.isArray(v)) {
        return v.map((x, i) =>
          walk(x, [...path, x && typeof x === 'object' && typeof (x as any).name === 'string' ? (x as any).name : String(i)]),
        );
      }
      if (v && typeof v === 'object') {
        const o: Record<string, unknown> = {};
        for (const [k, x] of Object.entries(v)) o[k] = walk(x, [...path, k]);
        return o;
      }
      return v;
    };
    const out = walk(value, []) as T;
    if (markers) {
      for (const [location, m] of byLoc) {
        for (const h of m.values()) {
          const rule = this.rules.find((r) => r.secret_id === h.secret_id && r.field === h.field);
          markers.push({
            secret_id: h.secret_id,
            field: h.field,
            location,
            encodings: [...h.encodings].sort(),
            field_name: rule?.fieldName ?? null,
          });
        }
      }
    }
    return out;
  }
}

/** Location of a path inside a HAR entry, as documented for SecretMarker.location. */
export function entryLocation(path: string[]): string {
  const [side, part, name] = path;
  if (side === 'request' && (part === 'url' || part === 'queryString')) return 'request.url';
  if ((part === 'headers' || part === 'cookies') && name !== undefined) return `${side}.${part}.${name}`;
  if (part === 'postData') return 'request.postData';
  if (part === 'content') return 'response.content';
  return path.slice(0, 2).join('.');
}
