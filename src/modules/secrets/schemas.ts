// Request and response schemas of /v1beta/secrets (Secret, task-based Secret, Secrets).
// Response schemas hold metadata only: no credential field exists in any of them.
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, DeleteResponse } from '../../http/schemas.js';

/** Body fields that hold credentials: never echoed in a 422, never logged, never returned. */
export const SENSITIVE_FIELDS = ['username', 'password', 'totp_secret', 'value'] as const;

export const LIMITS = {
  name: { min: 1, max: 200 },
  username: { min: 1, max: 1024 },
  password: { min: 1, max: 4096 },
  totpSecret: { max: 256 },
  value: { min: 1, max: 65536 },
  website: { min: 1, max: 2083 },
} as const;

// `type: ['string','null']` (not anyOf) so a wrong type yields one pydantic-like entry per field.
const nullableString = (opts: { minLength?: number; maxLength: number; description: string }) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], ...opts });

export const SecretType = Type.Unsafe<'login' | 'string'>({
  type: 'string',
  enum: ['login', 'string'],
  title: 'SecretType',
  description: 'login: username + password (+ optional TOTP seed); string: a single value.',
});

export const CreateSecretBody = Type.Object(
  {
    name: Type.String({ minLength: LIMITS.name.min, maxLength: LIMITS.name.max, description: 'Display name, 1 to 200 characters.' }),
    secret_type: SecretType,
    username: Type.Optional(
      nullableString({
        minLength: LIMITS.username.min,
        maxLength: LIMITS.username.max,
        description: 'Required for login; not allowed for string.',
      }),
    ),
    password: Type.Optional(
      nullableString({
        minLength: LIMITS.password.min,
        maxLength: LIMITS.password.max,
        description: 'Required for login; not allowed for string.',
      }),
    ),
    totp_secret: Type.Optional(
      nullableString({
        maxLength: LIMITS.totpSecret.max,
        description:
          'Optional base32 TOTP seed (login only). Spaces, dashes, lower case and "=" padding are accepted; at least 16 base32 characters.',
      }),
    ),
    value: Type.Optional(
      nullableString({
        minLength: LIMITS.value.min,
        maxLength: LIMITS.value.max,
        description: 'Required for string; not allowed for login.',
      }),
    ),
    website: Type.Optional(
      nullableString({
        minLength: LIMITS.website.min,
        maxLength: LIMITS.website.max,
        description: 'Task-based variant: when this key is present, the response has the task-based shape.',
      }),
    ),
  },
  { additionalProperties: false, title: 'CreateSecretRequest' },
);
export type CreateSecretBody = Static<typeof CreateSecretBody>;

export const SecretSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    secret_type: SecretType,
    has_totp: Type.Boolean({ description: 'Whether a TOTP seed is stored (login secrets only).' }),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { title: 'Secret', description: 'Secret metadata; credential values are never returned.' },
);

export const TaskBasedSecretSchema = Type.Object(
  {
    uuid: Type.String({ format: 'uuid' }),
    name: Type.String(),
    secret_type: SecretType,
    website: Type.Union([Type.String(), Type.Null()]),
    has_totp: Type.Boolean(),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { title: 'TaskBasedSecret', description: 'Task-based shape of a created secret (uuid instead of id, with website).' },
);

// oneOf: the two shapes are disjoint (`id` vs `uuid` required), so exactly one matches.
export const CreateSecretResponse = Type.Unsafe<Static<typeof SecretSchema> | Static<typeof TaskBasedSecretSchema>>({
  oneOf: [SecretSchema, TaskBasedSecretSchema],
  description: 'Secret when the request body has no `website` key; TaskBasedSecret (task-based variant) when it has one, even if null.',
});

export const TotpResponse = Type.Object(
  { id: Type.String(), code: Type.String({ pattern: '^[0-9]{6}$', description: 'Current 6-digit TOTP code.' }) },
  { title: 'TotpResponse' },
);

export const DeleteSecretResponse = DeleteResponse('DeleteSecretResponse');
