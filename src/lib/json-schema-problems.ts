// ajv errors as neutral problems in pydantic v2's vocabulary (loc, msg, type, input, ctx): the
// form every rule of this service reports invalid input in, whichever layer finds it.
import type { ErrorObject } from 'ajv';
import type { Loc, Problem } from './errors.js';

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

function typeError(expected: string, input: unknown, part: string): Pick<Problem, 'type' | 'msg'> {
  const fromString = typeof input === 'string' && part !== 'body';
  switch (expected) {
    case 'integer':
      if (typeof input === 'number')
        return { type: 'int_from_float', msg: 'Input should be a valid integer, got a number with a fractional part' };
      if (typeof input === 'string')
        return { type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer' };
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

const FORMAT_ERRORS: Record<string, Pick<Problem, 'type' | 'msg'>> = {
  uuid: { type: 'uuid_parsing', msg: 'Input should be a valid UUID' },
  'date-time': { type: 'datetime_parsing', msg: 'Input should be a valid datetime' },
  date: { type: 'date_parsing', msg: 'Input should be a valid date' },
  uri: { type: 'url_parsing', msg: 'Input should be a valid URL' },
  email: { type: 'value_error', msg: 'value is not a valid email address' },
};

/** Maps one ajv error onto a pydantic-style entry, or null for summary errors we drop. */
function mapAjvError(e: ErrorObject, part: string, data: unknown): Problem | null {
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
      const expected =
        String(p.type)
          .split(',')
          .find((t) => t !== 'null') ?? 'string';
      if (base.length === 1 && part === 'body' && (input === undefined || input === null)) {
        return { loc: base, msg: 'Field required', type: 'missing', input: null };
      }
      return { loc: base, input, ...typeError(expected, input, part) };
    }
    case 'minimum':
      return {
        loc: base,
        input,
        type: 'greater_than_equal',
        msg: `Input should be greater than or equal to ${p.limit}`,
        ctx: { ge: p.limit },
      };
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
      return {
        loc: base,
        input,
        type: 'too_short',
        msg: `Object should have at least ${p.limit} properties`,
        ctx: { min_length: p.limit },
      };
    case 'enum': {
      const expected = orList(p.allowedValues);
      return { loc: base, input, type: 'enum', msg: `Input should be ${expected}`, ctx: { expected } };
    }
    case 'const':
      return {
        loc: base,
        input,
        type: 'literal_error',
        msg: `Input should be ${pyRepr(p.allowedValue)}`,
        ctx: { expected: pyRepr(p.allowedValue) },
      };
    case 'nulByte':
      // Our own rule (validation.ts): reported as pydantic reports a `constr(pattern=...)` miss.
      return {
        loc: base,
        input,
        type: 'string_pattern_mismatch',
        msg: `String should match pattern '${p.pattern}'`,
        ctx: { pattern: p.pattern },
      };
    case 'pattern':
      return {
        loc: base,
        input,
        type: 'string_pattern_mismatch',
        msg: `String should match pattern '${p.pattern}'`,
        ctx: { pattern: p.pattern },
      };
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
    case 'propertyNames':
      return {
        loc: [...base, p.propertyName],
        msg: `Key '${p.propertyName}' is not allowed here`,
        type: 'value_error',
        input: get(input, [p.propertyName]) ?? null,
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
export function ajvToEntries(errors: ErrorObject[], part: string, data: unknown): Problem[] {
  const seen = new Set<string>();
  const out: Problem[] = [];
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
    out.push({
      loc: [PART_LOC[part] ?? part, ...pointerToLoc(e.instancePath, data)],
      msg: e.message ?? 'Invalid value',
      type: 'value_error',
    });
  }
  return out;
}
