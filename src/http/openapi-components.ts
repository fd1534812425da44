// Post-processing of the generated OpenAPI document so client generators get named types:
// every schema with a `title` (Run, Connector, File, CaptureSession, ...) moves to
// components.schemas and is referenced, error responses point at shared components.responses,
// and examples (openapi-examples.ts) are attached. It works on a copy of the document: the route
// schemas that validate and serialize requests are never touched, so behaviour cannot change.
import { OPERATION_EXAMPLES, SCHEMA_EXAMPLES } from './openapi-examples.js';

type Json = Record<string, any>;

/** Shared error responses, by status. 422 carries the validation entries, the rest a detail string. */
const ERROR_RESPONSES: Record<string, { name: string; description: string; schema: string; example: unknown }> = {
  '401': {
    name: 'Unauthorized',
    description: 'Missing or invalid API key.',
    schema: 'ErrorDetail',
    example: { detail: 'Invalid or revoked API key' },
  },
  '404': {
    name: 'NotFound',
    description: 'No such resource among the caller’s own.',
    schema: 'ErrorDetail',
    example: { detail: 'Run not found' },
  },
  '409': {
    name: 'Conflict',
    description: 'The resource is not in a state that allows this operation.',
    schema: 'ErrorDetail',
    example: { detail: 'Capture session is completed; only an active session can be completed' },
  },
  '413': {
    name: 'PayloadTooLarge',
    description: 'The request body is larger than the server accepts.',
    schema: 'ErrorDetail',
    example: { detail: 'Request body too large' },
  },
  '415': {
    name: 'UnsupportedMediaType',
    description: 'The request body is not application/json.',
    schema: 'ErrorDetail',
    example: { detail: 'Unsupported media type text/plain; send application/json' },
  },
  '422': {
    name: 'ValidationFailed',
    description: 'Invalid path, query or body: one entry per problem.',
    schema: 'HTTPValidationError',
    example: { detail: [{ loc: ['body', 'connector_id'], msg: 'Field required', type: 'missing', input: {} }] },
  },
  '429': {
    name: 'TooManyRequests',
    description: 'A capacity limit is reached; retry later.',
    schema: 'ErrorDetail',
    example: { detail: 'Too many live capture sessions' },
  },
  '503': {
    name: 'ServiceUnavailable',
    description: 'A dependency (browser, vault) is unavailable or the server is shutting down.',
    schema: 'ErrorDetail',
    example: { detail: 'Service Unavailable' },
  },
};

const SUCCESS_TEXT: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted',
  '204': 'No content',
  '307': 'Temporary redirect',
};
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const refName = (s: unknown) =>
  s && typeof s === 'object' && typeof (s as Json).$ref === 'string' ? (s as Json).$ref.split('/').pop() : undefined;

/** JSON text with sorted keys: two schemas are "the same" when this is equal. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Json)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * Replaces every titled schema under `node` by a $ref to components.schemas[title]. Two different
 * schemas with one title would make a generator's type lie about one of them: that throws.
 */
function hoist(node: unknown, schemas: Json, top = false): unknown {
  if (Array.isArray(node)) return node.map((n) => hoist(n, schemas));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    // Keys of `properties` are names, not schemas; `examples` and `const`/`enum` hold data.
    if (k === 'properties' || k === 'patternProperties' || k === '$defs') {
      out[k] = Object.fromEntries(Object.entries(v as Json).map(([p, s]) => [p, hoist(s, schemas)]));
    } else if (k === 'examples' || k === 'example' || k === 'const' || k === 'enum' || k === 'default') {
      out[k] = v;
    } else {
      out[k] = hoist(v, schemas);
    }
  }
  const title = out.title;
  if (top || typeof title !== 'string' || out.$ref) return out;
  const seen = schemas[title];
  if (seen && canonical(seen) !== canonical(out)) throw new Error(`OpenAPI: two different schemas are titled ${title}`);
  schemas[title] = out;
  return ref(title);
}

