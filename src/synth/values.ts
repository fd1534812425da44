// Value helpers shared by the stages: the encodings a typed value may take on the wire, the
// low-entropy guard that keeps `1`, `true`, `en` from creating false edges, typing of example
// values, and argument names from field names.
import { fullFormats } from 'ajv-formats/dist/formats.js';

/** Forms of `v` to look for: raw, %20-encoded, +-encoded, JSON-escaped (without quotes). */
export function encodings(v: string): { form: string; enc: 'raw' | 'url' | 'form' | 'json' }[] {
  const out: { form: string; enc: 'raw' | 'url' | 'form' | 'json' }[] = [{ form: v, enc: 'raw' }];
  const add = (form: string, enc: 'raw' | 'url' | 'form' | 'json') => {
    if (!out.some((o) => o.form === form)) out.push({ form, enc });
  };
  add(encodeURIComponent(v), 'url');
  add(encodeURIComponent(v).replace(/%20/g, '+'), 'form');
  add(JSON.stringify(v).slice(1, -1), 'json');
  // Site-specific forms of a value with spaces: page names and slugs (my_page, my-page).
  if (/ /.test(v.trim())) for (const sep of ['_', '-']) add(v.trim().split(/\s+/).join(sep), 'raw');
  return out;
}

/** Decodes a query/form component (+ as space); returns the input when it is not valid. */
export function formDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** Shannon entropy in bits per character. */
export function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const c of counts.values()) {
    const p = c / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

const COMMON = new Set([
  'true',
  'false',
  'null',
  'undefined',
  'yes',
  'no',
  'on',
  'off',
  'en',
  'de',
  'fr',
  'us',
  'json',
  'html',
  'get',
  'post',
  'asc',
  'desc',
  'id',
  'none',
  'all',
  'page',
  'next',
]);

/**
 * Too short or too predictable to be a traceable dynamic value: matching it in an earlier
 * response would be a coincidence, not a data flow.
 */
export function lowEntropy(v: string): boolean {
  const s = v.trim();
  if (s.length < 4) return true;
  if (COMMON.has(s.toLowerCase())) return true;
  if (/^\d{1,4}$/.test(s)) return true;
  return entropy(s) < 2;
}

/** Looks random: long, mixed alphabet, high entropy (tokens, nonces, signatures). */
export function looksRandom(v: string): boolean {
  return v.length >= 12 && !/\s/.test(v) && entropy(v) >= 3.2 && /\d/.test(v) && /[a-z]/i.test(v) && !isRoute(v) && !isSettings(v);
}

/**
 * Random letters without a digit (a nanoid-style id, `XCVSmdXHoZHGpNyU`: one in sixteen 16-letter
 * ids has none): long, both cases, and its lowercase runs too short for CamelCase words
 * (`SearchBooksQuery`, `XMLHttpRequest`).
 */
export function randomLetters(v: string): boolean {
  if (v.length < 12 || !/^[A-Za-z]+$/.test(v) || !/[a-z]/.test(v) || !/[A-Z]/.test(v) || entropy(v) < 3.2) return false;
  // (Words have lowercase runs of three letters or more: `orkflows`, `earch`; random text short ones.)
  const lower = v.match(/[a-z]+/g) ?? [];
  const mean = lower.reduce((n, r) => n + r.length, 0) / lower.length;
  return lower.length >= 3 && mean < 2.5 && Math.max(...lower.map((r) => r.length)) <= 5;
}

/** Named settings (`pdf=1,flash=0,webp=1`: what the browser can show): words and short values. */
const isSettings = (v: string) => /^[a-z][\w-]*=[\w.-]{0,8}([,;&][a-z][\w-]*=[\w.-]{0,8})+$/i.test(v);

/** A route of words (`/wp/v2/block-patterns/categories`): a name a program wrote, not a token. */
const isRoute = (v: string) =>
  v.includes('/') &&
  v.split('/').every((seg) => seg === '' || (/^[a-z][a-z0-9]*([_.-][a-z0-9]+)*$/i.test(seg) && (seg.match(/\d/g)?.length ?? 0) <= 2));

/**
 * A clock reading the page took as it sent the request (a `time=` of a query, a cache-buster, a
 * `since`): within ten minutes of the request it is the run's own time, in the same form —
 * milliseconds, seconds (a fraction is dropped) or an ISO date-time; up to 31 days before or after,
 * that far from the run's time (`{{run.now_s | add:-3600}}`: a range that starts an hour ago), to
 * the minute (a UTC ISO time too: `{{run.now_ms | add:7200000 | iso}}`); a bare date of the
 * request's day (± one: the browser's time zone) is the run's; milliseconds glued to a
 * lowercase word keep the word. Null for anything else (an ISO time with an offset, away from the
 * request, stays as recorded).
 */
export function nowTemplate(v: string, atMs: number): string | null {
  // A clock reading in milliseconds glued to a lowercase word ("loading1795935278658": a page's id
  // for a pending request). (Not a name with a number in it: "Pantry_1795939…" typed as a page title
  // names that page.)
  const tagged = /^([a-z]{2,20})(\d{13})$/.exec(v);
  if (tagged) {
    const clock = nowTemplate(tagged[2], atMs);
    return clock && `${tagged[1]}${clock}`;
  }
  const form = /^\d{13}$/.test(v) ? 'ms' : /^\d{10}(\.\d{1,6})?$/.test(v) ? 's' : null;
  if (form) {
    const ms = form === 'ms' ? Number(v) : Number(v) * 1000;
    const off = ms - atMs;
    if (Math.abs(off) < 600_000) return `{{run.now_${form}}}`;
    if (Math.abs(off) > 31 * 86_400_000) return null;
    const minutes = Math.round(off / 60_000);
    return `{{run.now_${form} | add:${form === 'ms' ? minutes * 60_000 : minutes * 60}}}`;
  }
  if (/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)$/.test(v) && Math.abs(Date.parse(v) - atMs) < 600_000)
    return '{{run.now_iso}}';
  // (A UTC time a page computed from its clock — a silence's end two hours on, a window that
  // started a day ago — keeps its distance from the run's time, to the minute, in the same form.)
  const utc = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/.exec(v);
  if (utc && Math.abs(Date.parse(v) - atMs) <= 31 * 86_400_000) {
    const minutes = Math.round((Date.parse(v) - atMs) / 60_000);
    return `{{run.now_ms | add:${minutes * 60_000} | iso${utc[1] ? '' : ':"s"'}}}`;
  }
  // (A bare date of the request's day — a form's "today" the page filled in — is the run's day. A
  // day either side is the same day in the browser's time zone.)
  if (/^\d{4}-\d\d-\d\d$/.test(v)) {
    const days = Math.round(
      (Date.parse(`${v}T00:00:00Z`) - Date.parse(`${new Date(atMs).toISOString().slice(0, 10)}T00:00:00Z`)) / 86_400_000,
    );
    if (Math.abs(days) <= 1) return `{{run.now_ms${days ? ` | add:${days * 86_400_000}` : ''} | iso:"date"}}`;
  }
  return null;
}

