// Error shapes: 422 in FastAPI/pydantic v2 form (SPEC §7), everything else {"detail": "..."}.
import type { ErrorObject } from 'ajv';

export type Loc = (string | number)[];

export interface ValidationEntry {
  loc: Loc;
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/** An error with an HTTP status and a human-readable detail; thrown by services. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

/** A 422 raised by a service rule (not by schema validation). */
export class RequestValidationError extends Error {
  constructor(readonly entries: ValidationEntry[]) {
    super(entries.map((e) => `${e.loc.join('.')}: ${e.msg}`).join('; '));
  }
}

export const notFound = (what: string) => new HttpError(404, `${what} not found`);

export function validationError(loc: Loc, msg: string, type = 'value_error', extra: Partial<ValidationEntry> = {}) {
  return new RequestValidationError([{ loc, msg, type, ...extra }]);
}

const PART_LOC: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

function get(data: unknown, path: Loc): unknown {
  let cur: any = data;
  for (const k of path) {
    if (cur === null || cur === undefined) return undefined;
    cur = cur[k as any];
  }
  return cur;
}

/** '/a/0/b' → ['a', 0, 'b'] with indices as numbers where the data holds an array. */
function pointerToLoc(pointer: string, data: unknown): Loc {
  if (!pointer) return [];
  const loc: Loc = [];
  let cur: any = data;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const k: string | number = Array.isArray(cur) && /^\d+$/.test(key) ? Number(key) : key;
    loc.push(k);
    cur = cur === null || cur === undefined ? undefined : cur[k as any];
  }
  return loc;
}

function pyRepr(v: unknown): string {
  return typeof v === 'string' ? `'${v}'` : String(v);
}

function orList(values: unknown[]): string {
  const r = values.map(pyRepr);
  return r.length <= 1 ? r.join('') : `${r.slice(0, -1).join(', ')} or ${r[r.length - 1]}`;
}

