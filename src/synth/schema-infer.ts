// Stage 6a: JSON Schema from sample values. Samples merge: a property is required when present
// in every sample, arrays take every item, null makes a type nullable, and strings get a format
// (uuid, date, date-time, uri, email) only when every sample has it. Two things a sample can't
// tell, and the answers to come would break: a number seen only as -1, 0 or 1 (a ratio, a progress,
// a price of 0) may be a fraction next time, so it is a `number`; and keys that are data (ids,
// info-hashes, UUIDs, numbers, versions, dates, e-mail addresses, paths) are a map's, not field
// names: the next answer has other ones, so they share one schema and none is required.
import { stringFormat } from './values.js';

export type Schema = Record<string, any>;

/** Integer schemas of values that measure rather than count (a rate, a ratio, a load, a speed: an
 * integer in one answer, a fraction in the next): `number` unless the field's name counts things. */
const smallInts = new WeakSet<Schema>();

/** A key that is data rather than a field name: a hash, a UUID, a number, a version or a date
 * (`2.0.0`, `1.0.0-beta.1`, `2026-11-28`), anything with `@` or `/` (an address, a path). */
const DATA_KEY = /^(?:[0-9a-f]{16,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d[\d.:+TZ-]*(?:[-+][0-9a-z.-]+)?)$|[@/]/i;
/** A field that counts or numbers things is an integer whatever its value (`id: 1`, `total: 0`). */
const COUNTING_KEY =
  /^(?:num|count|total)(?:_|[A-Z])|(?:^|[_\s-])(?:id|count|total|index|idx|num|number|page|year|position|rank|length|size)$|[a-z](?:Id|ID|Count|Index|Num|Number|Page|Year|Size)$/;
const countingKey = (k: string) => COUNTING_KEY.test(k) || COUNTING_KEY.test(k.toLowerCase());

export function inferSchema(v: unknown): Schema {
  return settled(infer(v));
}

function infer(v: unknown): Schema {
  if (v === null) return { type: 'null' };
  if (Array.isArray(v)) {
    const items = v.map(infer).reduce<Schema | null>((a, b) => (a ? mergeSchemas(a, b) : b), null);
    return items ? { type: 'array', items } : { type: 'array' };
  }
  switch (typeof v) {
    case 'boolean':
      return { type: 'boolean' };
    case 'number': {
      if (!Number.isInteger(v)) return { type: 'number' };
      const s = { type: 'integer' };
      smallInts.add(s);
      return s;
    }
    case 'string': {
      const f = stringFormat(v);
      return f ? { type: 'string', format: f } : { type: 'string' };
    }
    case 'object': {
      const o = v as Record<string, unknown>;
      const properties: Record<string, Schema> = {};
      let values: Schema | undefined; // (of the data keys: one schema for all)
      for (const [k, x] of Object.entries(o)) {
        const s = infer(x);
        if (DATA_KEY.test(k)) values = values ? mergeSchemas(values, s) : s;
        else properties[k] = s;
        if (countingKey(k)) smallInts.delete(s);
      }
      const named = Object.keys(properties);
      if (!values) return { type: 'object', properties, required: named };
      return named.length
        ? { type: 'object', properties, required: named, additionalProperties: values }
        : { type: 'object', additionalProperties: values };
    }
    default:
      return {};
  }
}

/** A copy of `s` whose sub-schemas (each property, `items`, a map's `additionalProperties`) are `f`'s. */
function withChildren(s: Schema, f: (child: Schema, property?: string) => Schema): Schema {
  const out: Schema = { ...s };
  if (out.properties) out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k, f(v as Schema, k)]));
  for (const k of ['items', 'additionalProperties'] as const) if (out[k] && typeof out[k] === 'object') out[k] = f(out[k]);
  return out;
}

/** The schema with every integer seen only as -1, 0 or 1 widened to `number`. */
function settled(s: Schema): Schema {
  if (!s || typeof s !== 'object') return s;
  const out = withChildren(s, settled);
  if (smallInts.has(s)) out.type = Array.isArray(s.type) ? s.type.map((t: string) => (t === 'integer' ? 'number' : t)) : 'number';
  return out;
}

