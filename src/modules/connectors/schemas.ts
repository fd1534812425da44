// TypeBox schemas of /v1beta/connectors (Connector, SecretSlotDefinition, Connectors)
// and our publish extension (x-extension in the OpenAPI document).
import { Type, type Static } from '@sinclair/typebox';
import { CursorQuery, DateTime, LimitQuery } from '../../http/schemas.js';
import { INT32_MAX } from '../../lib/json-schema.js';
import { SecretType } from '../secrets/schemas.js';

const FreeObject = (description: string) => Type.Object({}, { additionalProperties: true, description });

export const SecretSlotSchema = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^[A-Za-z_][A-Za-z0-9_-]*$',
      description: 'Key used in secret_bindings / secret_values.',
    }),
    type: SecretType,
    supports_totp: Type.Optional(
      Type.Boolean({ default: false, description: 'Login slots only: the connector can do 2FA when the bound login has TOTP.' }),
    ),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  },
  { additionalProperties: false, title: 'SecretSlotDefinition' },
);
export type SecretSlotInput = Static<typeof SecretSlotSchema>;

export const ConnectorSchema = Type.Object(
  {
    id: Type.String(),
    display_name: Type.String(),
    purpose: Type.String(),
    website: Type.Union([Type.String(), Type.Null()]),
    input_schema: FreeObject('JSON Schema of run arguments'),
    output_schema: FreeObject('JSON Schema of run results'),
    required_secrets: Type.Array(SecretSlotSchema),
    version: Type.Integer({ minimum: 1 }),
    created_at: DateTime,
  },
  { title: 'Connector' },
);
export type ConnectorView = Static<typeof ConnectorSchema>;

export const SynthesisHints = Type.Object(
  {
    arguments: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
        description: 'Argument name → example value as it appears in the recording, e.g. {"query": "gamma", "page": 2}.',
      }),
    ),
    secrets: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_-]*$' }), Type.String(), {
        description: 'Slot name → id of a stored secret whose values occur in the recording; resolved inside the server, never stored.',
      }),
    ),
    result: Type.Optional(Type.Unknown({ description: 'Example values (or an object of them) that must appear in the result.' })),
    allow_side_effects: Type.Optional(
      Type.Boolean({ description: 'Replay a non-idempotent target (e.g. a POST creating something) to validate it.' }),
    ),
    prefer_browser: Type.Optional(
      Type.Boolean({
        description:
          "Synthesize a browser connector that drives the site's own pages (replaying the capture session's action log) even where HTTP replay would work (sites that block non-browser clients); 422 at stage browser when none can be built from the recording.",
      }),
    ),
    allow_empty_result: Type.Optional(
      Type.Boolean({
        description:
          'Publish a read flow even when its result carries no data from the page (status and URL only) or misses hinted result values; the problem is reported in meta.warnings instead of a 422.',
      }),
    ),
    notes: Type.Optional(Type.String({ maxLength: 10000 })),
  },
  { additionalProperties: false, title: 'SynthesisHints' },
);

const publishFields = {
  display_name: Type.String({ minLength: 1, maxLength: 200 }),
  purpose: Type.String({ minLength: 1, maxLength: 10000, description: 'What the connector does.' }),
  website: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 2083 }), Type.Null()])),
  definition: Type.Optional(FreeObject('A connector-definition/v1 document (docs/connector-definition.md).')),
  input_schema: Type.Optional(FreeObject('JSON Schema of run arguments (an object schema).')),
  output_schema: Type.Optional(FreeObject('JSON Schema of run results.')),
  required_secrets: Type.Optional(Type.Array(SecretSlotSchema, { maxItems: 20 })),
  capture_session_id: Type.Optional(
    Type.String({ maxLength: 200, description: 'Synthesize from a completed capture session (docs/synthesis.md).' }),
  ),
  recording_file_id: Type.Optional(
    Type.String({ maxLength: 200, description: 'Synthesize from an uploaded HAR 1.2 file (files API; docs/synthesis.md).' }),
  ),
  hints: Type.Optional(
    Type.Union([Type.String({ maxLength: 10000, description: 'Free-text notes kept in the definition meta.' }), SynthesisHints]),
  ),
};

export const PublishBody = Type.Object(publishFields, {
  additionalProperties: false,
  title: 'PublishConnectorRequest',
  'x-extension': true,
});
export const ReviseBody = Type.Object(
  { ...publishFields, display_name: Type.Optional(publishFields.display_name), purpose: Type.Optional(publishFields.purpose) },
  { additionalProperties: false, title: 'ReviseConnectorRequest', 'x-extension': true },
);
export type PublishInput = {
  display_name?: string;
  purpose?: string;
  website?: string | null;
  definition?: Record<string, unknown>;
  input_schema?: Record<string, unknown>;
  output_schema?: Record<string, unknown>;
  required_secrets?: SecretSlotInput[];
  capture_session_id?: string;
  recording_file_id?: string;
  hints?: string | Record<string, unknown>;
};

export const PatchBody = Type.Object(
  { display_name: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false, title: 'UpdateConnectorRequest' },
);

export const ListConnectorsQuery = Type.Object({
  limit: Type.Optional(LimitQuery),
  cursor: Type.Optional(CursorQuery),
  domain: Type.Optional(
    Type.String({ minLength: 1, maxLength: 253, description: 'Only connectors whose website is this domain or a subdomain of it.' }),
  ),
});
export interface ListConnectorsParams {
  limit: number;
  cursor?: string;
  domain?: string;
}

export const DefinitionQuery = Type.Object({
  version: Type.Optional(Type.Integer({ minimum: 1, maximum: INT32_MAX, description: 'Default: the current version.' })),
});

export const DefinitionResponse = Type.Object(
  { connector_id: Type.String(), version: Type.Integer(), definition: FreeObject('The connector-definition/v1 document.') },
  { title: 'ConnectorDefinitionResponse', 'x-extension': true },
);
