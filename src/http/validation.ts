// Fastify's validator compiler: request parts validated by the ajv setup in src/lib/json-schema.ts
// (query/path/header values coerced from strings, JSON bodies strict, NUL bytes refused).
import type { FastifySchemaCompiler } from 'fastify';
import { make, rejectingNul, withIntBounds, type Validate } from '../lib/json-schema.js';

export function makeValidatorCompiler(): FastifySchemaCompiler<any> {
  const bodyAjv = make({ coerceTypes: false });
  const paramAjv = make({ coerceTypes: 'array' });
  return ({ schema, httpPart }) =>
    rejectingNul((httpPart === 'body' ? bodyAjv : paramAjv).compile(withIntBounds(schema) as object) as Validate);
}
