// A value traced from a record of a JSON list (`$.data[8].id`) is read, at run time, from the record
// the arguments name, not from the eighth: the person picked "Orchard Notes volume 9" in a list and
// the site was sent its id; run with "The Broken Fence", the connector must send that book's id.
// When the recorded record has a field equal to an argument's example, and no other record of the
// list has that value there, the extractor becomes `{path: "$.data[*]", where: {title:
// "{{args.title}}"}, select: "$.id"}` (src/runtime/worker/engines/record-where.ts reads it).
import type { JsonExtractor } from '../formats/definition/types.js';
import { type Found, jsonPathOf } from './producers.js';
import { isJson } from './normalize.js';
import { jsonLeaves, keyedList, parseJson, recordKeyPaths } from './slots.js';
import type { ArgValue } from './substitute.js';
import type { Exchange } from './types.js';

type Seg = string | number;

/** Our own JSONPath form (`$.a[2]["b c"].d`, producers.ts `jsonPathOf`) back to its segments; null if not. */
export function pathSegments(path: string): Seg[] | null {
  if (!path.startsWith('$')) return null;
  const out: Seg[] = [];
  const re = /\.([A-Za-z_$][\w$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;
  re.lastIndex = 1;
  while (re.lastIndex < path.length) {
    const at = re.lastIndex;
    const m = re.exec(path);
    if (!m || m.index !== at) return null;
    out.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : (JSON.parse(m[3]!) as string)));
  }
  return out;
}

const pathOf = jsonPathOf;

const at = (doc: unknown, segs: Seg[]): unknown =>
  segs.reduce<unknown>((cur, k) => (cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[k] : undefined), doc);

/** A record's own scalar fields and those of its nested objects (not inside its own lists), as dotted keys. */
function fieldsOf(record: Record<string, unknown>): { key: string; value: string }[] {
  return jsonLeaves(record)
    .filter((l) => l.path.length && l.path.every((p) => typeof p === 'string' && !p.includes('.')))
    .filter((l) => l.value !== null && typeof l.value !== 'object' && typeof l.value !== 'boolean')
    .map((l) => ({ key: l.path.join('.'), value: String(l.value) }));
}

export interface ByArgument {
  extractor: JsonExtractor;
  arg: string;
  how: string;
}

/**
 * The argument-named form of `x` read from `doc` (the producer's parsed body), or null: `x`'s path
 * goes through a list (innermost first) — an array, or an object keyed by id — whose recorded record
 * has exactly one field equal to an argument's example (at least 2 characters), held by no other
 * record of that list at that field, and the traced value is not that field itself. A path ending in
 * `~` (`$.torrents["<hash>"]~`) traces the record's own key: it is read by `select: "~"`.
 */
export function recordByArgument(x: JsonExtractor, doc: unknown, args: ArgValue[]): ByArgument | null {
  if (x.where || x.select !== undefined) return null;
  const ownKey = x.path.endsWith('~');
  const segs = pathSegments(ownKey ? x.path.slice(0, -1) : x.path);
  if (!segs) return null;
  const named = args.filter((a) => a.example.trim().length >= 2);
  if (!named.length) return null;
  for (let i = segs.length - 1; i >= (ownKey ? segs.length - 1 : 0); i--) {
    const list = at(doc, segs.slice(0, i));
    const record = at(doc, segs.slice(0, i + 1));
    const keyed = typeof segs[i] === 'string' && keyedList(list);
    if (!keyed && (ownKey || typeof segs[i] !== 'number' || !Array.isArray(list))) continue;
    if (!record || typeof record !== 'object' || Array.isArray(record)) continue;
    const rest = segs.slice(i + 1);
    const fields = fieldsOf(record as Record<string, unknown>);
    const siblings = Object.entries(list as object).filter(([k]) => k !== String(segs[i]));
    for (const a of named) {
      const hits = fields.filter((f) => f.value === a.example && f.key !== rest.join('.'));
      if (hits.length !== 1) continue;
      const key = hits[0]!.key;
      const others = siblings.filter(([, r]) => r && typeof r === 'object' && String(at(r, key.split('.')) ?? '') === a.example);
      if (others.length) continue;
      return {
        extractor: {
          ...x,
          path: `${pathOf(segs.slice(0, i))}[*]`,
          where: { [key]: `{{args.${a.name}}}` },
          ...(ownKey ? { select: '~' } : rest.length ? { select: pathOf(rest) } : {}),
        },
        arg: a.name,
        how: `the record of ${pathOf(segs.slice(0, i))} whose ${key} is the argument ${a.name}`,
      };
    }
  }
  return null;
}

/**
 * An id that is only the KEY of a record in an earlier JSON answer (`{"torrents": {"<hash>":
 * {"name": …}}}`, no field of the record holds it), read from the record an argument names: the
 * nearest answer where that holds.
 */
export function keyedRecord(earlier: Exchange[], v: string, args: ArgValue[]): { x: Exchange; f: Found; arg: string; name: string } | null {
  if (!args.some((a) => a.example.trim().length >= 2)) return null;
  for (const y of earlier) {
    if (!isJson(y) || !y.text?.includes(JSON.stringify(v))) continue;
    const doc = parseJson(y.text);
    for (const path of recordKeyPaths(doc, v)) {
      const by = recordByArgument({ from: 'json', path: `${pathOf(path)}~` }, doc, args);
      // (Named by its list: `torrents` → `torrent_id`.)
      const list = path
        .slice(0, -1)
        .filter((g): g is string => typeof g === 'string')
        .at(-1);
      const name = list && /^[a-z]\w*$/i.test(list) ? `${list.replace(/s$/, '')}_id` : 'record_id';
      if (by) return { x: y, f: { extractor: by.extractor, rank: 0, how: `JSON key ${pathOf(path)}, ${by.how}` }, arg: by.arg, name };
    }
  }
  return null;
}
