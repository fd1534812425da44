// JSONPath evaluation for extractors. The paths the synthesizer writes (`$.data[0]["node name"]`,
// synth/slots.ts `jp`: names, indexes, `*`, JSON-quoted keys) are walked here, segment by segment;
// anything else (filters, recursive descent, slices, unions) goes to jsonpath-plus. Why not all to
// jsonpath-plus: it can't read a quoted key that holds a quote or a comma (n8n names a workflow's
// connections by its nodes' names: `"When clicking 'Execute workflow'"`), so such a path found
// nothing and the run failed as if the site had changed.
import { JSONPath } from 'jsonpath-plus';

/** One match: its value and its key in the object or list that holds it (null for the root). */
export interface PathMatch {
  value: unknown;
  parentProperty: string | number | null;
}

const WILDCARD = Symbol('*');
type Segment = string | number | typeof WILDCARD;

const TOKEN = /\.([A-Za-z_$][\w$]*)|\.\*|\[\*\]|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]|\['((?:[^'\\]|\\.)*)'\]/y;

/** The segments of a plain path (names, indexes, wildcards, quoted keys), or null for any other JSONPath. */
export function plainSegments(path: string): Segment[] | null {
  if (!path.startsWith('$')) return null;
  const out: Segment[] = [];
  TOKEN.lastIndex = 1;
  while (TOKEN.lastIndex < path.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(path);
    if (!m) return null;
    const [whole, name, index, dq, sq] = m;
    if (name !== undefined) out.push(name);
    else if (index !== undefined) out.push(Number(index));
    else if (dq !== undefined) {
      // (A hand-written key with an escape JSON has not, `["it\'s"]`: jsonpath-plus reads the path.)
      const key = jsonString(dq);
      if (key === null) return null;
      out.push(key);
    } else if (sq !== undefined) out.push(sq.replace(/\\(.)/g, '$1'));
    else if (whole === '.*' || whole === '[*]') out.push(WILDCARD);
    if (TOKEN.lastIndex === at) return null;
  }
  return out;
}

function jsonString(inner: string): string | null {
  try {
    return JSON.parse(`"${inner}"`) as string;
  } catch {
    return null;
  }
}

function walk(json: unknown, segments: Segment[]): PathMatch[] {
  let at: PathMatch[] = [{ value: json, parentProperty: null }];
  for (const s of segments) {
    const next: PathMatch[] = [];
    for (const { value } of at) {
      if (value === null || typeof value !== 'object') continue;
      if (s === WILDCARD) {
        if (Array.isArray(value)) value.forEach((v, i) => next.push({ value: v, parentProperty: i }));
        else for (const [k, v] of Object.entries(value)) next.push({ value: v, parentProperty: k });
      } else if (Array.isArray(value)) {
        const i = typeof s === 'number' ? s : /^\d+$/.test(s) ? Number(s) : -1;
        if (i >= 0 && i < value.length) next.push({ value: value[i], parentProperty: i });
        else if (typeof s === 'string' && s === 'length') next.push({ value: value.length, parentProperty: s });
      } else if (Object.hasOwn(value, String(s))) {
        next.push({ value: (value as Record<string, unknown>)[String(s)], parentProperty: String(s) });
      }
    }
    at = next;
  }
  return at;
}

/** Every match of `path` in `json`, in document order. */
export function jsonPathMatches(path: string, json: unknown): PathMatch[] {
  const segments = plainSegments(path);
  if (segments) return walk(json, segments);
  return (JSONPath({ path, json: json as object, wrap: true, resultType: 'all' }) as PathMatch[]).map((m) => ({
    value: m.value,
    parentProperty: m.parentProperty ?? null,
  }));
}

/** Every value `path` finds in `json`. */
export const jsonPathValues = (path: string, json: unknown): unknown[] => jsonPathMatches(path, json).map((m) => m.value);
