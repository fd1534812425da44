// Read-modify-write: a write whose JSON body is a document the page read just before, sent back
// whole with a few leaves changed (Syncthing's PUT of its whole configuration, a dashboard's JSON,
// an app's settings object). Replayed as recorded, the run would write the recorded document over
// whatever the site holds by then, and an argument naming another record would rewrite the
// recorded one in place. Instead the run reads the document again and sets only the leaves the
// person changed (`$patch`), finding each record by its id or by the argument that names it.
import type { PatchTemplate } from '../formats/definition/types.js';
import { isJson, isRead } from './normalize.js';
import { isFormBody, parseJson } from './slots.js';
import type { Exchange } from './types.js';

/** Smaller bodies match a read answer by chance (`{"ok": true}`). */
const MIN_LEAVES = 8;
/** Share of the body's leaves that must come back unchanged from the document. */
const KEPT = 0.8;
/** Share of the document's leaves that must be sent back (the page may drop a computed field). */
const SENT_BACK = 0.95;

export interface ReadBack {
  /** The read whose JSON answer the write sends back. */
  producer: Exchange;
  doc: unknown;
  /** Slot keys (JSON paths joined with '.') sent with the value the document held. */
  kept: Set<string>;
}

/** A record list's id field: present in every element, a scalar, unique (so records are matched
 * by id, not by place: the page may sort the list it sends back). */
const ID_FIELD = /^(id|uuid|key|name|slug)$|(_id|Id|ID)$/;
function recordKey(list: unknown[]): string | null {
  const first = list[0];
  if (!list.length || !first || typeof first !== 'object' || Array.isArray(first)) return null;
  const keys = Object.keys(first)
    .filter((k) => ID_FIELD.test(k))
    .sort((a, b) => Number(/^name$/.test(a)) - Number(/^name$/.test(b)));
  return (
    keys.find((k) => {
      const vs = list.map((o) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined));
      return vs.every((v) => v !== null && v !== undefined && typeof v !== 'object') && new Set(vs.map(String)).size === vs.length;
    }) ?? null
  );
}

type Seg = string | number | { k: string; v: string };
interface Leaf {
  /** The path as sent (list indexes). */
  path: (string | number)[];
  /** The same path with each record of a keyed list named by its id. */
  keyed: Seg[];
  value: unknown;
}

function leaves(v: unknown, path: (string | number)[] = [], keyed: Seg[] = []): Leaf[] {
  if (Array.isArray(v)) {
    const key = recordKey(v);
    return v.flatMap((x, i) => leaves(x, [...path, i], [...keyed, key ? { k: key, v: String((x as Record<string, unknown>)[key]) } : i]));
  }
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => leaves(x, [...path, k], [...keyed, k]));
  return [{ path, keyed, value: v }];
}
const at = (l: Leaf) => JSON.stringify(l.keyed);

/** The read (latest first in `earlier`) whose document `x` writes back changed, if any. */
export function documentReadBack(x: Exchange, earlier: Exchange[]): ReadBack | null {
  if (isRead(x) || !x.body || /multipart/i.test(x.body.mime) || isFormBody(x.body)) return null;
  const body = parseJson(x.body.text);
  if (!body || typeof body !== 'object') return null;
  const sent = leaves(body);
  if (sent.length < MIN_LEAVES) return null;
  const sentAt = new Set(sent.map(at));
  for (const y of earlier) {
    if (!isRead(y) || !isJson(y) || y.status >= 300 || new URL(y.url).origin !== new URL(x.url).origin) continue;
    const doc = parseJson(y.text);
    if (!doc || typeof doc !== 'object' || Array.isArray(doc) !== Array.isArray(body)) continue;
    const read = leaves(doc);
    if (read.length < MIN_LEAVES || read.filter((l) => sentAt.has(at(l))).length < SENT_BACK * read.length) continue;
    const readAt = new Map(read.map((l) => [at(l), l.value]));
    const kept = sent.filter((l) => readAt.has(at(l)) && readAt.get(at(l)) === l.value);
    if (kept.length < KEPT * sent.length || kept.length === sent.length) continue;
    return { producer: y, doc, kept: new Set(kept.map((l) => l.path.join('.'))) };
  }
  return null;
}

const dig = (v: unknown, path: (string | number)[]) =>
  path.reduce<any>((cur, k) => (cur !== null && typeof cur === 'object' ? cur[k] : undefined), v);

/**
 * `at` for a changed leaf: each record of a keyed list is selected by its id — as the arguments
 * give it where the body templates that field (`{"id": "{{args.folder}}"}`), else as recorded.
 */
function selectorPath(l: Leaf, body: unknown): PatchTemplate['set'][number]['at'] {
  return l.keyed.map((seg, i) => {
    if (typeof seg !== 'object') return seg;
    const sentAs = dig(body, [...l.path.slice(0, i + 1), seg.k]);
    return { [seg.k]: typeof sentAs === 'string' && /\{\{\s*args\./.test(sentAs) ? sentAs : seg.v };
  });
}

/** The write's body as a `$patch` of the document read into `varName`: only the changed leaves are
 * set, and a record that is new in a list is appended whole. */
export function patchOf(recorded: unknown, body: unknown, rb: ReadBack, varName: string): PatchTemplate {
  const docLeaves = leaves(rb.doc);
  const inDoc = new Set(docLeaves.map(at));
  // Every place of the document (its records, by id or index), to tell a new record from a changed one.
  const places = new Set(docLeaves.flatMap((l) => l.keyed.map((_, n) => JSON.stringify(l.keyed.slice(0, n + 1)))));
  const set: PatchTemplate['set'] = [];
  const added = new Set<string>();
  for (const l of leaves(recorded)) {
    if (rb.kept.has(l.path.join('.'))) continue;
    const fresh = l.keyed.findIndex((g, n) => typeof g !== 'string' && !places.has(JSON.stringify(l.keyed.slice(0, n + 1))));
    if (fresh >= 0) {
      const record = JSON.stringify(l.keyed.slice(0, fresh + 1));
      if (!added.has(record))
        set.push({ at: selectorPath({ ...l, keyed: l.keyed.slice(0, fresh) }, body), append: dig(body, l.path.slice(0, fresh + 1)) });
      added.add(record);
      continue;
    }
    const path = selectorPath(l, body);
    // (A field the page adds to records the arguments don't name — Angular's `$$hashKey`, an
    // `_editing` flag — is its own state, not an edit: it would pin those records to the recording.)
    if (!inDoc.has(at(l)) && path.some((g) => typeof g === 'object' && !/\{\{/.test(Object.values(g)[0]!))) continue;
    set.push({ at: path, value: dig(body, l.path) });
  }
  return { $patch: `{{vars.${varName}}}`, set };
}
