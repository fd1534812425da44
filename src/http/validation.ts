// Two ajv instances: query/path/header values arrive as strings and are coerced (as FastAPI does);
// JSON bodies are validated strictly (no null → "" or true → 1 surprises).
import { Ajv, type Options } from 'ajv';
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

export function makeValidatorCompiler(): FastifySchemaCompiler<any> {
  const bodyAjv = make({ coerceTypes: false });
  const paramAjv = make({ coerceTypes: 'array' });
  return ({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : paramAjv).compile(schema as object);
}

/** A standalone strict ajv for service-level checks (e.g. JSON Schemas supplied by users). */
export function makeAjv(opts: Options = {}): Ajv {
  return make({ coerceTypes: false, ...opts });
}
