// Every form a secret value can take in transit, as regular expressions. One module for the three
// places that must find a secret wherever it hides: the run-log scrubber and the result redactor
// (src/runtime/scrub.ts, also inside the sandbox worker) and the recording redactor
// (src/browser/recording/redact.ts).
//
// Why per-character alternations instead of a list of encoder outputs: percent-encoders differ in
// WHICH characters they encode (encodeURIComponent, encodeURI, the WHATWG URL serializer's path /
// query / special-query / fragment / userinfo sets, application/x-www-form-urlencoded, RFC 3986
// strict, escape()) and in hex case. Each of them emits, per character, either the character or
// its %XX bytes, so one pattern that allows either at every position matches them all, including
// encoders nobody listed. JSON and HTML escaping work the same way (\uXXXX or short escapes;
// decimal/hex/named entities). base64 (standard and URL-safe) is matched by the part of the
// encoding that does not depend on the neighbouring bytes, at each of the three alignments; hex
// by the UTF-8 bytes in either case. Basic auth is base64 of "user:password": see
// `basicAuthTokens` for values too short for a stable base64 core.
//
// Not covered (docs/security.md): values split across log lines or chunks, compressed or
// encrypted forms, and nestings beyond double percent-encoding and double JSON escaping.

export type SecretEncoding =
  | 'raw' // the value as is
  | 'url' // percent-encoded, any subset of characters, either hex case (incl. %uXXXX, double %25XX)
  | 'form' // application/x-www-form-urlencoded (space as "+")
  | 'json' // JSON string escaping (short escapes, \uXXXX, surrogate pairs; also escaped twice)
  | 'json-url' // JSON-escaped, then percent-encoded (a JSON document sent as a form field or query value)
  | 'html' // HTML character references (named, decimal, hex)
  | 'base64' // base64 / base64url of the value at any alignment
  | 'hex' // hex of the UTF-8 bytes, upper or lower case
  | 'basic-auth'; // inside base64("user:password") of an Authorization: Basic header

export interface SecretForm {
  encoding: SecretEncoding;
  /** Regular expression source matching this form (no flags needed but `g`). */
  source: string;
}

/** Values shorter than this many UTF-8 bytes get no base64/hex forms (too many false hits). */
export const MIN_DERIVED_BYTES = 4;
/** base64 cores shorter than this are not searched for (they would match unrelated text). */
const MIN_BASE64_CORE = 6;

const escRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
const anyCase = (s: string) => s.replace(/[a-fA-F]/g, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`);
const hex2 = (n: number) => n.toString(16).padStart(2, '0');
const hex4 = (n: number) => n.toString(16).padStart(4, '0');
const alt = (options: string[]) => {
  const uniq = [...new Set(options)];
  return uniq.length === 1 ? uniq[0] : `(?:${uniq.join('|')})`;
};

/** Each code point of `v`, as a string (astral characters stay whole). */
const codePoints = (v: string) => Array.from(v);

function percentChar(c: string): string {
  const bytes = [...Buffer.from(c, 'utf8')];
  const pct = (prefix: string) => bytes.map((b) => `${prefix}${anyCase(hex2(b))}`).join('');
  const options = [escRe(c), pct('%'), pct('%25')];
  if (c === ' ') options.push('\\+');
  const cp = c.codePointAt(0)!;
  // escape(): %uXXXX for anything above Latin-1 (UTF-16 units).
  if (cp > 0xff)
    options.push(
      utf16Units(c)
        .map((u) => `%[uU]${anyCase(hex4(u))}`)
        .join(''),
    );
  else if (cp > 0x7f) options.push(`%${anyCase(hex2(cp))}`);
  return alt(options);
}

function utf16Units(c: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < c.length; i++) out.push(c.charCodeAt(i));
  return out;
}

const JSON_SHORT: Record<string, string> = {
  '"': '\\\\"',
  '\\': '\\\\\\\\',
  '/': '\\\\/',
  '\b': '\\\\b',
  '\f': '\\\\f',
  '\n': '\\\\n',
  '\r': '\\\\r',
  '\t': '\\\\t',
};

function jsonChar(c: string): string {
  const options = [
    escRe(c),
    utf16Units(c)
      .map((u) => `\\\\[uU]${anyCase(hex4(u))}`)
      .join(''),
  ];
  if (JSON_SHORT[c]) options.push(JSON_SHORT[c]);
  return alt(options);
}

/**
 * JSON escaping, then percent-encoding: a JSON document sent as a form field or query value
 * (`data=%7B%22p%22%3A%22a%5C%22b%22%7D`; connectors write secrets there through `jsonesc`).
 * Null when a JSON writer spells every character as itself (the `url` form already covers it).
 */
function jsonThenPercent(cps: string[]): string | null {
  // Each character as a JSON writer may spell it (itself or its short escape; \uXXXX, either case,
  // for what JSON must escape and for non-ASCII), each spelling then percent-encoded by any encoder.
  const spellings = (c: string) => {
    const units = utf16Units(c);
    const u = (upper: boolean) => units.map((n) => `\\u${upper ? hex4(n).toUpperCase() : hex4(n)}`).join('');
    const plain = JSON.stringify(c).slice(1, -1);
    return plain === c && c.charCodeAt(0) < 0x80 ? [c] : [...new Set([plain, u(false), u(true)])];
  };
  const each = cps.map(spellings);
  if (each.every((s, i) => s.length === 1 && s[0] === cps[i])) return null;
  return each.map((s) => alt(s.map((lit) => codePoints(lit).map(percentChar).join('')))).join('');
}

const HTML_NAMED: Record<string, string[]> = {
  '&': ['&amp;'],
  '<': ['&lt;'],
  '>': ['&gt;'],
  '"': ['&quot;'],
  "'": ['&apos;'],
  '\u00a0': ['&nbsp;'],
};

function htmlChar(c: string): string {
  const cp = c.codePointAt(0)!;
  const options = [escRe(c), `&#0*${cp};`, `&#[xX]0*${anyCase(cp.toString(16))};`, ...(HTML_NAMED[c] ?? []).map(escRe)];
  return alt(options);
}