/** The run's time in each spelling (separator, zone, milliseconds) a run can write again. */
const NOW_FORMS: Record<string, string> = {
  'TZ.ms': '{{run.now_iso}}',
  TZ: '{{run.now_ms | iso:"s"}}',
  ' ': '{{run.now_ms | iso:"datetime"}}',
};

/**
 * Clock readings of the request's time written inside a value (Ghost's member list pages back from
 * `filter=created_at:<='2026-11-30 16:36:54'`) or whole in a form `nowTemplate` leaves alone: the
 * run's time in the same form — ISO with `Z` (with or without milliseconds) or `YYYY-MM-DD
 * HH:MM:SS` read as UTC. Null when the value holds none. (A time without a zone matches only when
 * the page's clock is UTC: read so, it is within ten minutes of the request.)
 */
export function nowInside(v: string, atMs: number): string | null {
  let hit = false;
  const out = v.replace(/\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d{3})?(Z?)/g, (m, ms: string | undefined, z: string) => {
    const t = Date.parse(`${m.replace(' ', 'T')}${z ? '' : 'Z'}`);
    if (!(Math.abs(t - atMs) < 600_000)) return m;
    const form = NOW_FORMS[`${m[10]}${z ? 'Z' : ''}${ms ? '.ms' : ''}`];
    if (!form) return m;
    hit = true;
    return form;
  });
  return hit ? out : null;
}

