// JSON Schema validation (ajv) with the rules every validator here follows. Two ajv instances: query/path/header values arrive as strings and are coerced (as FastAPI does);
// JSON bodies are validated strictly (no null → "" or true → 1 surprises).
//
// Two rules hold for every route, whatever its schema says (issue 9, finding 8):
// - no string or object key anywhere in a request may contain a NUL byte (PostgreSQL text and
//   jsonb cannot store one): 422 `string_pattern_mismatch` at the exact loc;
// - an integer without its own bounds is a 32-bit signed integer (our integer columns):
//   out of range is 422 `less_than_equal` / `greater_than_equal`, never a database error.
// And every validator (routes and makeAjv's) reports all errors at once only for inputs of up
// to FULL_REPORT_MAX_NODES values; a larger invalid input reports its first error.
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import { isUuid } from './ids.js';

const common: Options = {
  allErrors: true,
  removeAdditional: false,
  useDefaults: true,
  discriminator: true,
  strict: false,
  keywords: ['x-extension', 'example'],
};

export const INT32_MAX = 2147483647;
export const INT32_MIN = -2147483648;
/** The pattern reported for a NUL byte, as pydantic would for `constr(pattern=...)`. */
export const NO_NUL_PATTERN = '^[^\\x00]*$';
/** Enough to point at the problem; a body full of NULs does not need a million entries. */
const MAX_NUL_FINDINGS = 20;

// Not `not`/`if`: bounds added under a negation or a condition would invert their meaning (`not:
// {type: 'integer'}` would then let 2^40 through).
const SUBSCHEMA_KEYS = ['items', 'additionalProperties', 'then', 'else', 'contains', 'propertyNames'];
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
 * Bodies the JSON parser already knows to be NUL-free: JSON can only carry a NUL as the escape
 * \u0000 (a raw one is a parse error), so a text without that escape needs no walk.
 */
export const NUL_FREE_BODIES = new WeakSet<object>();

interface Node {
  v: unknown;
  key: string | null;
  up: Node | null;
  /** The key itself holds a NUL: reported here, its value is not looked at. */
  badKey?: boolean;
}

function pointerOf(n: Node): string {
  const parts: string[] = [];
  for (let c: Node | null = n; c && c.key !== null; c = c.up) parts.push(escapePointer(c.key));
  return parts.length ? `/${parts.reverse().join('/')}` : '';
}

/**
 * JSON pointers of strings and keys holding a NUL byte, in document order. Iterative (a body
 * may be deeply nested), cheap per value (a pointer is built only for a finding; a 10 MB body
 * of a million keys takes well under a second), stops after MAX_NUL_FINDINGS.
 */
export function findNulBytes(data: unknown): string[] {
  const found: string[] = [];
  const stack: Node[] = [{ v: data, key: null, up: null }];
  while (stack.length && found.length < MAX_NUL_FINDINGS) {
    const n = stack.pop()!;
    const v = n.v;
    if (n.badKey) found.push(pointerOf(n));
    else if (typeof v === 'string') {
      if (v.includes('\0')) found.push(pointerOf(n));
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], key: String(i), up: n });
    } else if (v && typeof v === 'object') {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i];
        stack.push({ v: (v as Record<string, unknown>)[k], key: k, up: n, badKey: k.includes('\0') });
      }
    }
  }
  return found;
}

export type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/**
 * Above this many values in the input, an invalid input reports only its first error. ajv's
 * allErrors on a 10 MB body of a million bad entries takes seconds and ~500 MB; a client that
 * sends that gets one precise error, a normal client still gets all of them at once.
 */
export const FULL_REPORT_MAX_NODES = 10_000;

/** Whether `data` holds more than `max` values (arrays, objects, scalars); stops counting early. */
function largerThan(data: unknown, max: number): boolean {
  let n = 1;
  const stack: unknown[] = [data];
  while (stack.length) {
    const v = stack.pop();
    if (!v || typeof v !== 'object') continue;
    // Counted as they are seen, so a million-entry object stops the count at max.
    for (const k in v) {
      if (++n > max) return true;
      stack.push((v as Record<string, unknown>)[k]);
    }
  }
  return false;
}

/** Validates with `fast` (stops at the first error); only a small invalid input gets `full`'s every error. */
function firstThenAll(fast: Validate, full: Validate): Validate {
  const fn: Validate = (data) => {
    if (fast(data)) {
      fn.errors = null;
      return true;
    }
    if (largerThan(data, FULL_REPORT_MAX_NODES)) fn.errors = fast.errors;
    else {
      full(data);
      fn.errors = full.errors;
    }
    return false;
  };
  return fn;
}

/** An Ajv whose compiled validators follow firstThenAll (callers only compile, call and read `errors`). */
class BoundedAjv extends Ajv {
  private readonly quick: Ajv;
  constructor(opts: Options) {
    super(opts);
    this.quick = withFormats(new Ajv({ ...opts, allErrors: false }));
  }
  override compile<T = unknown>(schema: object, meta?: boolean): any {
    const full = super.compile<T>(schema, meta) as Validate;
    return firstThenAll(this.quick.compile(schema, meta) as Validate, full);
  }
}

export function rejectingNul(validate: Validate): Validate {
  const fn: Validate = (data) => {
    const ok = validate(data);
    const nul = data && typeof data === 'object' && NUL_FREE_BODIES.has(data) ? [] : findNulBytes(data);
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

/**
 * `format: "file-id"`: an argument that names an uploaded file (POST /v1beta/files), sent by the
 * connector as a body or a multipart part. Its form is checked here; that the caller owns an
 * available file of that id, when the run is created (runs service) and again when it is read.
 */
export const FILE_ID_FORMAT = 'file-id';

function withFormats(ajv: Ajv): Ajv {
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  ajv.addFormat(FILE_ID_FORMAT, { type: 'string', validate: isUuid });
  return ajv;
}

export function make(opts: Options): Ajv {
  return withFormats(new BoundedAjv({ ...common, ...opts }));
}

/** A standalone strict ajv for service-level checks (e.g. JSON Schemas supplied by users). */
export function makeAjv(opts: Options = {}): Ajv {
  return make({ coerceTypes: false, ...opts });
}
