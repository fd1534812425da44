// Two ajv instances: query/path/header values arrive as strings and are coerced (as FastAPI does);
// JSON bodies are validated strictly (no null → "" or true → 1 surprises).
//
// Two rules hold for every route, whatever its schema says (issue 9, finding 8):
// - no string or object key anywhere in a request may contain a NUL byte (PostgreSQL text and
//   jsonb cannot store one): 422 `string_pattern_mismatch` at the exact loc;
// - an integer without its own bounds is a 32-bit signed integer (our integer columns):
//   out of range is 422 `less_than_equal` / `greater_than_equal`, never a database error.
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

const common: Options = {
  allErrors: true,
  removeAdditional: false,
  useDefaults: true,
  discriminator: true,
  strict: false,
  keywords: ['x-extension', 'example'],
};

function make(opts: Options): Ajv {
  const ajv = new Ajv({ ...common, ...opts });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ajv;
}

export const INT32_MAX = 2147483647;
export const INT32_MIN = -2147483648;
/** The pattern reported for a NUL byte, as pydantic would for `constr(pattern=...)`. */
export const NO_NUL_PATTERN = '^[^\\x00]*$';
/** Enough to point at the problem; a body full of NULs does not need a million entries. */
const MAX_NUL_FINDINGS = 20;

const SUBSCHEMA_KEYS = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames'];
const SUBSCHEMA_LISTS = ['oneOf', 'anyOf', 'allOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', 'definitions', '$defs'];

/** A copy of `schema` where integers without bounds get the int32 range. */
export function withIntBounds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withIntBounds);
  if (!schema || typeof schema !== 'object') return schema;
  const s: Record<string, any> = { ...(schema as Record<string, unknown>) };
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes('integer')) {
    if (s.maximum === undefined && s.exclusiveMaximum === undefined) s.maximum = INT32_MAX;
    if (s.minimum === undefined && s.exclusiveMinimum === undefined) s.minimum = INT32_MIN;
  }
  for (const k of SUBSCHEMA_KEYS) if (s[k] && typeof s[k] === 'object') s[k] = withIntBounds(s[k]);
  for (const k of SUBSCHEMA_LISTS) if (Array.isArray(s[k])) s[k] = s[k].map(withIntBounds);
  for (const k of SUBSCHEMA_MAPS) {
    if (s[k] && typeof s[k] === 'object') s[k] = Object.fromEntries(Object.entries(s[k]).map(([n, v]) => [n, withIntBounds(v)]));
  }
  return s;
}

const escapePointer = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * JSON pointers of strings and keys holding a NUL byte. Iterative (a body may be deeply
 * nested) and stops after MAX_NUL_FINDINGS.
 */
export function findNulBytes(data: unknown): string[] {
  const found: string[] = [];
  const stack: [unknown, string][] = [[data, '']];
  while (stack.length && found.length < MAX_NUL_FINDINGS) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\0')) found.push(at);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${at}/${i}`]);
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v).reverse()) {
        const p = `${at}/${escapePointer(k)}`;
        // A key with a NUL is reported at the key itself (its value is not looked at).
        if (k.includes('\0')) found.push(p);
        else stack.push([x, p]);
      }
    }
  }
  return found;
}

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

function rejectingNul(validate: Validate): Validate {
  const fn: Validate = (data) => {
    const ok = validate(data);
    const nul = findNulBytes(data);
    if (ok && !nul.length) {
      fn.errors = null;
      return true;
    }
    const nulErrors: ErrorObject[] = nul.map((instancePath) => ({
      keyword: 'nulByte',
      instancePath,
      schemaPath: '#',
      params: { pattern: NO_NUL_PATTERN },
      message: 'must not contain a NUL byte',
    }));
    // NUL first: a field with a NUL and another problem is reported for the NUL.
    fn.errors = [...nulErrors, ...(ok ? [] : (validate.errors ?? []))];
    return false;
  };
  return fn;
}

export function makeValidatorCompiler(): FastifySchemaCompiler<any> {
  const bodyAjv = make({ coerceTypes: false });
  const paramAjv = make({ coerceTypes: 'array' });
  return ({ schema, httpPart }) => rejectingNul((httpPart === 'body' ? bodyAjv : paramAjv).compile(withIntBounds(schema) as object) as Validate);
}

/** A standalone strict ajv for service-level checks (e.g. JSON Schemas supplied by users). */
export function makeAjv(opts: Options = {}): Ajv {
  return make({ coerceTypes: false, ...opts });
}
