// Templates: `{{ path | filter:arg }}` holes in strings, evaluated against a scope
// (args, secrets, vars, page, item, run). Pure functions shared by the validator (to check
// references at publish time) and the engines (to render requests and results).
import type { JsonTemplate } from './types.js';

export interface Hole {
  /** Path segments, e.g. ["secrets", "account", "password"]. */
  path: string[];
  filters: { name: string; arg?: unknown }[];
}

export interface Parsed {
  /** Literal text and holes in order. */
  parts: (string | Hole)[];
  /** True when the template is exactly one hole (the value keeps its type). */
  whole: boolean;
}

const HOLE = /\{\{\s*(.*?)\s*\}\}/g;
const PATH = /^[A-Za-z_$][\w$-]*(\.[\w$-]+|\[\d+\])*$/;

/** A path of several segments (`notes/orchard.txt`): each encoded, the slashes kept (filter `urlpath`). */
export const urlPath = (s: string) => s.split('/').map(encodeURIComponent).join('/');

export const FILTERS = [
  'urlencode',
  'urlpath',
  'urldecode',
  'jsunescape',
  'htmlunescape',
  'replace',
  'choose',
  'json',
  'int',
  'number',
  'string',
  'bool',
  'trim',
  'lower',
  'upper',
  'default',
  'join',
  'first',
  'length',
  'add',
  'iso',
  'crlf',
  'jsonesc',
  'xmlesc',
] as const;

export class TemplateError extends Error {}

/** A `$patch` whose `at` names nothing in the document the run read (no such record): the
 * arguments name something the site doesn't have. */
export class PatchMiss extends TemplateError {}

function parseFilter(raw: string): { name: string; arg?: unknown } {
  const i = raw.indexOf(':');
  const name = (i < 0 ? raw : raw.slice(0, i)).trim();
  if (!(FILTERS as readonly string[]).includes(name)) throw new TemplateError(`unknown filter '${name}' (known: ${FILTERS.join(', ')})`);
  if (i < 0) return { name };
  const argText = raw.slice(i + 1).trim();
  try {
    return { name, arg: JSON.parse(argText) };
  } catch {
    return { name, arg: argText };
  }
}

const cache = new Map<string, Parsed>();

export function parseTemplate(t: string): Parsed {
  const hit = cache.get(t);
  if (hit) return hit;
  const parts: (string | Hole)[] = [];
  let last = 0;
  for (const m of t.matchAll(HOLE)) {
    if (m.index! > last) parts.push(t.slice(last, m.index));
    const [expr, ...filters] = m[1].split('|');
    const pathText = expr.trim();
    if (!PATH.test(pathText)) throw new TemplateError(`'${pathText}' is not a path like args.name or vars.token`);
    const path = pathText.replace(/\[(\d+)\]/g, '.$1').split('.');
    parts.push({ path, filters: filters.map(parseFilter) });
    last = m.index! + m[0].length;
  }
  if (last < t.length) parts.push(t.slice(last));
  const parsed = { parts, whole: parts.length === 1 && typeof parts[0] !== 'string' };
  if (cache.size < 10_000) cache.set(t, parsed);
  return parsed;
}

/** Every hole of every string in a JSON template (with the JSON path of the string). */
export function holesOf(t: unknown, at: (string | number)[] = []): { loc: (string | number)[]; hole: Hole }[] {
  const out: { loc: (string | number)[]; hole: Hole }[] = [];
  if (typeof t === 'string') {
    for (const p of parseTemplate(t).parts) if (typeof p !== 'string') out.push({ loc: at, hole: p });
  } else if (Array.isArray(t)) {
    t.forEach((x, i) => out.push(...holesOf(x, [...at, i])));
  } else if (t && typeof t === 'object') {
    for (const [k, v] of Object.entries(t)) out.push(...holesOf(v, [...at, k]));
  }
  return out;
}

/** A value resolver: lets the engine compute secrets.x.totp lazily and record it for scrubbing. */
export type Lookup = (path: string[]) => unknown;