function typeError(expected: string, input: unknown, part: string): Pick<ValidationEntry, 'type' | 'msg'> {
  const fromString = typeof input === 'string' && part !== 'body';
  switch (expected) {
    case 'integer':
      if (typeof input === 'number') return { type: 'int_from_float', msg: 'Input should be a valid integer, got a number with a fractional part' };
      if (typeof input === 'string') return { type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer' };
      return { type: 'int_type', msg: 'Input should be a valid integer' };
    case 'number':
      return typeof input === 'string'
        ? { type: 'float_parsing', msg: 'Input should be a valid number, unable to parse string as a number' }
        : { type: 'float_type', msg: 'Input should be a valid number' };
    case 'boolean':
      return fromString
        ? { type: 'bool_parsing', msg: 'Input should be a valid boolean, unable to interpret input' }
        : { type: 'bool_type', msg: 'Input should be a valid boolean' };
    case 'object':
      return { type: 'dict_type', msg: 'Input should be a valid dictionary' };
    case 'array':
      return { type: 'list_type', msg: 'Input should be a valid list' };
    case 'null':
      return { type: 'none_required', msg: 'Input should be None' };
    default:
      return { type: 'string_type', msg: 'Input should be a valid string' };
  }
}

const FORMAT_ERRORS: Record<string, Pick<ValidationEntry, 'type' | 'msg'>> = {
  uuid: { type: 'uuid_parsing', msg: 'Input should be a valid UUID' },
  'date-time': { type: 'datetime_parsing', msg: 'Input should be a valid datetime' },
  date: { type: 'date_parsing', msg: 'Input should be a valid date' },
  uri: { type: 'url_parsing', msg: 'Input should be a valid URL' },
  email: { type: 'value_error', msg: 'value is not a valid email address' },
};

/** Maps one ajv error onto a pydantic-style entry, or null for summary errors we drop. */
function mapAjvError(e: ErrorObject, part: string, data: unknown): ValidationEntry | null {
  const base = [PART_LOC[part] ?? part, ...pointerToLoc(e.instancePath, data)];
  const input = get(data, base.slice(1));
  const p = e.params as Record<string, any>;
  switch (e.keyword) {
    case 'required':
      return { loc: [...base, p.missingProperty], msg: 'Field required', type: 'missing', input: input ?? null };
    case 'additionalProperties':
      return {
        loc: [...base, p.additionalProperty],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
        input: get(input, [p.additionalProperty]),
      };
    case 'type': {
      const expected = String(p.type).split(',').find((t) => t !== 'null') ?? 'string';
      if (base.length === 1 && part === 'body' && (input === undefined || input === null)) {
        return { loc: base, msg: 'Field required', type: 'missing', input: null };
      }
      return { loc: base, input, ...typeError(expected, input, part) };
    }
    case 'minimum':
      return { loc: base, input, type: 'greater_than_equal', msg: `Input should be greater than or equal to ${p.limit}`, ctx: { ge: p.limit } };
    case 'exclusiveMinimum':
      return { loc: base, input, type: 'greater_than', msg: `Input should be greater than ${p.limit}`, ctx: { gt: p.limit } };
    case 'maximum':
      return { loc: base, input, type: 'less_than_equal', msg: `Input should be less than or equal to ${p.limit}`, ctx: { le: p.limit } };
    case 'exclusiveMaximum':
      return { loc: base, input, type: 'less_than', msg: `Input should be less than ${p.limit}`, ctx: { lt: p.limit } };
    case 'minLength':
      return {
        loc: base,
        input,
        type: 'string_too_short',
        msg: `String should have at least ${p.limit} character${p.limit === 1 ? '' : 's'}`,
        ctx: { min_length: p.limit },
      };
    case 'maxLength':
      return {
        loc: base,
        input,
        type: 'string_too_long',
        msg: `String should have at most ${p.limit} character${p.limit === 1 ? '' : 's'}`,
        ctx: { max_length: p.limit },
      };
    case 'minItems':
      return { loc: base, input, type: 'too_short', msg: `List should have at least ${p.limit} items`, ctx: { min_length: p.limit } };
    case 'maxItems':
      return { loc: base, input, type: 'too_long', msg: `List should have at most ${p.limit} items`, ctx: { max_length: p.limit } };
    case 'minProperties':
      return { loc: base, input, type: 'too_short', msg: `Object should have at least ${p.limit} properties`, ctx: { min_length: p.limit } };
    case 'enum': {
      const expected = orList(p.allowedValues);
      return { loc: base, input, type: 'enum', msg: `Input should be ${expected}`, ctx: { expected } };
    }
    case 'const':
      return { loc: base, input, type: 'literal_error', msg: `Input should be ${pyRepr(p.allowedValue)}`, ctx: { expected: pyRepr(p.allowedValue) } };
    case 'nulByte':
      // Our own rule (validation.ts): reported as pydantic reports a `constr(pattern=...)` miss.
      return { loc: base, input, type: 'string_pattern_mismatch', msg: `String should match pattern '${p.pattern}'`, ctx: { pattern: p.pattern } };
    case 'pattern':
      return { loc: base, input, type: 'string_pattern_mismatch', msg: `String should match pattern '${p.pattern}'`, ctx: { pattern: p.pattern } };
    case 'format': {
      const f = FORMAT_ERRORS[p.format] ?? { type: 'value_error', msg: `Input should be a valid ${p.format}` };
      return { loc: base, input, ...f };
    }
    case 'discriminator':
      if (p.error === 'tag' && p.tagValue === undefined) {
        return { loc: [...base, p.tag], input, type: 'missing', msg: 'Field required' };
      }
      return {
        loc: [...base, p.tag],
        input: p.tagValue,
        type: 'union_tag_invalid',
        msg: `Input tag ${pyRepr(p.tagValue)} found using '${p.tag}' does not match any of the expected tags`,
        ctx: { discriminator: `'${p.tag}'`, tag: String(p.tagValue) },
      };
    case 'if':
    case 'anyOf':
    case 'oneOf':
    case 'allOf':
    case 'not':
      return null;
    default:
      return { loc: base, input, type: 'value_error', msg: e.message ?? 'Invalid value' };
  }
}

/** Converts ajv errors of one request part into pydantic-shaped entries, one per location. */
export function ajvToEntries(errors: ErrorObject[], part: string, data: unknown): ValidationEntry[] {
  const seen = new Set<string>();
  const out: ValidationEntry[] = [];
  for (const e of errors) {
    const entry = mapAjvError(e, part, data);
    if (!entry) continue;
    const key = JSON.stringify(entry.loc);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(entry);
  }
  if (!out.length && errors.length) {
    const e = errors[0];
    out.push({ loc: [PART_LOC[part] ?? part, ...pointerToLoc(e.instancePath, data)], msg: e.message ?? 'Invalid value', type: 'value_error' });
  }
  return out;
}

/**
 * Drops `input` where it could hold a credential: entries located at/under a sensitive
 * field lose `input`; object inputs lose their sensitive keys.
 */
export function redactEntries(entries: ValidationEntry[], sensitive: readonly string[]): ValidationEntry[] {
  if (!sensitive.length) return entries;
  const isSensitive = (k: unknown) => typeof k === 'string' && sensitive.includes(k);
  const scrub = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(scrub);
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).filter(([k]) => !isSensitive(k)).map(([k, x]) => [k, scrub(x)]));
    }
    return v;
  };
  return entries.map((e) => {
    if (!('input' in e)) return e;
    if (e.loc.some(isSensitive)) {
      const { input: _drop, ...rest } = e;
      return rest;
    }
    return { ...e, input: scrub(e.input) };
  });
}

