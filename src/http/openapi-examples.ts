// Examples shown in the OpenAPI document, by component schema name. `redocly lint` checks each
// against its schema (no-invalid-schema-examples, no-invalid-media-type-examples), so they cannot
// drift from the contract unnoticed.
const T0 = '2026-01-05T09:30:00Z';
const T1 = '2026-01-05T09:30:04Z';
const CONNECTOR_ID = '0194f1c2-7a3b-7c4d-9e5f-a1b2c3d4e5f6';
const RUN_ID = '0194f1c3-1111-7222-8333-944455566677';
const TASK_ID = '0194f1c4-aaaa-7bbb-8ccc-dddd0000eeee';
const SECRET_ID = '0194f1c5-0000-7111-8222-333344445555';
const FILE_ID = '0194f1c6-9999-7888-8777-666655554444';
const SESSION_ID = '0194f1c7-1234-7567-89ab-cdef01234567';
const WEBHOOK_ID = '0194f1c8-5555-7666-8777-888899990000';
const DELIVERY_ID = '0194f1c9-2222-7333-8444-555566667777';

const connector = {
  id: CONNECTOR_ID,
  display_name: 'Order status',
  purpose: 'Looks up the status of an order by its number.',
  website: 'https://shop.example.com',
  input_schema: { type: 'object', properties: { order_number: { type: 'string' } }, required: ['order_number'] },
  output_schema: { type: 'object', properties: { status: { type: 'string' }, eta: { type: 'string' } } },
  required_secrets: [{ name: 'shop_login', type: 'login', supports_totp: false, description: 'Customer account' }],
  version: 1,
  created_at: T0,
};

const secret = { id: SECRET_ID, name: 'Shop login', secret_type: 'login', has_totp: true, created_at: T0, updated_at: T0 };
const file = {
  id: FILE_ID,
  source: 'UPLOAD',
  run_id: null,
  name: 'checkout.har',
  size_bytes: 48213,
  content_type: 'application/json',
  crc32c: 'yZRlqg==',
  created_at: T0,
};
const captureSession = {
  id: SESSION_ID,
  state: 'active',
  browser_session_id: 'ctx-7f3a',
  iframe_url: `https://connectors.example.com/live/${SESSION_ID}?token=lv_3q2w…`,
  iframe_view_url: `https://connectors.example.com/live/${SESSION_ID}?token=lv_9xk4…&mode=view`,
  created_at: T0,
  updated_at: T0,
};
const task = {
  id: TASK_ID,
  current_state: 'ready',
  display_name: 'Order status',
  task: 'Look up the status of an order by its number.',
  website: 'https://shop.example.com',
  input_schema: '{"type":"object","properties":{"order_number":{"type":"string"}}}',
  output_schema: '{"type":"object","properties":{"status":{"type":"string"}}}',
  creation: { auto_generate_schemas: true, secrets: [], secret_bindings: {} },
  created_at: T0,
  updated_at: T1,
};

const webhook = {
  id: WEBHOOK_ID,
  url: 'https://hooks.example.com/connector-service',
  event_types: ['run.completed'],
  description: 'CI',
  created_at: T0,
};
const delivery = {
  id: DELIVERY_ID,
  event_id: 'evt_0194f1c31111722283339444555666ff',
  event_type: 'run.completed',
  resource_id: RUN_ID,
  subscription_id: WEBHOOK_ID,
  target_url: 'https://hooks.example.com/connector-service',
  status: 'succeeded',
  attempt_count: 2,
  next_attempt_at: null,
  last_response_status: 200,
  last_error: null,
  created_at: T1,
  updated_at: T1,
  attempts: [
    { attempt: 1, started_at: T1, duration_ms: 10002, response_status: null, error: 'timed out after 10 s' },
    { attempt: 2, started_at: T1, duration_ms: 84, response_status: 200, error: null },
  ],
};