function applyFilter(v: unknown, f: { name: string; arg?: unknown }): unknown {
  switch (f.name) {
    case 'default':
      return v === undefined || v === null || v === '' ? (f.arg ?? null) : v;
    case 'urlencode':
      return encodeURIComponent(toText(v));
    case 'urlpath':
      return urlPath(toText(v));
    case 'urldecode':
      try {
        return decodeURIComponent(toText(v).replace(/\+/g, ' '));
      } catch {
        return toText(v);
      }
    case 'jsunescape':
      return jsUnescape(toText(v));
    case 'htmlunescape':
      return htmlUnescape(toText(v));
    case 'crlf':
      // Line breaks as a browser submits a form's field (CRLF): some sites split on `\r\n` only.
      return toText(v).replace(/\r?\n/g, '\r\n');
    case 'jsonesc':
      // Text as the inside of a JSON string (`"` → `\"`, a line break → `\n`): a value written into
      // JSON that travels as text (a form field holding a JSON document).
      return JSON.stringify(toText(v)).slice(1, -1);
    case 'xmlesc':
      // Text as XML (or HTML) character data or an attribute's value: a WebDAV PROPPATCH's
      // `<displayname>`, a SOAP or XML-RPC call's parameter.
      return toText(v).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
    case 'replace': {
      // replace:["from","to"] — every occurrence (e.g. spaces → "_" for page names).
      const [from, to] = Array.isArray(f.arg) ? f.arg : [];
      return typeof from === 'string' && from
        ? toText(v)
            .split(from)
            .join(typeof to === 'string' ? to : '')
        : toText(v);
    }
    case 'choose':
      return choose(v, f.arg);
    case 'json':
      return JSON.stringify(v ?? null);
    case 'int': {
      const n = typeof v === 'number' ? Math.trunc(v) : parseInt(toText(v).replace(/[^\d+-]/g, ''), 10);
      return Number.isFinite(n) ? n : null;
    }
    case 'number': {
      const n = typeof v === 'number' ? v : parseFloat(toText(v).replace(/[^\d.eE+-]/g, ''));
      return Number.isFinite(n) ? n : null;
    }
    case 'string':
      return toText(v);
    case 'bool':
      return typeof v === 'string' ? ['true', 'yes', '1', 'on', 'y'].includes(v.trim().toLowerCase()) : !!v;
    case 'trim':
      return toText(v).trim();
    case 'lower':
      return toText(v).toLowerCase();
    case 'upper':
      return toText(v).toUpperCase();
    case 'join':
      return Array.isArray(v) ? v.map(toText).join(typeof f.arg === 'string' ? f.arg : ',') : toText(v);
    case 'first':
      return Array.isArray(v) ? v[0] : v;
    case 'length':
      return Array.isArray(v) || typeof v === 'string' ? v.length : v && typeof v === 'object' ? Object.keys(v).length : 0;
    case 'add': {
      // (`{{run.now_s | add:-3600}}`: an hour before the run; a value that is no number stays as it is)
      const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
      return Number.isFinite(n) && typeof f.arg === 'number' && Number.isFinite(f.arg) ? n + f.arg : v;
    }
    case 'iso': {
      // (`{{run.now_ms | add:7200000 | iso}}`: two hours after the run, as an ISO date-time in UTC;
      // `iso:"s"` without the milliseconds, `iso:"date"` the date alone, `iso:"datetime"` as SQL
      // writes it: `2026-11-30 16:36:54`. A value that is no clock reading stays as it is.)
      const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,16}$/.test(v.trim()) ? Number(v) : Number.NaN;
      const d = new Date(n);
      if (!Number.isFinite(n) || Number.isNaN(d.getTime())) return v;
      const iso = d.toISOString();
      if (f.arg === 'datetime') return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
      return f.arg === 's' ? iso.replace(/\.\d{3}Z$/, 'Z') : f.arg === 'date' ? iso.slice(0, 10) : iso;
    }
    default:
      return v;
  }
}

/**
 * choose:[["Open","1"],["Closed","5"]] — the code a site sends for the choice a person reads (a
 * drop-down's option label → its value), matched without regard to case or surrounding space; any
 * other value (a code given directly, a choice the site added later) passes through unchanged.
 */
export function choose(v: unknown, table: unknown): unknown {
  if (!Array.isArray(table)) return v;
  const key = toText(v).trim().toLowerCase();
  const hit = table.find((e) => Array.isArray(e) && typeof e[0] === 'string' && e[0].trim().toLowerCase() === key);
  return hit ? hit[1] : v;
}

/** The value of a JS/JSON string literal's body: \/ \" \\ \n \uXXXX \xXX. */
export function jsUnescape(s: string): string {
  return s.replace(/\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)/g, (_, e: string) => {
    if (e[0] === 'u' || e[0] === 'x') return e.length > 1 ? String.fromCharCode(parseInt(e.slice(1), 16)) : e;
    return ({ n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', '0': '\0' } as Record<string, string>)[e] ?? e;
  });
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Text with HTML character references decoded (&amp; &#43; &#x2F; and the common named ones). */
export function htmlUnescape(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-zA-Z]+);/g, (m, e: string) =>
    e[0] === '#'
      ? codePointText(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10), m)
      : (ENTITIES[e.toLowerCase()] ?? m),
  );
}

export function toText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

function evalHole(h: Hole, lookup: Lookup): unknown {
  let v = lookup(h.path);
  for (const f of h.filters) v = applyFilter(v, f);
  return v;
}

/** Renders a template string: a whole-hole template keeps the value's type; otherwise text. */
export function render(t: string, lookup: Lookup): unknown {
  if (!t.includes('{{')) return t;
  const p = parseTemplate(t);
  if (p.whole) return evalHole(p.parts[0] as Hole, lookup);
  let s = '';
  for (const part of p.parts) s += typeof part === 'string' ? part : toText(evalHole(part, lookup));
  return s;
}

