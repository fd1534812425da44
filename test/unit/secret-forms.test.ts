// Secret values in every form they take in transit (src/lib/secret-forms.ts), property-based:
// fast-check generates secrets with awkward characters, real encoders (encodeURIComponent,
// encodeURI, the WHATWG URL serializer's path/query/fragment/userinfo sets, URLSearchParams,
// JSON.stringify, HTML escapers, base64/base64url at any alignment, hex, Basic auth) put them in
// text, and neither the run-log scrubber, the result redactor nor the recording redactor may let
// any form through.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/browser/recording/redact.js';
import { base64Cores, classify, MIN_DERIVED_BYTES } from '../../src/lib/secret-forms.js';
import { Scrubber } from '../../src/runtime/shared/scrub.js';

const AWKWARD = [
  ' ',
  "'",
  '!',
  '"',
  '\\',
  '/',
  '%',
  '+',
  '&',
  '<',
  '>',
  '=',
  '?',
  '#',
  ':',
  '@',
  ';',
  ',',
  '$',
  '[',
  ']',
  '{',
  '}',
  '|',
  '^',
  '`',
  '~',
  '*',
  '(',
  ')',
  'é',
  'ß',
  '€',
  '😀',
  '中',
  '\u00a0',
  '.',
  '-',
  '_',
];
const unit = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...AWKWARD) },
  { weight: 2, arbitrary: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
);
/** Secrets long enough for every derived form (base64 cores, hex). */
const secret = fc
  .string({ unit, minLength: 8, maxLength: 32 })
  .filter((s) => Buffer.byteLength(s) >= MIN_DERIVED_BYTES && !/[\ud800-\udfff]/.test(s.replace(/[\ud800-\udbff][\udc00-\udfff]/g, '')));
/** Text around the secret: plain words, so the check isn't fooled by the surroundings. */
const around = fc.string({ unit: fc.constantFrom(...'abc xyz=&/.'), maxLength: 12 });

const html = (v: string) =>
  v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
const htmlDecimal = (v: string) => Array.from(v, (c) => `&#${c.codePointAt(0)};`).join('');
const htmlHex = (v: string) => Array.from(v, (c) => `&#x${c.codePointAt(0)!.toString(16).toUpperCase()};`).join('');
const jsonAscii = (v: string) =>
  JSON.stringify(v)
    .slice(1, -1)
    .replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const noTabs = (v: string) => !/[\t\n\r]/.test(v);
const withUrl = (set: (u: URL) => void) => {
  const u = new URL('http://h.test/');
  set(u);
  return u;
};
const lowerPct = (s: string) => s.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());

/** [name, encoder]; an encoder returns null when it doesn't apply to this value. */
const ENCODERS: [string, (v: string) => string | null][] = [
  ['raw', (v) => v],
  ['encodeURIComponent', (v) => encodeURIComponent(v)],
  ['encodeURIComponent lower-case hex', (v) => lowerPct(encodeURIComponent(v))],
  ['encodeURI', (v) => encodeURI(v)],
  ['double percent-encoding', (v) => encodeURIComponent(encodeURIComponent(v))],
  ['RFC 3986 strict', (v) => encodeURIComponent(v).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)],
  ['URLSearchParams', (v) => new URLSearchParams({ x: v }).toString().slice(2)],
  // Setters, not whole-URL parsing: the parser strips leading/trailing spaces of a whole URL.
  [
    'WHATWG path',
    (v) => (noTabs(v) && !/[/\\]/.test(v) && !/^\.+$/.test(v) ? withUrl((u) => (u.pathname = `/${v}`)).pathname.slice(1) : null),
  ],
  ['WHATWG query', (v) => (noTabs(v) && !v.startsWith('?') ? withUrl((u) => (u.search = v)).search.slice(1) : null)],
  [
    'WHATWG special-query via href',
    // (The value may hold `?q=` itself: the query starts at the first one, the URL's own.)
    (v) => {
      if (!noTabs(v) || v.includes('#')) return null;
      const href = new URL(`http://h.test/p?q=${v}&z`).href;
      return href.slice(href.indexOf('?q=') + 3, -2);
    },
  ],
  ['WHATWG fragment', (v) => (noTabs(v) && !v.startsWith('#') ? withUrl((u) => (u.hash = v)).hash.slice(1) : null)],
  [
    'WHATWG userinfo',
    (v) => {
      const u = new URL('http://h.test/');
      u.password = v;
      return u.password;
    },
  ],
  ['JSON', (v) => JSON.stringify(v).slice(1, -1)],
  ['JSON ASCII', jsonAscii],
  ['JSON twice', (v) => JSON.stringify(JSON.stringify(v)).slice(1, -1)],
  // A JSON document sent as a form field or query value (what the jsonesc filter writes).
  ['JSON in a form field', (v) => new URLSearchParams({ x: JSON.stringify(v).slice(1, -1) }).toString().slice(2)],
  ['JSON ASCII in a query', (v) => encodeURIComponent(jsonAscii(v))],
  ['HTML named', html],
  ['HTML decimal', htmlDecimal],
  ['HTML hex', htmlHex],
  ['hex lower', (v) => Buffer.from(v).toString('hex')],
  ['hex upper', (v) => Buffer.from(v).toString('hex').toUpperCase()],
];