const typesOf = (s: Schema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

export function mergeSchemas(a: Schema, b: Schema): Schema {
  const ta = typesOf(a);
  const tb = typesOf(b);
  let types = [...new Set([...ta, ...tb])];
  // integer ∪ number = number
  if (types.includes('number')) types = types.filter((t) => t !== 'integer');
  const out: Schema = {};
  const nonNull = types.filter((t) => t !== 'null');
  if (nonNull.length === 1) {
    const base = ta.includes(nonNull[0]) || (nonNull[0] === 'number' && ta.includes('integer')) ? a : b;
    const other = base === a ? b : a;
    if (nonNull[0] === 'object') {
      const pa = a.properties ?? {};
      const pb = b.properties ?? {};
      const aObj = ta.includes('object');
      const bObj = tb.includes('object');
      const props: Record<string, Schema> = {};
      for (const k of new Set([...Object.keys(pa), ...Object.keys(pb)]))
        props[k] = pa[k] && pb[k] ? mergeSchemas(pa[k], pb[k]) : (pa[k] ?? pb[k]);
      out.properties = props;
      const req =
        aObj && bObj ? (a.required ?? []).filter((k: string) => (b.required ?? []).includes(k)) : ((aObj ? a.required : b.required) ?? []);
      out.required = req;
      const [xa, xb] = [aObj ? a.additionalProperties : undefined, bObj ? b.additionalProperties : undefined];
      if (xa || xb) out.additionalProperties = xa && xb ? mergeSchemas(xa, xb) : (xa ?? xb);
    } else if (nonNull[0] === 'array') {
      const ia = a.items;
      const ib = b.items;
      if (ia || ib) out.items = ia && ib ? mergeSchemas(ia, ib) : (ia ?? ib);
    } else if (nonNull[0] === 'string') {
      const fa = ta.includes('string') ? a.format : undefined;
      const fb = tb.includes('string') ? b.format : undefined;
      const onlyOne = !ta.includes('string') || !tb.includes('string');
      const f = onlyOne ? (fa ?? fb) : fa === fb ? fa : undefined;
      if (f) out.format = f;
    }
    void other;
  }
  out.type = types.length === 1 ? types[0] : types;
  if (!types.length) delete out.type;
  const merged = Object.fromEntries(Object.entries({ type: out.type, ...out })) as Schema;
  // (Still only -1, 0 or 1 when every integer side of the merge was.)
  const ints = [a, b].filter((s) => typesOf(s).includes('integer'));
  if (types.includes('integer') && ints.every((s) => smallInts.has(s))) smallInts.add(merged);
  return merged;
}

/** Schema of many samples of the same thing. */
export function inferMerged(samples: unknown[]): Schema {
  return settled(samples.map(infer).reduce<Schema | null>((a, b) => (a ? mergeSchemas(a, b) : b), null) ?? {});
}

/**
 * A read's JSON answer as a schema for the answers to come: a field's value may be null. The record
 * recorded had a description, an assignee, a due date; the next one may have none (the answer keeps
 * the key and says null), and that is not the site having changed. A record's own identity (`id`)
 * and the records of a list or a map stay as they were.
 */
export function nullableFields(s: Schema, nullable = false): Schema {
  if (!s || typeof s !== 'object') return s;
  const out = withChildren(s, (child, property) =>
    unknownWhenOnlyNull(nullableFields(child, property !== undefined && !IDENTITY_KEY.test(property))),
  );
  if (nullable && out.type !== undefined) {
    const types: string[] = Array.isArray(out.type) ? out.type : [out.type];
    if (!types.includes('null')) out.type = [...types, 'null'];
  }
  return out;
}
const IDENTITY_KEY = /^(?:_?id|uuid|guid|key|slug)$/i;

/**
 * A value seen only as null says nothing of its kind: the next answer may hold text, a number or
 * an object there (n8n's `staticData`, null until a workflow is switched on; a description nobody
 * wrote yet). Any value fits it.
 */
const unknownWhenOnlyNull = (s: Schema): Schema => (typesOf(s).length === 1 && typesOf(s)[0] === 'null' ? {} : s);

/**
 * In a read's list records, an object of text values only (a series' labels, a resource's tags)
 * is a map of text: which keys it holds differs from record to record, and with what was asked —
 * Prometheus' `metric` labels are the expression's own (`goversion` for one, `handler` for another).
 */
export function labelSets(s: Schema): Schema {
  if (!s || typeof s !== 'object') return s;
  const out = withChildren(s, labelSets);
  const rec = out.items;
  if (rec && typeof rec === 'object' && rec.properties) {
    out.items = {
      ...rec,
      properties: Object.fromEntries(
        Object.entries(rec.properties as Record<string, Schema>).map(([k, v]) => [k, textObject(v) ? textMap(v) : v]),
      ),
    };
  }
  return out;
}
const textObject = (s: Schema) =>
  typesOf(s).includes('object') &&
  !!s.properties &&
  Object.keys(s.properties).length >= 2 &&
  Object.values(s.properties as Record<string, Schema>).every(
    (p) => typesOf(p).length > 0 && typesOf(p).every((t) => t === 'string' || t === 'null'),
  );
const textMap = (s: Schema): Schema => ({ type: s.type, additionalProperties: { type: ['string', 'null'] } });

/**
 * A write's answer, seen once, as a schema loose enough for the answers to come: `required` only
 * at its root, and every value may be null. What comes back names what happened (`torrent-added`
 * or `torrent-duplicate`) and depends on what was written (a new file of an unknown type has no
 * `mimetype`); the recorded answer can't say which keys and values always come back.
 */
export function looseWriteAnswer(s: Schema, root = true): Schema {
  if (!s || typeof s !== 'object') return s;
  const out = withChildren(s, (child) => unknownWhenOnlyNull(looseWriteAnswer(child, false)));
  if (!root) {
    delete out.required;
    if (typeof out.type === 'string' && out.type !== 'null') out.type = [out.type, 'null'];
    delete out.format; // (a value of another kind may come back: null, or a name where a date was)
  }
  for (const k of ['anyOf', 'oneOf'] as const) if (Array.isArray(out[k])) out[k] = out[k].map((v: Schema) => looseWriteAnswer(v, root));
  return out;
}