export type ArgType = { type: 'integer' | 'number' | 'boolean' | 'string'; format?: string };

/** JSON Schema type (and format) of an example value. */
export function typeOf(v: unknown): ArgType {
  if (typeof v === 'boolean') return { type: 'boolean' };
  if (typeof v === 'number') return Number.isInteger(v) ? { type: 'integer' } : { type: 'number' };
  const s = String(v);
  if (/^-?\d{1,15}$/.test(s) && !/^0\d/.test(s)) return { type: 'integer' };
  if (/^-?\d+\.\d+$/.test(s)) return { type: 'number' };
  if (/^(true|false)$/i.test(s)) return { type: 'boolean' };
  return stringFormat(s) ? { type: 'string', format: stringFormat(s)! } : { type: 'string' };
}

/** The formats a recorded string may claim, each with the shape that suggests it (first match wins). */
const FORMATS: [format: string, shape: RegExp][] = [
  ['date', /^\d{4}-\d{2}-\d{2}$/],
  ['date-time', /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/],
  // (A domain ends in a name: `apple-grader@0.3.1`, a package at a version, is no address.)
  ['email', /^[^\s@]+@[^\s@]+\.[a-z]{2,}$/i],
  ['uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i],
  ['uri', /^https?:\/\/\S+$/],
];

export function stringFormat(s: string): string | null {
  const f = FORMATS.find(([, shape]) => shape.test(s))?.[0] ?? null;
  // Only a format the output validator (ajv-formats) accepts for this very value: a URI template
  // ("https://api.w.org/{rel}") or February 30th would fail every run of the connector.
  return f && formatAccepts(f, s) ? f : null;
}

function formatAccepts(name: string, s: string): boolean {
  const f = (fullFormats as Record<string, unknown>)[name];
  if (f instanceof RegExp) return f.test(s);
  if (typeof f === 'function') return !!f(s);
  if (f && typeof f === 'object' && 'validate' in f) {
    const v = (f as { validate: RegExp | ((x: string) => boolean) }).validate;
    return v instanceof RegExp ? v.test(s) : !!v(s);
  }
  return true;
}

/**
 * A name a script generated for a field, not one a person or a developer chose: a random piece
 * (Element Plus's `input-8nb9bwpcu`), a counter of three digits or more (`el-id-5632-4`,
 * `mui-1234`), React's `:r5:`. A word with a short number (`address2`, `line_1`) is a name.
 */
export function generatedName(s: string): boolean {
  if (/^:r[0-9a-z]*:$/i.test(s)) return true;
  const parts = s.split(/[-_:.[\]\s]+/);
  // (Two counters in a row are a script's too: Element Plus's `el-id-47-49`, a random seed then a count.)
  if (/[-_:]\d+[-_:]\d+$/.test(s)) return true;
  return parts.some((p) => /^\d{3,}$/.test(p) || (/^(?=.*\d)(?=.*[a-z])[a-z0-9]{5,}$/i.test(p) && !/^[a-z]+\d{1,2}$/i.test(p)));
}

/** snake_case identifier from a field name / label / JSON key ("Search items" → search_items). */
export function argName(raw: string, taken: Set<string>): string {
  let n = raw
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (!n || /^\d/.test(n)) n = `arg_${n || taken.size + 1}`;
  let out = n;
  for (let i = 2; taken.has(out); i++) out = `${n}_${i}`;
  taken.add(out);
  return out;
}

/** Short preview of a value for messages (never used for secret values). */
export const preview = (v: string) => (v.length > 40 ? `${v.slice(0, 37)}...` : v);

/** A value as HTML or XML text writes it (`&` `<` `>` `"` as references): how a page prints it, or
 * writes it into an XML body. */
export const htmlEscaped = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