/** What must be gone after scrubbing `prefix + encoded + suffix`. */
function survivors(out: string, v: string, encoded: string): string[] {
  return [v, encoded].filter((x) => out.includes(x));
}

describe('secret forms (property-based)', () => {
  for (const [name, enc] of ENCODERS) {
    it(`the run-log scrubber removes the ${name} form`, () => {
      fc.assert(
        fc.property(secret, around, around, (v, pre, post) => {
          const e = enc(v);
          fc.pre(e !== null && e.length > 0);
          const s = new Scrubber();
          s.addSecret({ type: 'string', value: v });
          const out = s.scrub(`${pre}${e}${post}`);
          expect(survivors(out, v, e!), out).toEqual([]);
          expect(out).toContain('[redacted]');
        }),
        { numRuns: 150 },
      );
    });
    it(`the recording redactor removes the ${name} form`, () => {
      fc.assert(
        fc.property(secret, around, around, (v, pre, post) => {
          const e = enc(v);
          fc.pre(e !== null && e.length > 0);
          const r = new Redactor();
          const ph = r.add('0193aaaa-bbbb-7ccc-8ddd-eeeeffff0000', 'password', v);
          const out = r.string(`${pre}${e}${post}`);
          expect(survivors(out, v, e!), out).toEqual([]);
          expect(out).toContain(ph);
        }),
        { numRuns: 100 },
      );
    });
  }

  it('base64 and base64url at any alignment leave no stable core behind', () => {
    fc.assert(
      fc.property(secret, fc.uint8Array({ maxLength: 5 }), fc.uint8Array({ maxLength: 5 }), fc.boolean(), (v, pre, post, url) => {
        const bytes = Buffer.concat([Buffer.from(pre), Buffer.from(v), Buffer.from(post)]);
        const b64 = url ? bytes.toString('base64url') : bytes.toString('base64');
        const s = new Scrubber();
        s.add(v);
        const out = s.scrub(`data ${b64} end`);
        const cores = base64Cores(v).flatMap((c) => [c, c.replace(/\+/g, '-').replace(/\//g, '_')]);
        expect(cores.filter((c) => out.includes(c))).toEqual([]);
        expect(out).toContain('[redacted]');
      }),
      { numRuns: 300 },
    );
  });

  it('Basic auth tokens are redacted, even for values too short for a base64 core', () => {
    fc.assert(
      fc.property(
        fc.string({ unit, minLength: 1, maxLength: 24 }),
        fc.string({ unit: fc.constantFrom(...'abcdef'), minLength: 1, maxLength: 8 }),
        (pw, user) => {
          fc.pre(!/[\ud800-\udfff]/.test(pw) && (pw.length < 3 || !'authorization: Basic [redacted]'.includes(pw)));
          const s = new Scrubber();
          s.add(pw);
          const token = Buffer.from(`${user}:${pw}`).toString('base64');
          const out = s.scrub(`authorization: Basic ${token}`);
          expect(out).not.toContain(token);
          if (pw.length >= 3) expect(out).toBe('authorization: Basic [redacted]');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('the result redactor removes credentials in every form from strings and keys, keeping valid JSON', () => {
    fc.assert(
      fc.property(secret, fc.constantFrom(...ENCODERS), (v, [, enc]) => {
        const e = enc(v);
        fc.pre(e !== null && e.length > 0);
        const s = new Scrubber();
        s.add(v);
        const json = JSON.stringify({ a: `x ${e} y`, list: [e], [e!]: 1 });
        const out = s.scrubResult(json);
        const parsed = JSON.parse(out);
        const strings = [parsed.a, ...parsed.list, ...Object.keys(parsed)];
        for (const str of strings) expect(survivors(str, v, e!)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('usernames stay in results but leave logs', () => {
    const s = new Scrubber();
    s.addSecret({ type: 'login', username: 'alice w', password: 'pw-123456', totp_secret: null });
    expect(s.scrub('user alice%20w')).toBe('user [redacted]');
    expect(JSON.parse(s.scrubResult(JSON.stringify({ u: 'alice w', p: 'pw-123456' })))).toEqual({ u: 'alice w', p: '[redacted]' });
  });

  it('markers name the encoding a value was found in', () => {
    const v = "a b'!é";
    expect(classify(v, v)).toBe('raw');
    expect(classify(v, new URL(`http://h.test/?${v}`).search.slice(1))).toBe('url');
    expect(classify(v, new URLSearchParams({ x: v }).toString().slice(2))).toBe('form');
    expect(classify(v, JSON.stringify(v).slice(1, -1).replace('é', '\\u00e9'))).toBe('json');
    expect(classify(v, htmlDecimal(v))).toBe('html');
    expect(classify(v, Buffer.from(v).toString('hex').toUpperCase())).toBe('hex');
  });

  it('leaves unrelated text alone', () => {
    const s = new Scrubber();
    s.add('Tr0ub4dor&3');
    const text = 'GET http://site.test/search?q=troubadour&page=3 → 200 (12 ms) 54726f75626164 VHJvdWJhZG9y';
    expect(s.scrub(text)).toBe(text);
  });
});