export const renderText = (t: string, lookup: Lookup): string => toText(render(t, lookup));

/** Renders a JSON template (strings are templates; {"$map": …} maps arrays; {"$patch": …} edits a document). */
export function renderJson(t: JsonTemplate | unknown, lookup: Lookup): unknown {
  if (typeof t === 'string') return render(t, lookup);
  if (Array.isArray(t)) return t.map((x) => renderJson(x, lookup));
  if (t && typeof t === 'object') {
    const o = t as Record<string, unknown>;
    if (typeof o.$map === 'string' && 'to' in o) {
      const list = render(o.$map, lookup);
      if (list === null || list === undefined) return [];
      if (!Array.isArray(list)) throw new TemplateError(`$map over ${o.$map} needs an array, got ${typeof list}`);
      const as = typeof o.as === 'string' ? o.as : 'item';
      return list.map((el, index) =>
        renderJson(o.to, (path) =>
          path[0] === as ? dig(el, path.slice(1)) : path[0] === 'index' && path.length === 1 ? index : lookup(path),
        ),
      );
    }
    if (typeof o.$patch === 'string' && Array.isArray(o.set)) return patched(o.$patch, o.set, lookup);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) out[k] = renderJson(v, lookup);
    return out;
  }
  return t;
}

// (Keys that would reach an object's prototype instead of the document.)
const UNSAFE_KEY = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * `{"$patch": "{{vars.config}}", "set": [{"at": ["folders", {"id": "{{args.folder}}"}, "label"],
 * "value": "{{args.label}}"}]}`: a copy of the document a step read, with each `at` set to its
 * value (read-modify-write: the site wants the whole document back). A string in `at` is a key, a
 * number an index, an object the one element of an array whose fields equal its (rendered) values.
 * `{"at": ["devices"], "append": {…}}` adds an element to the list `at` names (a new record).
 */
function patched(base: string, set: unknown[], lookup: Lookup): unknown {
  const doc = render(base, lookup);
  if (doc === null || typeof doc !== 'object')
    throw new TemplateError(`$patch of ${base} needs an object or array, got ${doc === null ? 'null' : typeof doc}`);
  const out = structuredClone(doc) as Record<string | number, unknown>;
  for (const s of set) {
    const { at, value, append } = (s ?? {}) as { at?: unknown; value?: unknown; append?: unknown };
    if (!Array.isArray(at) || !at.length) throw new TemplateError('$patch: each set needs a non-empty `at`');
    // (`append`: `at` names a list, which gets one more element.)
    const adds = append !== undefined;
    let cur: any = out;
    const upTo = (n: number) =>
      at
        .slice(0, n)
        .map((g) => (g && typeof g === 'object' ? '[…]' : String(g)))
        .join('.');
    at.forEach((seg, i) => {
      let key: string | number;
      if (typeof seg === 'number') key = seg;
      else if (typeof seg === 'string') key = renderText(seg, lookup);
      else if (seg && typeof seg === 'object' && Array.isArray(cur)) {
        const want = Object.entries(seg).map(([k, v]) => [k, renderText(String(v), lookup)] as const);
        const hits = cur.flatMap((el: any, j: number) =>
          el && typeof el === 'object' && want.every(([k, v]) => Object.hasOwn(el, k) && toText(el[k]) === v) ? [j] : [],
        );
        const which = want.map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join(', ');
        if (hits.length !== 1) throw new PatchMiss(`${hits.length ? 'several' : 'no'} ${upTo(i)} record(s) with ${which}`);
        key = hits[0];
      } else throw new PatchMiss(`${upTo(i) || 'the document'} is not a list of records`);
      if (typeof key === 'string' && UNSAFE_KEY.has(key)) throw new TemplateError(`$patch: the key ${key} is not allowed`);
      if (i === at.length - 1 && !adds) {
        if (Array.isArray(cur) ? typeof key !== 'number' : typeof cur !== 'object')
          throw new PatchMiss(`nothing to set at ${upTo(at.length)}`);
        cur[key] = renderJson(value, lookup);
      } else {
        const next = Object.hasOwn(cur, key) ? cur[key] : undefined;
        if (next === null || typeof next !== 'object') throw new PatchMiss(`the document has no ${upTo(i + 1)}`);
        cur = next;
      }
    });
    if (adds) {
      if (!Array.isArray(cur)) throw new PatchMiss(`${upTo(at.length)} is not a list`);
      cur.push(renderJson(append, lookup));
    }
  }
  return out;
}

export function dig(v: unknown, path: string[]): unknown {
  let cur: any = v;
  for (const k of path) {
    if (cur === null || cur === undefined) return undefined;
    cur = cur[k];
  }
  return cur;
}

/** The character of a numeric reference; the reference as is when it names no code point. */
function codePointText(cp: number, ref: string): string {
  return Number.isInteger(cp) && cp >= 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : ref;
}