export const SCHEMA_EXAMPLES: Record<string, unknown> = {
  Connector: connector,
  PublishConnectorRequest: {
    display_name: 'Order status',
    purpose: 'Looks up the status of an order by its number.',
    capture_session_id: SESSION_ID,
    hints: { arguments: { order_number: 'A-1042' }, secrets: { shop_login: SECRET_ID } },
  },
  ReviseConnectorRequest: { recording_file_id: FILE_ID, hints: 'The order page moved under /account.' },
  UpdateConnectorRequest: { display_name: 'Order status (EU shop)' },
  CreateRunRequest: {
    connector_id: CONNECTOR_ID,
    arguments: { order_number: 'A-1042' },
    secret_bindings: { shop_login: SECRET_ID },
    async: false,
    max_timeout_s: 120,
  },
  CreateTaskRunRequest: { task_id: TASK_ID, arguments: { order_number: 'A-1042' }, secret_bindings: { shop_login: SECRET_ID } },
  Run: {
    id: RUN_ID,
    connector_id: CONNECTOR_ID,
    connector_version: 1,
    arguments: { order_number: 'A-1042' },
    secret_bindings: { shop_login: SECRET_ID },
    status: 'success',
    result: { status: 'Shipped', eta: '2026-01-07' },
    result_stored: true,
    result_size_bytes: 38,
    error: null,
    has_logs: true,
    created_at: T0,
    finished_at: T1,
    progress: null,
  },
  TaskBasedRun: {
    id: RUN_ID,
    task_id: TASK_ID,
    arguments: { order_number: 'A-1042' },
    success: true,
    result_json: '{"status":"Shipped"}',
    created_at: T0,
    finished_at: T1,
  },
  RunLogs: { logs: `${T0} [engine] step 1/3 goto https://shop.example.com/orders\n${T1} [engine] done: success\n` },
  File: file,
  InitiateFileUploadRequest: { name: 'checkout.har', size_bytes: 48213, content_type: 'application/json' },
  InitiateFileUploadResponse: {
    file_id: FILE_ID,
    upload_url: `https://connectors.example.com/storage/files%2F${FILE_ID}?expires=1767605700&sig=…`,
    upload_headers: { 'Content-Type': 'application/json' },
    expires_at: T1,
  },
  CompleteFileUploadResponse: {
    file_id: FILE_ID,
    name: 'checkout.har',
    size_bytes: 48213,
    content_type: 'application/json',
    crc32c: 'yZRlqg==',
  },
  FileDownloadUrl: { url: `https://connectors.example.com/storage/files%2F${FILE_ID}?expires=1767605700&sig=…`, expires_at: T1 },
  Secret: secret,
  TaskBasedSecret: {
    uuid: SECRET_ID,
    name: 'Shop login',
    secret_type: 'login',
    website: 'https://shop.example.com',
    has_totp: true,
    created_at: T0,
    updated_at: T0,
  },
  CreateSecretRequest: {
    name: 'Shop login',
    secret_type: 'login',
    username: 'ada@example.com',
    password: '•••••••',
    totp_secret: 'JBSWY3DPEHPK3PXP',
  },
  TotpResponse: { id: SECRET_ID, code: '492039' },
  CaptureSession: captureSession,
  CreateCaptureSessionRequest: { use_proxy: false, start_url: 'https://shop.example.com/login' },
  PasteRequest: { field: 'password', secret_id: SECRET_ID },
  Task: task,
  CreateTaskRequest: {
    display_name: 'Order status',
    task: 'Look up the status of an order by its number.',
    website: 'https://shop.example.com',
  },
  StartManualSessionResponse: { session_id: SESSION_ID, iframe_url: captureSession.iframe_url },
  CreateWebhookSubscriptionRequest: {
    url: 'https://hooks.example.com/connector-service',
    event_types: ['run.completed'],
    description: 'CI',
  },
  WebhookSubscription: webhook,
  CreatedWebhookSubscription: { ...webhook, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
  WebhookSigningSecret: { secret: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD', created_at: T0 },
  WebhookDeliveryAttempt: delivery.attempts[0],
  WebhookDelivery: delivery,
  ErrorDetail: { detail: 'Run not found' },
  HTTPValidationError: { detail: [{ loc: ['body', 'connector_id'], msg: 'Field required', type: 'missing', input: {} }] },
};

/** Where an operation's answer differs from its schema's example, by "operationId status". */
export const OPERATION_EXAMPLES: Record<string, unknown> = {
  'createRun 202': {
    ...(SCHEMA_EXAMPLES.Run as object),
    status: 'pending',
    result: null,
    result_stored: false,
    result_size_bytes: null,
    has_logs: false,
    finished_at: null,
  },
  'completeCaptureSession 202': { ...captureSession, state: 'completing', updated_at: T1 },
  'abandonCaptureSession 200': {
    ...captureSession,
    state: 'abandoned',
    browser_session_id: null,
    iframe_url: null,
    iframe_view_url: null,
    updated_at: T1,
  },
  'redeliverWebhookDelivery 202': { ...delivery, status: 'pending', next_attempt_at: T1 },
};