/** A discriminator without mapping selects by schema name; ours select by the `const` of the property. */
function mapDiscriminators(schemas: Json): void {
  for (const s of Object.values(schemas)) {
    const prop = s?.discriminator?.propertyName;
    if (!prop || !Array.isArray(s.oneOf)) continue;
    const mapping: Record<string, string> = {};
    for (const alt of s.oneOf) {
      const name = refName(alt);
      // @fastify/swagger writes `const: x` as `enum: [x]`.
      const p = name ? schemas[name]?.properties?.[prop] : undefined;
      const value = p?.const ?? (p?.enum?.length === 1 ? p.enum[0] : undefined);
      if (typeof value === 'string') mapping[value] = alt.$ref;
    }
    s.discriminator.mapping = mapping;
  }
}

/** Sets the media type's example: its component's, or one per alternative of a oneOf of components. */
function attachExample(media: Json, override: unknown): void {
  if (override !== undefined) {
    media.example = override;
    return;
  }
  const s = media.schema;
  const name = refName(s);
  if (name && SCHEMA_EXAMPLES[name] !== undefined) media.example = SCHEMA_EXAMPLES[name];
  else if (s?.type === 'array' && SCHEMA_EXAMPLES[refName(s.items) ?? ''] !== undefined)
    media.example = [SCHEMA_EXAMPLES[refName(s.items)!]];
  else if (Array.isArray(s?.oneOf)) {
    const names = s.oneOf.map(refName).filter((n: string | undefined) => n && SCHEMA_EXAMPLES[n] !== undefined);
    if (names.length) media.examples = Object.fromEntries(names.map((n: string) => [n, { summary: n, value: SCHEMA_EXAMPLES[n] }]));
  }
}

function fixOperation(op: Json, schemas: Json): void {
  const media = op.requestBody?.content?.['application/json'];
  if (media) {
    media.schema = hoist(media.schema, schemas);
    attachExample(media, OPERATION_EXAMPLES[`${op.operationId} request`]);
    // Any route with a JSON body can meet the body limit and the media-type check.
    op.responses['413'] ??= {};
    op.responses['415'] ??= {};
  }
  for (const p of op.parameters ?? []) if (p.schema) p.schema = hoist(p.schema, schemas, true);
  for (const [status, res] of Object.entries<Json>(op.responses ?? {})) {
    const err = ERROR_RESPONSES[status];
    if (err) {
      op.responses[status] = { $ref: `#/components/responses/${err.name}` };
      continue;
    }
    if (!res.description || res.description === 'Default Response') res.description = SUCCESS_TEXT[status] ?? 'Response';
    for (const m of Object.values<Json>(res.content ?? {})) {
      m.schema = hoist(m.schema, schemas);
      attachExample(m, OPERATION_EXAMPLES[`${op.operationId} ${status}`]);
    }
  }
}

/** Named schemas, shared error responses and examples; returns a new document. */
export function nameComponents(input: Json): Json {
  const doc: Json = structuredClone(input);
  doc.components ??= {};
  const schemas: Json = (doc.components.schemas ??= {});
  for (const [name, s] of Object.entries<Json>(schemas)) schemas[name] = hoist(s, schemas, true);
  for (const item of Object.values<Json>(doc.paths ?? {})) {
    for (const m of METHODS) if (item[m]) fixOperation(item[m], schemas);
  }
  mapDiscriminators(schemas);
  for (const [name, ex] of Object.entries(SCHEMA_EXAMPLES)) if (schemas[name]) schemas[name].examples = [ex];
  const used = new Set(JSON.stringify(doc.paths).match(/#\/components\/responses\/\w+/g) ?? []);
  doc.components.responses = Object.fromEntries(
    Object.values(ERROR_RESPONSES)
      .filter((e) => used.has(`#/components/responses/${e.name}`))
      .map((e) => [e.name, { description: e.description, content: { 'application/json': { schema: ref(e.schema), example: e.example } } }]),
  );
  doc.components.schemas = Object.fromEntries(
    Object.keys(schemas)
      .sort()
      .map((k) => [k, schemas[k]]),
  );
  return doc;
}
