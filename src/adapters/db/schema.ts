// Row types of the metadata database (SQLite and PostgreSQL share one schema).
// Timestamps are ISO 8601 UTC strings with millisecond precision (they sort as text);
// booleans are 0/1 integers so both databases read them the same way.
import type { Generated } from 'kysely';

export interface UsersTable {
  id: string;
  name: string;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  /** First characters of the key, shown in listings so a key can be recognised. */
  prefix: string;
  /** SHA-256 (hex) of the whole key; the key itself is never stored. */
  key_hash: string;
  created_at: string;
  revoked_at: string | null;
}

export interface SecretsTable {
  id: string;
  user_id: string;
  name: string;
  secret_type: 'login' | 'string';
  website: string | null;
  has_totp: number;
  created_at: string;
  updated_at: string;
}

export interface FilesTable {
  id: string;
  user_id: string;
  source: 'UPLOAD' | 'RUN_OUTPUT';
  run_id: string | null;
  connector_id: string | null;
  name: string;
  size_bytes: number;
  content_type: string;
  crc32c: string | null;
  /** pending until POST /files/{id}/complete succeeded. */
  status: 'pending' | 'available';
  blob_key: string;
  created_at: string;
  updated_at: string;
}

export interface CaptureSessionsTable {
  id: string;
  user_id: string;
  /** `starting`: a create in flight holding its place in the limits; never shown by the API. */
  state: 'starting' | 'active' | 'completing' | 'completed' | 'abandoned' | 'failed';
  browser_session_id: string | null;
  use_proxy: number;
  start_url: string | null;
  /** Blob key of the finalized recording (completed sessions). */
  recording_key: string | null;
  recording_size: number | null;
  /** Why the session ended when it was not by complete/abandon (timeout, crash, restart). */
  end_reason: string | null;
  /** Told when the session ends (webhooks); null = none. */
  webhook_url: string | null;
  /** The process holding the browser (random per process start); null in rows from before 0010. */
  owner_id: string | null;
  /** Internal base URL of that process (INTERNAL_URL): where other processes forward to. */
  owner_url: string | null;
  /** Renewed by the owner while it lives; a session whose lease ran out ends failed. */
  lease_until: string | null;
  created_at: string;
  updated_at: string;
}

/** A TOTP step this service handed a code for (src/runtime/totp-ledger.ts). */
export interface TotpStepsTable {
  /** SHA-256 (hex) of the normalized seed, domain-separated; never the seed. */
  seed_hash: string;
  /** floor(unix time / 30 s). */
  step: number;
  claimed_at: string;
}

export interface Database {
  capture_sessions: CaptureSessionsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  secrets: SecretsTable;
  files: FilesTable;
  connectors: ConnectorsTable;
  connector_versions: ConnectorVersionsTable;
  runs: RunsTable;
  run_logs: RunLogsTable;
  tasks: TasksTable;
  totp_steps: TotpStepsTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_signing_secrets: WebhookSigningSecretsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}

export interface ConnectorsTable {
  id: string;
  user_id: string;
  display_name: string;
  /** Lower-case host of the website, for the domain filter. */
  website_host: string | null;
  current_version: number;
  created_at: string;
  updated_at: string;
  /** Set by DELETE: runs stay readable, new runs are refused. */
  deleted_at: string | null;
}

export interface ConnectorVersionsTable {
  connector_id: string;
  version: number;
  purpose: string;
  website: string | null;
  /** JSON texts. */
  input_schema: string;
  output_schema: string;
  required_secrets: string;
  definition: string;
  engine: string;
  created_at: string;
}

export type RunStatus =
  | 'pending'
  | 'running'
  | 'success'
  | 'connector_error'
  | 'timed_out'
  | 'result_too_large'
  | 'internal_error'
  | 'cancelled';

export interface RunsTable {
  id: string;
  user_id: string;
  connector_id: string;
  connector_version: number;
  arguments: string;
  /** JSON slot → secret id; never values. */
  secret_bindings: string | null;
  ephemeral_secrets: number;
  proxy: string | null;
  is_async: number;
  max_timeout_s: number;
  status: RunStatus;
  result: string | null;
  result_stored: number;
  result_size_bytes: number | null;
  error: string | null;
  has_logs: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Until when the process executing this run (or holding its secret_values) is known alive. */
  lease_until: string | null;
  /** 1 once a cancel was asked for this run while another process executed it. */
  cancel_requested: Generated<number>;
  /** JSON {step, of, label} of a running run's latest progress (worker-reported); null otherwise. */
  progress: Generated<string | null>;
  /** Told when the run reaches a terminal status (webhooks); null = none. */
  webhook_url: string | null;
}

export interface RunLogsTable {
  run_id: string;
  logs: string;
}

/** The vault's own store: never joined with the metadata tables, and kept in a separate database. */
export interface VaultDatabase {
  vault_entries: {
    id: string;
    owner_id: string;
    /** Master key id that wraps this entry's data key. */
    kid: string;
    blob: string;
    created_at: string;
    updated_at: string;
  };
}

export type TaskState = 'not_ready' | 'waiting_for_manual_completion' | 'ready' | 'failed';

export interface TasksTable {
  id: string;
  user_id: string;
  display_name: string;
  task: string;
  website: string;
  current_state: TaskState;
  /** JSON Schema as JSON text (the task-based shapes carry schemas as strings). */
  input_schema: string | null;
  output_schema: string | null;
  /** JSON text of TaskCreation. */
  creation: string;
  connector_id: string | null;
  /** JSON text of the task-based required_secrets (set when ready). */
  required_secrets: string | null;
  capture_session_id: string | null;
  /** ISO time until which one process synthesizes this task (many processes share the DB). */
  synthesis_lease: string | null;
  failure_category: string | null;
  failure_message: string | null;
  /** Told each time the task becomes ready or failed (webhooks); null = none. */
  webhook_url: string | null;
  created_at: string;
  updated_at: string;
}

/** A user's webhook subscription; its signing secret is a vault entry with the subscription's id. */
export interface WebhookSubscriptionsTable {
  id: string;
  user_id: string;
  url: string;
  /** JSON array of event types, or ["*"]. */
  event_types: string;
  description: string | null;
  created_at: string;
}

/** The per-user secret that signs per-request webhooks: a pointer to its vault entry. */
export interface WebhookSigningSecretsTable {
  user_id: string;
  vault_id: string;
  created_at: string;
}

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One event to one URL: the durable queue entry and its outcome. */
export interface WebhookDeliveriesTable {
  id: string;
  user_id: string;
  /** null: the webhook_url of the resource's creation request (signed with the user's signing secret). */
  subscription_id: string | null;
  /** The `webhook-id` header: the same for every attempt and every target of one event. */
  event_id: string;
  event_type: string;
  resource_id: string;
  target_url: string;
  /** The JSON body sent, as built when the event happened. */
  payload: string;
  status: WebhookDeliveryStatus;
  /** Attempts ever made (numbering of webhook_attempts). */
  attempts: number;
  /** Attempts since it was (re)queued: the backoff exponent and the WEBHOOK_MAX_ATTEMPTS budget. */
  round_attempts: number;
  /** When the next attempt is due (pending only). */
  next_attempt_at: string | null;
  /** A process attempting it now holds it until then (claimed with a compare-and-set). */
  lease_until: string | null;
  lease_token: string | null;
  last_response_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  attempt: number;
  started_at: string;
  duration_ms: number;
  response_status: number | null;
  /** Why it failed (network error, timeout, egress denial, non-2xx answer), truncated. */
  error: string | null;
}
