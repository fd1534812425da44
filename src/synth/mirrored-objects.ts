// Objects of a write's JSON body copied from a record the page read (a GraphQL admin's update whose
// `input.translations[0]` repeats the product's translation — its id, language, name, slug — beside
// the one field the person changed). Replayed as recorded, a run on another record would write the
// recorded record's name and text over it. Each such leaf is read instead from the same place of
// the record the run reads. The whole-document case (the body IS the document) is
// read-modify-write.ts; this one finds objects inside a body, against objects inside an answer.
import { isJson, isRead } from './normalize.js';
import { jp, parseJson } from './slots.js';
import type { Exchange } from './types.js';

/** Scalar leaves an object must share with the record, at least (fewer match by chance). */
const MIN_SHARED = 3;
/** Share of the object's scalar leaves that must equal the record's. */
const SHARED = 0.8;

export interface MirroredLeaf {
  producer: Exchange;
  /** JSONPath of the equal leaf in the producer's answer. */
  path: string;
  /** Not a string there (a number, a boolean, null): read as JSON. */
  json: boolean;
}

type Obj = Record<string, unknown>;
const ID = /^(id|uuid)$|(_id|Id|ID)$/;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const scalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/** Every object in `v` with its path. */
function objects(v: unknown, at: (string | number)[] = [], out: { path: (string | number)[]; obj: Obj }[] = []) {
  if (Array.isArray(v)) v.forEach((x, i) => objects(x, [...at, i], out));
  else if (isObj(v)) {
    out.push({ path: at, obj: v });
    for (const [k, x] of Object.entries(v)) objects(x, [...at, k], out);
  }
  return out;
}

/** The value at `path` in `v`. */
function at(v: unknown, path: (string | number)[]): unknown {
  return path.reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), v);
}

/** How many trailing path segments two paths share. */
function sameTail(a: (string | number)[], b: (string | number)[]): number {
  let n = 0;
  while (n < a.length && n < b.length && String(a[a.length - 1 - n]) === String(b[b.length - 1 - n])) n++;
  return n;
}

/**
 * The leaves of `x`'s JSON body (slot keys, path segments joined with '.') that repeat a record
 * read before: each object of the body holding at least three scalar fields, 80% of them equal to
 * an object's of an earlier read answer (same origin, the latest first), maps its equal leaves to
 * that object's. An empty map when nothing is copied.
 */
export function mirroredLeaves(x: Exchange, earlier: Exchange[]): Map<string, MirroredLeaf> {
  const out = new Map<string, MirroredLeaf>();
  if (isRead(x) || !x.body || !/json/i.test(x.body.mime)) return out;
  const body = parseJson(x.body.text);
  const sent = objects(body).filter(({ obj }) => Object.values(obj).filter(scalar).length >= MIN_SHARED);
  if (!sent.length) return out;
  const origin = new URL(x.url).origin;
  const reads = earlier
    .filter((y) => isRead(y) && isJson(y) && y.status < 300 && new URL(y.url).origin === origin)
    .map((y) => ({ y, objs: objects(parseJson(y.text)) }));
  for (const { path, obj } of sent) {
    const pairs = Object.entries(obj).filter(([, v]) => scalar(v));
    for (const { y, objs } of reads) {
      // (Ties — a product repeats its translation's name and slug — go to the object at the same
      // place: `translations[0]` for `translations[0]`; then to the smaller one.)
      const best = objs
        .map((o) => ({ o, equal: pairs.filter(([k, v]) => o.obj[k] === v).map(([k]) => k), tail: sameTail(o.path, path) }))
        .sort((a, b) => b.equal.length - a.equal.length || b.tail - a.tail || Object.keys(a.o.obj).length - Object.keys(b.o.obj).length)[0];
      if (!best || best.equal.length < MIN_SHARED || best.equal.length < SHARED * pairs.length) continue;
      const copy = (into: (string | number)[], from: (string | number)[], keys: string[], o: Obj) => {
        for (const k of keys) {
          const key = [...into, k].join('.');
          if (!out.has(key)) out.set(key, { producer: y, path: jp([...from, k]), json: typeof o[k] !== 'string' });
        }
      };
      copy(path, best.o.path, best.equal, obj);
      // The objects holding the copied one under the same keys in both (`input` and `product`, for
      // `input.translations[0]` and `product.translations[0]`): their equal scalar fields are copies
      // too (`enabled`, which the person left alone), however few.
      const tail = best.tail;
      if (tail > 0 && tail < path.length && tail < best.o.path.length) {
        const [up, from] = [path.slice(0, -tail), best.o.path.slice(0, -tail)];
        const mine = objs.find((o) => o.path.length === from.length && o.path.every((g, i) => g === from[i]))?.obj;
        const theirs = at(body, up);
        if (mine && isObj(theirs))
          // (Not its id: what the write is addressed by, which an argument names.)
          copy(
            up,
            from,
            Object.keys(theirs).filter((k) => !ID.test(k) && scalar(theirs[k]) && theirs[k] === mine[k]),
            theirs,
          );
      }
      break;
    }
  }
  return out;
}
