// Request and response schemas of the task-based family (Task, TaskCreation,
// TaskFailureInfo, task-based Run; the task-based operations) and our extensions (create/list/get).
import { Type, type Static } from '@sinclair/typebox';
import { CursorQuery, DateTime, LimitQuery } from '../../http/schemas.js';
import { SessionCookie } from '../capture-sessions/schemas.js';
import { WebhookUrlField } from '../webhooks/schemas.js';

export const TaskState = Type.Unsafe<'not_ready' | 'waiting_for_manual_completion' | 'ready' | 'failed'>({
  type: 'string',
  enum: ['not_ready', 'waiting_for_manual_completion', 'ready', 'failed'],
  title: 'TaskState',
});

/** Categories of failure_info (an open set; README documents each). */
export const FAILURE_CATEGORIES = [
  'session_abandoned',
  'session_failed',
  'no_recording',
  'no_target_found',
  'synthesis_failed',
  'validation_failed',
  'schema_mismatch',
  'internal_error',
] as const;
export type FailureCategory = (typeof FAILURE_CATEGORIES)[number];

const TaskSecretRef = Type.Object(
  {
    secret_uuid: Type.String({ format: 'uuid', description: 'One of the caller’s secrets the task needs.' }),
    description: Type.String({ maxLength: 1000, description: 'What the secret is used for.' }),
  },
  { additionalProperties: false },
);

const SecretBindings = Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Type.String({ format: 'uuid' }), {
  description: 'Slot name → secret UUID.',
});

export const TaskCreationSchema = Type.Object(
  {
    auto_generate_schemas: Type.Boolean(),
    secrets: Type.Array(TaskSecretRef),
    secret_bindings: Type.Record(Type.String(), Type.String()),
  },
  { title: 'TaskCreation', description: 'The parameters the task was created with.' },
);

export const RequiredSecretSchema = Type.Object(
  { name: Type.String(), type: Type.Union([Type.Literal('login'), Type.Literal('string')]), requires_totp: Type.Boolean() },
  { title: 'TaskSecretSlot' },
);

export const TaskSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    current_state: TaskState,
    display_name: Type.String(),
    task: Type.String(),
    website: Type.String({ format: 'uri', minLength: 1, maxLength: 2083 }),
    input_schema: Type.Union([Type.String(), Type.Null()], { description: 'JSON Schema as a string; non-null when ready.' }),
    output_schema: Type.Union([Type.String(), Type.Null()], { description: 'JSON Schema as a string; non-null when ready.' }),
    creation: TaskCreationSchema,
    created_at: DateTime,
    updated_at: DateTime,
    required_secrets: Type.Optional(Type.Array(RequiredSecretSchema)),
    failure_info: Type.Optional(
      Type.Object(
        {
          category: Type.String({ enum: [...FAILURE_CATEGORIES] }),
          message: Type.String({ description: 'What went wrong and what to do about it.' }),
        },
        { title: 'TaskFailureInfo' },
      ),
    ),
  },
  { title: 'Task' },
);
export type TaskView = Static<typeof TaskSchema>;

export const CreateTaskBody = Type.Object(
  {
    display_name: Type.String({ minLength: 1, maxLength: 200 }),
    task: Type.String({ minLength: 1, maxLength: 10000, description: 'What the task does; becomes the connector’s purpose.' }),
    website: Type.String({ minLength: 1, maxLength: 2083, format: 'uri', description: 'Where the manual session starts.' }),
    input_schema: Type.Optional(
      Type.Union([Type.String({ maxLength: 100000 }), Type.Null()], { description: 'JSON Schema as a JSON string.' }),
    ),
    output_schema: Type.Optional(
      Type.Union([Type.String({ maxLength: 100000 }), Type.Null()], { description: 'JSON Schema as a JSON string.' }),
    ),
    auto_generate_schemas: Type.Optional(Type.Boolean({ default: true })),
    secrets: Type.Optional(Type.Array(TaskSecretRef, { maxItems: 50 })),
    secret_bindings: Type.Optional(SecretBindings),
    webhook_url: Type.Optional(WebhookUrlField),
  },
  { additionalProperties: false, title: 'CreateTaskRequest' },
);
export type CreateTaskBody = Static<typeof CreateTaskBody>;

export const ListTasksQuery = Type.Object(
  { limit: Type.Optional(LimitQuery), cursor: Type.Optional(CursorQuery) },
  { additionalProperties: false },
);
export type ListTasksQuery = { limit: number; cursor?: string };

export type SessionCookie = Static<typeof SessionCookie>;

// type [object, null]: the body is optional: absent or null.
export const StartManualSessionBody = Type.Unsafe<{ use_proxy?: boolean; cookies?: SessionCookie[] | null } | null>({
  type: ['object', 'null'],
  title: 'StartManualSessionRequest',
  additionalProperties: false,
  properties: {
    use_proxy: { type: 'boolean', default: false },
    cookies: { type: ['array', 'null'], items: SessionCookie, maxItems: 500 },
  },
});
export type StartManualSessionBody = { use_proxy?: boolean; cookies?: SessionCookie[] | null } | null;

export const StartManualSessionResponse = Type.Object(
  {
    session_id: Type.String({
      description: 'The capture session’s id: complete it with POST /v1beta/capture_sessions/{session_id}/complete.',
    }),
    iframe_url: Type.String(),
  },
  { title: 'StartManualSessionResponse' },
);

export const TaskRunBody = Type.Object(
  {
    task_id: Type.String({ format: 'uuid' }),
    arguments: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    secret_bindings: Type.Optional(SecretBindings),
  },
  { additionalProperties: false, title: 'CreateTaskRunRequest' },
);
export type TaskRunBody = Static<typeof TaskRunBody>;

export const TaskRunSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    task_id: Type.String({ format: 'uuid' }),
    arguments: Type.Record(Type.String(), Type.Unknown()),
    success: Type.Boolean(),
    result_json: Type.Union([Type.String(), Type.Null()], { description: 'The result as JSON text.' }),
    created_at: DateTime,
    finished_at: Type.Union([DateTime, Type.Null()]),
    secret_bindings: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  { title: 'TaskBasedRun' },
);
export type TaskRunView = Static<typeof TaskRunSchema>;

export const DeleteTaskResponse = Type.Object({ id: Type.String(), deleted: Type.Boolean() }, { title: 'DeleteTaskResponse' });