/**
 * The stable middle of base64(value) when the value starts at byte offset `k` (0..2) of a longer
 * buffer: characters influenced by unknown neighbouring bytes are dropped.
 */
export function base64Cores(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const out: string[] = [];
  for (let k = 0; k < 3; k++) {
    const enc = Buffer.concat([Buffer.alloc(k), bytes])
      .toString('base64')
      .replace(/=+$/, '');
    const start = k === 0 ? 0 : Math.ceil((k * 8) / 6); // chars touched by the k prefix bytes
    const end = Math.floor(((k + bytes.length) * 8) / 6); // chars fully determined by known bytes
    const core = enc.slice(start, end);
    if (core.length >= MIN_BASE64_CORE) out.push(core);
  }
  return [...new Set(out)];
}

/** Every form of one value, most specific (longest) first. Empty for an empty value. */
export function secretForms(value: string): SecretForm[] {
  if (!value) return [];
  const cps = codePoints(value);
  const forms: SecretForm[] = [
    { encoding: 'raw', source: escRe(value) },
    { encoding: 'url', source: cps.map(percentChar).join('') },
    { encoding: 'json', source: cps.map(jsonChar).join('') },
    // JSON text inside a JSON string (a payload logged as a string): escaped twice.
    { encoding: 'json', source: escRe(JSON.stringify(JSON.stringify(value).slice(1, -1)).slice(1, -1)) },
    { encoding: 'html', source: cps.map(htmlChar).join('') },
  ];
  const jsonUrl = jsonThenPercent(cps);
  if (jsonUrl) forms.push({ encoding: 'json-url', source: jsonUrl });
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes >= MIN_DERIVED_BYTES) {
    for (const core of base64Cores(value)) {
      forms.push({ encoding: 'base64', source: escRe(core) });
      const url = core.replace(/\+/g, '-').replace(/\//g, '_');
      if (url !== core) forms.push({ encoding: 'base64', source: escRe(url) });
    }
    forms.push({ encoding: 'hex', source: anyCase(Buffer.from(value, 'utf8').toString('hex')) });
  }
  const seen = new Set<string>();
  return forms.filter((f) => !seen.has(f.source) && seen.add(f.source)).sort((a, b) => b.source.length - a.source.length);
}

/** One global regex matching any form of any of the values; null when there are none. */
export function secretsPattern(values: Iterable<string>): RegExp | null {
  const sources = new Set<string>();
  for (const v of values) for (const f of secretForms(v)) sources.add(f.source);
  if (!sources.size) return null;
  return new RegExp([...sources].sort((a, b) => b.length - a.length).join('|'), 'g');
}

const anchoredCache = new Map<string, { encoding: SecretEncoding; re: RegExp }[]>();

/** Which encoding a text matched by a value's `secretForms` is in (for recording markers). */
export function classify(value: string, matched: string): SecretEncoding {
  if (matched === value) return 'raw';
  let anchored = anchoredCache.get(value);
  if (!anchored) {
    anchored = secretForms(value)
      .filter((f) => f.encoding !== 'raw')
      // json-url also matches what the plain json and url forms match: it names only the rest.
      .sort((a, b) => Number(a.encoding === 'json-url') - Number(b.encoding === 'json-url'))
      .map((f) => ({ encoding: f.encoding, re: new RegExp(`^(?:${f.source})$`) }));
    if (anchoredCache.size > 256) anchoredCache.clear();
    anchoredCache.set(value, anchored);
  }
  for (const f of anchored) {
    if (!f.re.test(matched)) continue;
    if (f.encoding === 'url' && matched.includes('+') && !value.includes('+')) return 'form';
    return f.encoding;
  }
  return 'raw';
}

/** RFC 7617: the token of `Authorization: Basic <token>`, base64 of `username:password` in UTF-8. */
export const basicToken = (username: string, password: string) => Buffer.from(`${username}:${password}`, 'utf8').toString('base64');

const BASIC_RE = /\b(Basic)(\s+|%20|\+)([A-Za-z0-9+/_-]{4,}={0,2})/gi;

/**
 * `Basic <base64>` tokens whose decoded text contains a value, for values too short to leave a
 * base64 core: `replace` gets the decoded credentials and returns the token to put instead.
 */
export function basicAuthTokens(
  text: string,
  matches: (decoded: string) => boolean,
  replace: (decoded: string, token: string) => string,
): string {
  if (!/basic/i.test(text)) return text;
  return text.replace(BASIC_RE, (token, word: string, sep: string, b64: string) => {
    const decoded = Buffer.from(b64.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
    if (!decoded.includes(':') || !matches(decoded)) return token;
    return `${word}${sep}${replace(decoded, b64)}`;
  });
}
