// Stage 6a: JSON Schema from sample values. Samples merge: a property is required when present
// in every sample, arrays take every item, null makes a type nullable, and strings get a format
// (uuid, date, date-time, uri, email) only when every sample has it.
import { stringFormat } from './values.js';

export type Schema = Record<string, any>;

export function inferSchema(v: unknown): Schema {
  if (v === null) return { type: 'null' };
  if (Array.isArray(v)) {
    const items = v.map(inferSchema).reduce<Schema | null>((a, b) => (a ? mergeSchemas(a, b) : b), null);
    return items ? { type: 'array', items } : { type: 'array' };
  }
  switch (typeof v) {
    case 'boolean':
      return { type: 'boolean' };
    case 'number':
      return { type: Number.isInteger(v) ? 'integer' : 'number' };
    case 'string': {
      const f = stringFormat(v);
      return f ? { type: 'string', format: f } : { type: 'string' };
    }
    case 'object': {
      const o = v as Record<string, unknown>;
      const properties: Record<string, Schema> = {};
      for (const [k, x] of Object.entries(o)) properties[k] = inferSchema(x);
      return { type: 'object', properties, required: Object.keys(o) };
    }
    default:
      return {};
  }
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
  return Object.fromEntries(Object.entries({ type: out.type, ...out })) as Schema;
}

/** Schema of many samples of the same thing. */
export function inferMerged(samples: unknown[]): Schema {
  return samples.map(inferSchema).reduce<Schema | null>((a, b) => (a ? mergeSchemas(a, b) : b), null) ?? {};
}

/**
 * A write's answer, seen once, as a schema loose enough for the answers to come: `required` only
 * at its root, and every value may be null. What comes back names what happened (`torrent-added`
 * or `torrent-duplicate`) and depends on what was written (a new file of an unknown type has no
 * `mimetype`); the recorded answer can't say which keys and values always come back.
 */
export function looseWriteAnswer(s: Schema, root = true): Schema {
  if (!s || typeof s !== 'object') return s;
  const out: Schema = { ...s };
  if (!root) {
    delete out.required;
    if (typeof out.type === 'string' && out.type !== 'null') out.type = [out.type, 'null'];
    delete out.format; // (a value of another kind may come back: null, or a name where a date was)
  }
  if (out.properties)
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k, looseWriteAnswer(v as Schema, false)]));
  if (out.items) out.items = looseWriteAnswer(out.items, false);
  for (const k of ['anyOf', 'oneOf'] as const) if (Array.isArray(out[k])) out[k] = out[k].map((v: Schema) => looseWriteAnswer(v, root));
  return out;
}
