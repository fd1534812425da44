// Schemas shared by every route: error bodies, ids, pagination, timestamps.
import { Type, type TSchema } from '@sinclair/typebox';

export const ValidationEntrySchema = Type.Object(
  {
    loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
    msg: Type.String(),
    type: Type.String(),
    input: Type.Optional(Type.Unknown()),
    ctx: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { $id: 'ValidationError', title: 'ValidationError' },
);

export const HTTPValidationErrorSchema = Type.Object(
  { detail: Type.Optional(Type.Array(Type.Ref('ValidationError'))) },
  { $id: 'HTTPValidationError', title: 'HTTPValidationError' },
);

export const ErrorDetailSchema = Type.Object(
  { detail: Type.String() },
  { $id: 'ErrorDetail', title: 'ErrorDetail', description: 'Any error other than 422: a human-readable detail.' },
);

export const SHARED_SCHEMAS = [ValidationEntrySchema, HTTPValidationErrorSchema, ErrorDetailSchema];

const errRef = Type.Ref('ErrorDetail');

/** Standard error responses for an authenticated route (401, 404, 422 and any extra codes). */
export function errorResponses(...extra: number[]): Record<number, TSchema> {
  const r: Record<number, TSchema> = { 401: errRef, 404: errRef, 422: Type.Ref('HTTPValidationError') };
  for (const c of extra) r[c] = errRef;
  return r;
}

export const DateTime = Type.String({ format: 'date-time' });

/** Connector-family ids are opaque strings (a malformed id is simply not found). */
export const IdParam = (name = 'id') => Type.Object({ [name]: Type.String({ maxLength: 200 }) });
/** Task-family ids are UUIDs (a malformed id is a 422 at ["path", name]). */
export const UuidParam = (name = 'id') => Type.Object({ [name]: Type.String({ format: 'uuid' }) });

export const LimitQuery = Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1 to 100.' });
export const CursorQuery = Type.String({ description: 'Opaque cursor from a previous next_cursor.' });

export const listEnvelope = (item: TSchema, title: string) =>
  Type.Object(
    {
      data: Type.Array(item),
      has_more: Type.Boolean(),
      next_cursor: Type.Union([Type.String(), Type.Null()]),
    },
    { title },
  );

export const DeleteResponse = (title: string) => Type.Object({ id: Type.String(), deleted: Type.Boolean() }, { title });
