// Rules on POST /v1beta/tasks beyond the body schema: schemas given as JSON strings must be JSON
// Schemas, referenced secrets must be the caller's, and a task that doesn't generate its schemas
// must bring both. Every problem is reported at once, in the 422 shape.
import { Ajv } from 'ajv';
import { InvalidInput, type Problem } from '../../lib/errors.js';
import type { CreateTaskBody } from './schemas.js';

const schemaCompiler = new Ajv({ strict: false, allErrors: false, validateSchema: true });

/** Parses a schema string; returns the object or pushes an entry at `loc`. */
function parseSchema(text: string, loc: (string | number)[], errors: Problem[]): object | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    errors.push({ loc, msg: 'Value error, not valid JSON', type: 'value_error', input: text });
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    errors.push({ loc, msg: 'Value error, a JSON Schema must be a JSON object', type: 'value_error', input: text });
    return null;
  }
  try {
    schemaCompiler.compile(parsed);
  } catch (e) {
    errors.push({ loc, msg: `Value error, not a valid JSON Schema: ${(e as Error).message}`, type: 'value_error', input: text });
    return null;
  }
  return parsed;
}

export interface CreateTaskInput {
  body: CreateTaskBody;
  inputSchema: object | null;
  outputSchema: object | null;
  autoGenerate: boolean;
}

/** `ownsSecret` answers whether the id is one of the caller's secrets. */
export async function checkCreateTask(body: CreateTaskBody, ownsSecret: (id: string) => Promise<boolean>): Promise<CreateTaskInput> {
  const errors: Problem[] = [];
  const autoGenerate = body.auto_generate_schemas ?? true;
  const inputSchema = body.input_schema != null ? parseSchema(body.input_schema, ['body', 'input_schema'], errors) : null;
  const outputSchema = body.output_schema != null ? parseSchema(body.output_schema, ['body', 'output_schema'], errors) : null;
  if (!autoGenerate) {
    for (const f of ['input_schema', 'output_schema'] as const) {
      if (body[f] == null) errors.push({ loc: ['body', f], msg: `Field required when auto_generate_schemas is false`, type: 'missing' });
    }
  }
  for (const [i, s] of (body.secrets ?? []).entries()) {
    if (!(await ownsSecret(s.secret_uuid)))
      errors.push({ loc: ['body', 'secrets', i, 'secret_uuid'], msg: 'Secret not found', type: 'value_error', input: s.secret_uuid });
  }
  for (const [slot, id] of Object.entries(body.secret_bindings ?? {})) {
    if (!(await ownsSecret(id)))
      errors.push({ loc: ['body', 'secret_bindings', slot], msg: 'Secret not found', type: 'value_error', input: id });
  }
  if (errors.length) throw new InvalidInput(errors);
  return { body, inputSchema, outputSchema, autoGenerate };
}
