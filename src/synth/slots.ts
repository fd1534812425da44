// The literals of a request that a replay must reproduce: path segments, query parameters, form
// and multipart fields, JSON leaves and the headers a site reads (browser-managed headers and
// cookies are left to the engine and its cookie jar).
import type { Exchange, Slot } from './types.js';
import { formDecode, looksRandom } from './values.js';

/** A path into a JSON value as JSONPath: `$.a[0]["b c"]`. */
export const jp = (path: (string | number)[]) =>
  `$${path.map((p) => (typeof p === 'number' ? `[${p}]` : /^[A-Za-z_$][\w$]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`)).join('')}`;

/** Headers the browser or the HTTP client sets by itself; never part of a plan. */
const MANAGED =
  /^(host|connection|keep-alive|content-length|content-type|cookie|accept-encoding|accept-language|user-agent|referer|origin|cache-control|pragma|upgrade-insecure-requests|te|priority|dnt|if-none-match|if-modified-since|sec-.*|:.*)$/i;

export const isManagedHeader = (name: string) => MANAGED.test(name);

export function jsonLeaves(v: unknown, at: (string | number)[] = []): { path: (string | number)[]; value: unknown }[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => jsonLeaves(x, [...at, i]));
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => jsonLeaves(x, [...at, k]));
  return [{ path: at, value: v }];
}

/** An object whose values are the records of a list keyed by id: two or more, each an object, each key with a digit or random-looking. */
export function keyedList(v: unknown): v is Record<string, unknown> {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const entries = Object.entries(v);
  return (
    entries.length >= 2 &&
    entries.every(([k, r]) => (/\d/.test(k) || looksRandom(k)) && r !== null && typeof r === 'object' && !Array.isArray(r))
  );
}

/** Paths of the records that a list keyed by id (`keyedList`) anywhere in `doc` holds under key `k`. */
export function recordKeyPaths(
  doc: unknown,
  k: string,
  at: (string | number)[] = [],
  out: (string | number)[][] = [],
): (string | number)[][] {
  if (Array.isArray(doc)) doc.forEach((d, i) => recordKeyPaths(d, k, [...at, i], out));
  else if (doc && typeof doc === 'object') {
    if (Object.hasOwn(doc, k) && keyedList(doc)) out.push([...at, k]);
    for (const [key, d] of Object.entries(doc)) recordKeyPaths(d, k, [...at, key], out);
  }
  return out;
}

export function parseJson(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A body sent as an urlencoded form that is one. A page may post raw text or JSON under jQuery's
 * default form content type (Rspamd's web UI: a pasted email to scan, its thresholds as
 * `[15,null,6,4]`); read as a form, such a body is one field named by the whole text, and sent
 * again as a form it is no longer what the site reads. A form's serializer writes no line break,
 * and a field has a `=`; JSON parses.
 */
export function isFormBody(b: { mime: string; text?: string }): boolean {
  if (!/x-www-form-urlencoded/i.test(b.mime)) return false;
  const t = b.text ?? '';
  if (/^\s*[[{]/.test(t) && parseJson(t) !== undefined) return false;
  return !/[\r\n]/.test(t) && (t.includes('=') || !/[\s"<>]/.test(t));
}

export function requestSlots(x: Exchange): Slot[] {
  const out: Slot[] = [];
  const u = new URL(x.url);
  u.pathname.split('/').forEach((seg, i) => seg && out.push({ exchange: x.id, where: 'path', key: String(i), value: formDecode(seg) }));
  let qi = 0;
  for (const [k, v] of u.searchParams) out.push({ exchange: x.id, where: 'query', key: k, value: v, pos: qi++ });
  for (const h of x.reqHeaders)
    if (!isManagedHeader(h.name) && !/^accept$/i.test(h.name))
      out.push({ exchange: x.id, where: 'header', key: h.name.toLowerCase(), value: h.value });
  const b = x.body;
  if (b) {
    if (/multipart\/form-data/i.test(b.mime)) {
      (b.params ?? []).forEach((p, pos) => {
        if (p.value !== undefined && p.fileName === undefined)
          out.push({ exchange: x.id, where: 'multipart', key: p.name, value: p.value, pos });
      });
    } else if (isFormBody(b)) {
      const params = b.params?.length ? b.params.map((p) => [p.name, p.value ?? ''] as const) : [...new URLSearchParams(b.text ?? '')];
      params.forEach(([k, v], pos) => out.push({ exchange: x.id, where: 'form', key: k, value: v, pos }));
    } else if (/json/i.test(b.mime) || /^\s*[[{]/.test(b.text ?? '')) {
      const j = parseJson(b.text);
      if (j !== undefined) {
        for (const leaf of jsonLeaves(j)) {
          const t = leaf.value === null ? 'null' : (typeof leaf.value as 'string' | 'number' | 'boolean');
          out.push({
            exchange: x.id,
            where: 'json',
            key: leaf.path.join('.'),
            jsonPath: leaf.path,
            value: leaf.value === null ? '' : String(leaf.value),
            jsonType: t,
          });
        }
      } else if (b.text) out.push({ exchange: x.id, where: 'text', key: 'body', value: b.text });
    } else if (b.text) out.push({ exchange: x.id, where: 'text', key: 'body', value: b.text });
  }
  return out;
}

/** A query or form field's name holding a number (`chk_7`, `hostids[10561]`): around it, and it. */
export function idInName(key: string): { before: string; id: string; after: string } | null {
  const m = /^(.*?[^\d])(\d+)(\D*)$/.exec(key);
  return m ? { before: m[1]!, id: m[2]!, after: m[3]! } : null;
}

/** Path of the largest array of objects in a JSON value (the records), or null. */
export function recordsPath(v: unknown, at: (string | number)[] = []): { path: (string | number)[]; size: number } | null {
  let best: { path: (string | number)[]; size: number } | null = null;
  const visit = (x: unknown, p: (string | number)[]) => {
    if (Array.isArray(x)) {
      if (x.length && x.every((e) => e && typeof e === 'object' && !Array.isArray(e)) && (!best || x.length > best.size))
        best = { path: p, size: x.length };
      x.forEach((e, i) => visit(e, [...p, i]));
    } else if (x && typeof x === 'object') for (const [k, e] of Object.entries(x)) visit(e, [...p, k]);
  };
  visit(v, at);
  return best;
}
