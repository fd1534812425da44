// TypeBox schemas of /v1beta/runs (Run, RunError, RunLogs, Runs, proxy settings).
import { Type, type Static } from '@sinclair/typebox';
import { CursorQuery, DateTime, LimitQuery } from '../../http/schemas.js';
import { INT32_MAX } from '../../lib/json-schema.js';
import { DEFAULT_RUN_TIMEOUT_S, MAX_RUN_TIMEOUT_S } from '../../runtime/host/run-store.js';
import { WebhookUrlField } from '../webhooks/schemas.js';

export const COUNTRIES = [
  'at',
  'be',
  'ca',
  'ch',
  'de',
  'dk',
  'es',
  'fi',
  'fr',
  'gb',
  'ie',
  'it',
  'lu',
  'mx',
  'nl',
  'no',
  'pt',
  'se',
  'us',
] as const;
export const RUN_STATUSES = [
  'pending',
  'running',
  'success',
  'connector_error',
  'timed_out',
  'result_too_large',
  'internal_error',
  // An extension of the API: POST /v1beta/runs/{run_id}/cancel.
  'cancelled',
] as const;
export const ERROR_TYPES = [
  'auth_required',
  'invalid_input',
  'site_unavailable',
  'anti_bot',
  'site_changed',
  'internal_error',
  'crash',
  'unhandled',
] as const;

/** Body fields that hold credentials: never echoed in a 422. */
export const SENSITIVE_FIELDS = ['username', 'password', 'totp_secret', 'value', 'secret_values'] as const;

const ProxySettings = Type.Unsafe<{ type: 'isp' | 'residential'; location: string }>({
  title: 'ProxySettings',
  description: 'Discriminated on type; null or absent lets the platform choose. Unknown properties are rejected.',
  type: 'object',
  required: ['type'],
  discriminator: { propertyName: 'type' },
  oneOf: [
    {
      title: 'IspProxy',
      type: 'object',
      properties: { type: { const: 'isp' }, location: { type: 'string', enum: ['us'] } },
      required: ['type', 'location'],
      additionalProperties: false,
    },
    {
      title: 'ResidentialProxy',
      type: 'object',
      properties: { type: { const: 'residential' }, location: { type: 'string', enum: [...COUNTRIES], title: 'Country' } },
      required: ['type', 'location'],
      additionalProperties: false,
    },
  ],
});

const SecretValue = Type.Object(
  {
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    totp_secret: Type.Optional(Type.Union([Type.String({ maxLength: 256 }), Type.Null()])),
    value: Type.Optional(Type.String({ minLength: 1, maxLength: 65536 })),
  },
  { additionalProperties: false, description: 'Login shape {username, password, totp_secret?} for login slots; {value} for string slots.' },
);

export const CreateRunBody = Type.Object(
  {
    connector_id: Type.String({ minLength: 1, maxLength: 200 }),
    arguments: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description:
            "Checked against the connector's input_schema. An argument of format file-id is the id of one of your completed uploads (POST /v1beta/files, PUT the bytes, complete): the run sends that file's bytes, name and type.",
        },
      ),
    ),
    secret_bindings: Type.Optional(
      Type.Record(Type.String(), Type.String({ maxLength: 200 }), { description: 'Slot name → id of one of your secrets.' }),
    ),
    secret_values: Type.Optional(
      Type.Record(Type.String(), SecretValue, { description: 'Slot name → value for this run only; never stored.' }),
    ),
    // null (= unset, the platform chooses) is removed before validation: see routes.ts.
    proxy_settings: Type.Optional(ProxySettings),
    async: Type.Optional(Type.Boolean({ default: false })),
    max_timeout_s: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RUN_TIMEOUT_S, default: DEFAULT_RUN_TIMEOUT_S })),
    webhook_url: Type.Optional(WebhookUrlField),
  },
  { additionalProperties: false, title: 'CreateRunRequest' },
);
export type CreateRunInput = Static<typeof CreateRunBody>;

export const RunErrorSchema = Type.Object(
  {
    type: Type.Unsafe<string>({ type: 'string', enum: [...ERROR_TYPES] }),
    message: Type.String(),
    retryable: Type.Union([Type.Boolean(), Type.Null()]),
    exception: Type.Union([Type.String(), Type.Null()]),
    details: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  },
  { title: 'RunError' },
);

/** An extension of the API: where a running run is ("step n of m"), as its worker last reported it. */
export const RunProgressSchema = Type.Object(
  {
    step: Type.Integer({ minimum: 0, description: 'The step being executed, from 1 (login steps count first).' }),
    of: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'How many steps the run has; null when not known ahead (a script connector counts its requests).',
    }),
    label: Type.String({ maxLength: 200, description: "The step's id, e.g. `get_search` or `get_search: page 2`; secrets redacted." }),
  },
  { title: 'RunProgress' },
);

export const RunSchema = Type.Object(
  {
    id: Type.String(),
    connector_id: Type.String(),
    connector_version: Type.Integer(),
    arguments: Type.Object({}, { additionalProperties: true }),
    secret_bindings: Type.Optional(Type.Record(Type.String(), Type.String())),
    status: Type.Unsafe<string>({ type: 'string', enum: [...RUN_STATUSES], title: 'RunStatus' }),
    result: Type.Unsafe<unknown>({
      description: 'Matches output_schema; null unless stored (results up to 1 MB) or delivered once to the waiting sync caller.',
    }),
    result_stored: Type.Boolean(),
    result_size_bytes: Type.Union([Type.Integer(), Type.Null()]),
    error: Type.Union([RunErrorSchema, Type.Null()]),
    has_logs: Type.Boolean(),
    created_at: DateTime,
    finished_at: Type.Union([DateTime, Type.Null()]),
    progress: Type.Union([RunProgressSchema, Type.Null()], {
      description:
        'Extension: the latest progress of a running run, at most about a second old; null unless the status is running (and before the first step).',
    }),
  },
  { title: 'Run' },
);
export type RunView = Static<typeof RunSchema>;

export const ListRunsQuery = Type.Object({
  connector_id: Type.String({ maxLength: 200 }),
  limit: Type.Optional(LimitQuery),
  cursor: Type.Optional(CursorQuery),
  version: Type.Optional(Type.Integer({ minimum: 1, maximum: INT32_MAX, description: 'Default: the newest version.' })),
});
export interface ListRunsParams {
  connector_id: string;
  limit: number;
  cursor?: string;
  version?: number;
}

export const RunLogsSchema = Type.Object({ logs: Type.String() }, { title: 'RunLogs' });