/** Limits of a 422 body: a hostile request must not get a huge or unserializable answer. */
export const ECHO_LIMITS = { stringChars: 200, depth: 3, items: 10, keys: 20, entries: 50, bodyBytes: 64 * 1024 } as const;

/**
 * `input` as echoed in a 422: strings cut to 200 characters, containers summarised below depth
 * 3 and after 10 items / 20 keys. A 10,000-deep or 9 MB input thus echoes as a few hundred bytes.
 */
export function truncateInput(v: unknown, depth = 0): unknown {
  const L = ECHO_LIMITS;
  if (typeof v === 'string') return v.length > L.stringChars ? `${v.slice(0, L.stringChars)}…` : v;
  if (Array.isArray(v)) {
    if (depth >= L.depth) return `[…] (${v.length} items)`;
    const head = v.slice(0, L.items).map((x) => truncateInput(x, depth + 1));
    return v.length > L.items ? [...head, `… (${v.length - L.items} more items)`] : head;
  }
  if (v && typeof v === 'object') {
    const keys = Object.keys(v);
    if (depth >= L.depth) return `{…} (${keys.length} keys)`;
    const out: Record<string, unknown> = {};
    for (const k of keys.slice(0, L.keys)) out[truncateInput(k, L.depth) as string] = truncateInput((v as Record<string, unknown>)[k], depth + 1);
    if (keys.length > L.keys) out['…'] = `${keys.length - L.keys} more keys`;
    return out;
  }
  return v;
}

/**
 * The entries a 422 carries: at most 50, inputs truncated, locs of absurd keys and messages shortened, and
 * the whole detail under 64 KB (inputs are dropped first, then entries).
 */
export function capEntries(entries: ValidationEntry[]): ValidationEntry[] {
  const L = ECHO_LIMITS;
  let out = entries.slice(0, L.entries).map((e) => {
    const loc = e.loc.map((k) => (typeof k === 'string' ? (truncateInput(k) as string) : k));
    const msg = e.msg.length > 1000 ? `${e.msg.slice(0, 1000)}…` : e.msg;
    return 'input' in e ? { ...e, loc, msg, input: truncateInput(e.input) } : { ...e, loc, msg };
  });
  const size = (x: unknown) => Buffer.byteLength(JSON.stringify(x));
  if (size(out) > L.bodyBytes) out = out.map(({ input: _drop, ...rest }) => rest);
  while (out.length > 1 && size(out) > L.bodyBytes) out = out.slice(0, Math.ceil(out.length / 2));
  return out;
}
