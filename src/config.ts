// One schema over the environment, parsed once at start and passed down.
// The same table feeds `connector-service config` and the README's configuration table.
import os from 'node:os';
import path from 'node:path';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** postgres://… selects PostgreSQL; unset means SQLite in dataDir. */
  databaseUrl: string | null;
  databasePreparedStatements: boolean;
  /** Base of signed URLs handed to clients (upload/download). */
  publicBaseUrl: string;
  /** Master key(s) of the local vault: "id:base64,id:base64" (first is current) or one base64 key. */
  masterKey: string | null;
  logLevel: string;
  /** Log lines gathered into one write, bytes (0 = each line written at once). */
  logBufferBytes: number;
  uploadUrlTtlS: number;
  downloadUrlTtlS: number;
  maxUploadBytes: number;
  /** Where file bytes, run outputs and recordings live: local disk (signed URLs served here) or S3. */
  blobStore: 'local' | 's3';
  s3Bucket: string | null;
  s3Region: string;
  /** S3-compatible servers (MinIO, Ceph, R2, …); unset = AWS. */
  s3Endpoint: string | null;
  s3ForcePathStyle: boolean;
  /** Upload URLs carry a signed `If-None-Match: *` (write-once); off for servers that refuse it. */
  s3ConditionalWrites: boolean;
  /** Prepended to every object key, e.g. "connector/"; a trailing "/" is added when missing. */
  s3Prefix: string;
  /** Both or neither; unset = the SDK's default credential chain. The secret is never printed. */
  s3AccessKeyId: string | null;
  s3SecretAccessKey: string | null;
  /** Runs executing at once = warm sandbox worker processes. */
  runConcurrency: number;
  /** HTTP-engine runs of one user that may share one sandbox worker at once (1: never shared). */
  runSandboxShare: number;
  runLeaseS: number;
  runShutdownGraceS: number;
  runScanMs: number | null;
  /** Largest result a run may produce (the API's execution limit, 100 MB). */
  runMaxResultBytes: number;
  /** Cap of one run's stored logs. */
  runLogMaxBytes: number;
  /** V8 heap limit of a sandbox worker. */
  sandboxMemoryMb: number;
  /** Runs of one user executing at once (fairness); unset = half of runConcurrency, rounded up. */
  runMaxConcurrencyPerUser: number;
  /** Output files one run may save, their total bytes, and the largest one. */
  runOutputMaxFiles: number;
  runOutputMaxBytes: number;
  runOutputMaxFileBytes: number;
  runInputMaxBytes: number;
  /** Memory limit of a script connector's QuickJS runtime. */
  scriptMemoryMb: number;
  /** wait: a TOTP code goes out once per secret and 30 s step (the ledger); allow: no ledger. */
  totpCodeReuse: 'wait' | 'allow';
  /** Account sandbox workers run as when the server runs as root (name or number). */
  sandboxUid: string;
  sandboxGid: string;
  /** "type:country=url,…" upstream proxies for runs; "auto=url" when proxy_settings is unset. */
  proxyUrls: string | null;
  /** Remote Chromium (CDP) instead of the local binary. */
  browserCdpUrl: string | null;
  captureMaxSessions: number;
  /** Capture sessions one user may hold at once; unset = half of captureMaxSessions, rounded up. */
  captureMaxSessionsPerUser: number;
  captureWarmContexts: number;
  captureIdleTimeoutS: number;
  captureMaxLifetimeS: number;
  captureTimeoutAction: 'abandon' | 'complete';
  captureProxyUrl: string | null;
  captureMaxBodyBytes: number;
  captureFileMaxBytes: number;
  /** Capture sessions' lease: renewed by the process holding the browser; when it runs out the session fails. */
  captureLeaseS: number;
  /** Where other processes reach this one (forwarded capture-session actions); default derived from HOST and PORT. */
  internalUrl: string;
  /** Private/loopback destinations for connectors and capture browsers: allow (single machine) or deny. */
  egressPrivate: 'allow' | 'deny';
  /** Egress allow/deny lists: CIDR, IP, host or *.domain, each optionally :port (src/egress/policy.ts). */
  egressAllow: string | null;
  egressDeny: string | null;
  /** HTTP edge limits (issue 9): slow or hostile clients cannot hold the server. */
  httpHeadersTimeoutS: number;
  httpBodyIdleTimeoutS: number;
  httpRequestTimeoutS: number;
  httpKeepAliveTimeoutS: number;
  httpMaxConnections: number;
  maxConcurrentUploads: number;
  maxConcurrentUploadsPerUser: number;
  metricsToken: string | null;
  role: 'all' | 'api' | 'worker';
  /** MCP endpoint: how often a tool call waiting for a run sends a progress notification (when the client asked for them). */
  mcpProgressIntervalS: number;
  /** Webhook deliveries: attempts before a delivery is failed, per-attempt timeout, backoff. */
  webhookMaxAttempts: number;
  webhookTimeoutS: number;
  webhookRetryBaseMs: number;
  webhookRetryMaxMs: number;
}

type Kind = 'string' | 'int' | 'url' | 'bool';
interface Entry {
  env: string;
  key: keyof Config;
  kind: Kind;
  doc: string;
  def?: string | number | null;
  min?: number;
  max?: number;
  choices?: string[];
  /** Never printed (`connector-service config` shows "(set)"). */
  secret?: boolean;
}

export const CONFIG_TABLE: Entry[] = [
  { env: 'HOST', key: 'host', kind: 'string', def: '127.0.0.1', doc: 'Interface the HTTP server binds.' },
  { env: 'PORT', key: 'port', kind: 'int', def: 8080, min: 0, max: 65535, doc: 'TCP port (0 picks a free one).' },
  {
    env: 'ROLE',
    key: 'role',
    kind: 'string',
    def: 'all',
    choices: ['all', 'api', 'worker'],
    doc: 'all = API and run execution in one process (the default); api = the HTTP API without executing runs; worker = executes runs, no HTTP API (`serve --role` and `worker` set it too).',
  },
  { env: 'DATA_DIR', key: 'dataDir', kind: 'string', def: './data', doc: 'SQLite database, blobs, vault and key files live here.' },
  {
    env: 'DATABASE_URL',
    key: 'databaseUrl',
    kind: 'url',
    def: null,
    doc: 'postgres://user@host:5432/db selects PostgreSQL; unset = SQLite in DATA_DIR.',
  },
  {
    env: 'DATABASE_PREPARED_STATEMENTS',
    key: 'databasePreparedStatements',
    kind: 'bool',
    def: 'true',
    doc: 'PostgreSQL: true = each connection prepares the statements it runs once and PostgreSQL keeps their plans; false behind a pooler that moves a session between server connections (PgBouncer in transaction mode before 1.21).',
  },
  {
    env: 'PUBLIC_BASE_URL',
    key: 'publicBaseUrl',
    kind: 'url',
    def: null,
    doc: 'Base URL clients reach this server at; used in signed URLs. Default http://HOST:PORT.',
  },
  {
    env: 'METRICS_TOKEN',
    key: 'metricsToken',
    kind: 'string',
    def: null,
    secret: true,
    doc: 'When set, GET /metrics requires "Authorization: Bearer <token>"; unset = /metrics is open (bind it to a private network).',
  },
  {
    env: 'MASTER_KEY',
    key: 'masterKey',
    kind: 'string',
    def: null,
    secret: true,
    doc: 'Vault master key(s): base64 of 32 bytes, or "id:base64,id:base64" with the current key first. Unset = generated once into DATA_DIR/master.key (mode 0600).',
  },
  {
    env: 'LOG_LEVEL',
    key: 'logLevel',
    kind: 'string',
    def: 'info',
    choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    doc: 'pino log level.',
  },
  {
    env: 'LOG_BUFFER_BYTES',
    key: 'logBufferBytes',
    kind: 'int',
    def: 4096,
    min: 0,
    max: 8192,
    doc: 'Log lines are gathered up to this many bytes, and for at most 200 ms, before one write to stdout; 0 writes every line at once. A process killed with SIGKILL loses the lines still gathered.',
  },
  {
    env: 'UPLOAD_URL_TTL_S',
    key: 'uploadUrlTtlS',
    kind: 'int',
    def: 900,
    min: 1,
    max: 7 * 86400,
    doc: 'Lifetime of signed upload URLs, seconds.',
  },
  {
    env: 'DOWNLOAD_URL_TTL_S',
    key: 'downloadUrlTtlS',
    kind: 'int',
    def: 300,
    min: 1,
    max: 7 * 86400,
    doc: 'Lifetime of signed download URLs, seconds.',
  },
  {
    env: 'MAX_UPLOAD_BYTES',
    key: 'maxUploadBytes',
    kind: 'int',
    def: 5 * 1024 ** 3,
    min: 0,
    doc: 'Largest size_bytes accepted by POST /v1beta/files.',
  },
  {
    env: 'BLOB_STORE',
    key: 'blobStore',
    kind: 'string',
    def: 'local',
    choices: ['local', 's3'],
    doc: 'Where file bytes, run output files and capture recordings are stored: local = DATA_DIR/blobs with signed URLs served by this server; s3 = an S3 bucket (S3_*) with presigned URLs (docs/files.md).',
  },
  { env: 'S3_BUCKET', key: 's3Bucket', kind: 'string', def: null, doc: 'Bucket of the S3 blob store (required with BLOB_STORE=s3).' },
  { env: 'S3_REGION', key: 's3Region', kind: 'string', def: 'us-east-1', doc: 'Region the S3 requests and presigned URLs are signed for.' },
  {
    env: 'S3_ENDPOINT',
    key: 's3Endpoint',
    kind: 'url',
    def: null,
    doc: 'Endpoint of an S3-compatible server (MinIO, Ceph, R2, …), e.g. https://minio.internal:9000; unset = AWS S3. Clients upload to and download from it directly, so it must be reachable by them.',
  },
  {
    env: 'S3_FORCE_PATH_STYLE',
    key: 's3ForcePathStyle',
    kind: 'bool',
    def: 'false',
    doc: 'true = path-style URLs (endpoint/bucket/key), as most S3-compatible servers need; false = virtual-hosted style (bucket.endpoint/key).',
  },
  {
    env: 'S3_CONDITIONAL_WRITES',
    key: 's3ConditionalWrites',
    kind: 'bool',
    def: 'true',
    doc: 'true = upload URLs carry a signed "If-None-Match: *", so each creates its object once and never replaces bytes already completed (AWS S3, MinIO, R2, Ceph support it); false for S3-compatible servers that refuse conditional writes.',
  },
  {
    env: 'S3_PREFIX',
    key: 's3Prefix',
    kind: 'string',
    def: '',
    doc: 'Prefix of every object key, e.g. "connector/" (a trailing "/" is added).',
  },
  {
    env: 'S3_ACCESS_KEY_ID',
    key: 's3AccessKeyId',
    kind: 'string',
    def: null,
    doc: "Access key of the S3 blob store, with S3_SECRET_ACCESS_KEY; unset = the AWS SDK's default credential chain (AWS_* variables, profile, instance or task role).",
  },
  {
    env: 'S3_SECRET_ACCESS_KEY',
    key: 's3SecretAccessKey',
    kind: 'string',
    def: null,
    secret: true,
    doc: 'Secret key belonging to S3_ACCESS_KEY_ID; never logged or printed.',
  },
  {
    env: 'RUN_SCAN_MS',
    key: 'runScanMs',
    kind: 'int',
    def: null,
    min: 50,
    max: 600_000,
    doc: 'How often a process reads the pending runs stored by others and ends runs of dead processes (default: 250 ms for a worker, 2000 ms otherwise). On PostgreSQL a notice wakes workers at once when an API process stores a run; this read is the fallback.',
  },
  {
    env: 'RUN_LEASE_S',
    key: 'runLeaseS',
    kind: 'int',
    def: 30,
    min: 2,
    max: 3600,
    doc: 'A process renews the lease of the runs it executes (and of queued runs whose secret_values it holds) every third of this; a run whose lease ran out belongs to a dead process and ends internal_error.',
  },
  {
    env: 'RUN_SHUTDOWN_GRACE_S',
    key: 'runShutdownGraceS',
    kind: 'int',
    def: 20,
    min: 0,
    max: 3600,
    doc: 'On shutdown (SIGTERM) a process that executes runs stops claiming and gives the runs in flight this long to finish; those still executing then end internal_error (queued runs stay pending for the other processes or the next start). 0 ends them at once.',
  },
  {
    env: 'RUN_CONCURRENCY',
    key: 'runConcurrency',
    kind: 'int',
    def: 4,
    min: 1,
    max: 256,
    doc: 'Runs executing at once: the number of warm sandboxed worker processes.',
  },
  {
    env: 'RUN_SANDBOX_SHARE',
    key: 'runSandboxShare',
    kind: 'int',
    def: 4,
    min: 1,
    max: 64,
    doc: 'HTTP-engine runs of one user that may execute together in one sandbox worker process. Such runs execute no connector code in Node and mostly wait on the network, so a few per process cost less CPU than a process each. Runs of different users, and script and browser runs, never share a process. 1: every run gets a process of its own.',
  },
  {
    env: 'RUN_MAX_RESULT_BYTES',
    key: 'runMaxResultBytes',
    kind: 'int',
    def: 100 * 1024 * 1024,
    min: 1_000_000,
    doc: 'Largest run result (UTF-8 JSON bytes); above it a run ends result_too_large.',
  },
  {
    env: 'RUN_LOG_MAX_BYTES',
    key: 'runLogMaxBytes',
    kind: 'int',
    def: 1_000_000,
    min: 1000,
    doc: "Cap of one run's stored logs (later lines are dropped with a marker).",
  },
  {
    env: 'SANDBOX_MEMORY_MB',
    key: 'sandboxMemoryMb',
    kind: 'int',
    def: 1024,
    min: 64,
    doc: 'V8 heap limit of each sandboxed worker process; exceeding it ends the run connector_error/crash.',
  },
  {
    env: 'RUN_MAX_CONCURRENCY_PER_USER',
    key: 'runMaxConcurrencyPerUser',
    kind: 'int',
    def: null,
    min: 1,
    max: 256,
    doc: "Runs of one user executing at once; the dispatcher serves users round-robin, so one user's backlog never holds the others' runs back. Unset = half of RUN_CONCURRENCY, rounded up.",
  },
  {
    env: 'RUN_OUTPUT_MAX_FILES',
    key: 'runOutputMaxFiles',
    kind: 'int',
    def: 20,
    min: 0,
    doc: 'Output files one run may save (ctx.files.save); one more ends the run connector_error.',
  },
  {
    env: 'RUN_OUTPUT_MAX_BYTES',
    key: 'runOutputMaxBytes',
    kind: 'int',
    def: 100 * 1024 * 1024,
    min: 0,
    doc: "Total bytes of one run's output files; a file that would exceed it is not saved and the run ends connector_error.",
  },
  {
    env: 'RUN_OUTPUT_MAX_FILE_BYTES',
    key: 'runOutputMaxFileBytes',
    kind: 'int',
    def: 50 * 1024 * 1024,
    min: 0,
    doc: 'Largest single output file (it crosses from the sandbox in memory); a larger one ends the run connector_error.',
  },
  {
    env: 'RUN_INPUT_MAX_BYTES',
    key: 'runInputMaxBytes',
    kind: 'int',
    def: 50 * 1024 * 1024,
    min: 0,
    doc: "Total bytes of uploaded files one run may send (arguments of format file-id, read into the sandbox's memory); a larger file fails the run invalid_input.",
  },
  {
    env: 'SCRIPT_MEMORY_MB',
    key: 'scriptMemoryMb',
    kind: 'int',
    def: 256,
    min: 32,
    max: 2048,
    doc: "Memory limit of a script connector's QuickJS (WebAssembly) instance; exceeding it ends the run connector_error/crash.",
  },
  {
    env: 'TOTP_CODE_REUSE',
    key: 'totpCodeReuse',
    kind: 'string',
    def: 'wait',
    choices: ['wait', 'allow'],
    doc: "wait: runs and validation replays never send a TOTP code twice for the same seed in one 30 s step (sites reject reused codes); a second login in the same step waits for the next step, bounded by the run's timeout. allow: every login gets the current code at once (only for sites without replay protection).",
  },
  {
    env: 'SANDBOX_UID',
    key: 'sandboxUid',
    kind: 'string',
    def: 'nobody',
    doc: 'User (name or uid) the sandbox worker processes run as when the server runs as root; ignored otherwise.',
  },
  {
    env: 'SANDBOX_GID',
    key: 'sandboxGid',
    kind: 'string',
    def: 'nogroup',
    doc: 'Group (name or gid) of the sandbox worker processes when the server runs as root; ignored otherwise.',
  },
  {
    env: 'PROXY_URLS',
    key: 'proxyUrls',
    kind: 'string',
    def: null,
    doc: 'Upstream proxies for runs: "isp:us=http://h:p,residential:de=http://h:p,residential:*=…,auto=…". auto is used when a run has no proxy_settings; unset auto = direct.',
  },
  {
    env: 'BROWSER_CDP_URL',
    key: 'browserCdpUrl',
    kind: 'url',
    def: null,
    doc: 'Remote Chromium over CDP (ws:// or http://) instead of launching /usr/bin/chromium.',
  },
  {
    env: 'CAPTURE_MAX_SESSIONS',
    key: 'captureMaxSessions',
    kind: 'int',
    def: 4,
    min: 1,
    max: 1000,
    doc: 'Capture sessions live at once, counted in the database across every API process (and per process for its own browser); beyond it POST /v1beta/capture_sessions answers 429.',
  },
  {
    env: 'CAPTURE_MAX_SESSIONS_PER_USER',
    key: 'captureMaxSessionsPerUser',
    kind: 'int',
    def: null,
    min: 1,
    max: 1000,
    doc: 'Capture sessions one user may hold at once (active or completing); beyond it 429 with Retry-After. Unset = half of CAPTURE_MAX_SESSIONS, rounded up; ≥ CAPTURE_MAX_SESSIONS = no per-user limit.',
  },
  {
    env: 'CAPTURE_WARM_CONTEXTS',
    key: 'captureWarmContexts',
    kind: 'int',
    def: 2,
    min: 0,
    max: 64,
    doc: 'Browser contexts kept pre-warmed for new capture sessions (0 = create on demand).',
  },
  {
    env: 'CAPTURE_IDLE_TIMEOUT_S',
    key: 'captureIdleTimeoutS',
    kind: 'int',
    def: 900,
    min: 1,
    max: 86400,
    doc: 'A capture session with no viewer input and no API call for this long ends (see CAPTURE_TIMEOUT_ACTION).',
  },
  {
    env: 'CAPTURE_MAX_LIFETIME_S',
    key: 'captureMaxLifetimeS',
    kind: 'int',
    def: 3600,
    min: 1,
    max: 7 * 86400,
    doc: 'Longest a capture session may stay active.',
  },
  {
    env: 'CAPTURE_TIMEOUT_ACTION',
    key: 'captureTimeoutAction',
    kind: 'string',
    def: 'abandon',
    choices: ['abandon', 'complete'],
    doc: 'What a timed-out capture session does: abandon (state abandoned, recording discarded) or complete (recording kept).',
  },
  {
    env: 'CAPTURE_PROXY_URL',
    key: 'captureProxyUrl',
    kind: 'url',
    def: null,
    doc: 'Upstream proxy (http://host:port) for capture sessions created with use_proxy: true.',
  },
  {
    env: 'CAPTURE_MAX_BODY_BYTES',
    key: 'captureMaxBodyBytes',
    kind: 'int',
    def: 2 * 1024 * 1024,
    min: 1024,
    max: 100 * 1024 * 1024,
    doc: 'Largest request/response body text kept per entry in a recording (larger: truncated, with size and sha256).',
  },
  {
    env: 'CAPTURE_FILE_MAX_BYTES',
    key: 'captureFileMaxBytes',
    kind: 'int',
    def: 20 * 1024 * 1024,
    min: 0,
    max: 1024 * 1024 * 1024,
    doc: "Total bytes of the files a person may give one file chooser of a capture session's page through the live view.",
  },
  {
    env: 'CAPTURE_LEASE_S',
    key: 'captureLeaseS',
    kind: 'int',
    def: 30,
    min: 2,
    max: 3600,
    doc: "The process holding a capture session's browser renews its lease every third of this; a session whose lease ran out (its process died) ends failed, detected by any live process.",
  },
  {
    env: 'INTERNAL_URL',
    key: 'internalUrl',
    kind: 'url',
    def: null,
    doc: "Base URL other API processes reach this one at: they forward a capture session's browser actions (live view, paste, complete, abandon) to the process holding its browser, signed with a key derived from MASTER_KEY. Must be unique per process. Unset = http://HOST:PORT (the host name when HOST is 0.0.0.0 or ::); set it when processes run on different machines or containers.",
  },
  {
    env: 'EGRESS_PRIVATE',
    key: 'egressPrivate',
    kind: 'string',
    def: 'allow',
    choices: ['allow', 'deny'],
    doc: 'Whether connectors and capture browsers may reach private, loopback and other non-public addresses (deny for multi-tenant deployments). Link-local/cloud metadata, this server and its database are always denied.',
  },
  {
    env: 'EGRESS_ALLOW',
    key: 'egressAllow',
    kind: 'string',
    def: null,
    doc: 'Comma-separated destinations always allowed (re-opens EGRESS_DENY and private ranges, never the always-denied set): CIDR, IP, host or *.domain, each optionally :port, e.g. "10.1.0.0/16,intranet.example:443".',
  },
  {
    env: 'EGRESS_DENY',
    key: 'egressDeny',
    kind: 'string',
    def: null,
    doc: 'Comma-separated destinations denied to connectors and capture browsers: CIDR, IP, host or *.domain, each optionally :port, e.g. "10.0.0.0/8,[fd00::]/8:5432,*.corp.example".',
  },
  {
    env: 'HTTP_HEADERS_TIMEOUT_S',
    key: 'httpHeadersTimeoutS',
    kind: 'int',
    def: 15,
    min: 1,
    max: 600,
    doc: 'A client must send its complete request headers within this time, else 408 and the connection is closed (slowloris).',
  },
  {
    env: 'HTTP_BODY_IDLE_TIMEOUT_S',
    key: 'httpBodyIdleTimeoutS',
    kind: 'int',
    def: 20,
    min: 1,
    max: 3600,
    doc: 'A request body (JSON or signed upload) that sends no byte for this long is cut: 408 {"detail"}, connection closed, nothing stored (S3 answers RequestTimeout after ~20 s). A download the client stops reading for this long is disconnected.',
  },
  {
    env: 'HTTP_REQUEST_TIMEOUT_S',
    key: 'httpRequestTimeoutS',
    kind: 'int',
    def: 3600,
    min: 1,
    max: 7 * 86400,
    doc: 'Longest time to receive one whole request (headers and body, e.g. a large upload); the response may take longer (sync runs).',
  },
  {
    env: 'HTTP_KEEP_ALIVE_TIMEOUT_S',
    key: 'httpKeepAliveTimeoutS',
    kind: 'int',
    def: 65,
    min: 1,
    max: 3600,
    doc: 'An idle keep-alive connection is closed after this long (above the 60 s idle timeout of common proxies).',
  },
  {
    env: 'HTTP_MAX_CONNECTIONS',
    key: 'httpMaxConnections',
    kind: 'int',
    def: 2048,
    min: 1,
    max: 1_000_000,
    doc: 'Open client connections per process; beyond it new connections are closed at once.',
  },
  {
    env: 'MAX_CONCURRENT_UPLOADS',
    key: 'maxConcurrentUploads',
    kind: 'int',
    def: 64,
    min: 1,
    max: 100_000,
    doc: 'Signed-URL uploads streaming at once per process; beyond it a PUT answers 503 {"detail"} with Retry-After.',
  },
  {
    env: 'MAX_CONCURRENT_UPLOADS_PER_USER',
    key: 'maxConcurrentUploadsPerUser',
    kind: 'int',
    def: 8,
    min: 1,
    max: 100_000,
    doc: 'Uploads one user may stream at once; beyond it a PUT answers 429 {"detail"} with Retry-After (one user cannot take every upload slot).',
  },
  {
    env: 'MCP_PROGRESS_INTERVAL_S',
    key: 'mcpProgressIntervalS',
    kind: 'int',
    def: 10,
    min: 1,
    max: 300,
    doc: 'While an MCP tool call waits for its run, a progress notification goes out this often when the client sent a progressToken (a client that resets its timeout on progress then waits for long runs).',
  },
  {
    env: 'WEBHOOK_MAX_ATTEMPTS',
    key: 'webhookMaxAttempts',
    kind: 'int',
    def: 8,
    min: 1,
    max: 50,
    doc: 'Attempts of one webhook delivery before it is marked failed (a redelivery starts a new round).',
  },
  {
    env: 'WEBHOOK_TIMEOUT_S',
    key: 'webhookTimeoutS',
    kind: 'int',
    def: 10,
    min: 1,
    max: 300,
    doc: 'Longest one webhook attempt may take (connect, send, status line); slower counts as a failed attempt.',
  },
  {
    env: 'WEBHOOK_RETRY_BASE_MS',
    key: 'webhookRetryBaseMs',
    kind: 'int',
    def: 30_000,
    min: 1,
    max: 86_400_000,
    doc: 'Backoff of webhook retries: after the n-th failed attempt the next waits a random time between 0 and min(WEBHOOK_RETRY_MAX_MS, base × 2^(n-1)) (exponential backoff with full jitter).',
  },
  {
    env: 'WEBHOOK_RETRY_MAX_MS',
    key: 'webhookRetryMaxMs',
    kind: 'int',
    def: 3_600_000,
    min: 1,
    max: 7 * 86_400_000,
    doc: 'Upper bound of one webhook retry delay.',
  },
];

export class ConfigError extends Error {}

/** Parse the environment (or overrides in tests). Throws ConfigError listing every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: Partial<Config> = {}): Config {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const e of CONFIG_TABLE) {
    const raw = env[e.env];
    if (raw === undefined || raw === '') {
      out[e.key] = e.kind === 'bool' ? e.def === 'true' : (e.def ?? null);
      continue;
    }
    if (e.kind === 'int') {
      const n = Number(raw);
      if (!Number.isInteger(n) || (e.min !== undefined && n < e.min) || (e.max !== undefined && n > e.max)) {
        problems.push(
          `${e.env} must be an integer${e.min !== undefined ? ` ≥ ${e.min}` : ''}${e.max !== undefined ? ` and ≤ ${e.max}` : ''}`,
        );
      }
      out[e.key] = n;
    } else if (e.kind === 'url') {
      try {
        new URL(raw);
      } catch {
        problems.push(`${e.env} must be a URL`);
      }
      out[e.key] = raw.replace(/\/+$/, '');
    } else if (e.kind === 'bool') {
      if (!/^(true|false|1|0)$/.test(raw)) problems.push(`${e.env} must be true or false`);
      out[e.key] = raw === 'true' || raw === '1';
    } else {
      if (e.choices && !e.choices.includes(raw)) problems.push(`${e.env} must be one of ${e.choices.join(', ')}`);
      out[e.key] = raw;
    }
  }
  if (out.blobStore === 's3' && !out.s3Bucket) problems.push('S3_BUCKET is required with BLOB_STORE=s3');
  if (!out.s3AccessKeyId !== !out.s3SecretAccessKey)
    problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together (or leave both unset)');
  if (problems.length) throw new ConfigError(`Invalid configuration:\n- ${problems.join('\n- ')}`);
  const cfg = { ...(out as unknown as Config), ...overrides };
  cfg.dataDir = path.resolve(cfg.dataDir);
  if (cfg.databaseUrl && !/^postgres(ql)?:\/\//.test(cfg.databaseUrl)) {
    throw new ConfigError('Invalid configuration:\n- DATABASE_URL must be a postgres:// URL (unset it for SQLite)');
  }
  // Fairness defaults follow the process-wide limits: one user may take half of them.
  cfg.runMaxConcurrencyPerUser ??= Math.ceil(cfg.runConcurrency / 2);
  cfg.captureMaxSessionsPerUser ??= Math.ceil(cfg.captureMaxSessions / 2);
  if (!cfg.publicBaseUrl) {
    cfg.publicBaseUrl = baseUrlFor(cfg.host, cfg.port);
    derivedBaseUrl.add(cfg);
  }
  if (!cfg.internalUrl) {
    cfg.internalUrl = baseUrlFor(internalHost(cfg.host), cfg.port);
    derivedInternalUrl.add(cfg);
  }
  return cfg;
}

/** Configs whose internalUrl was derived from HOST and PORT (not given as INTERNAL_URL). */
const derivedInternalUrl = new WeakSet<Config>();
/** A wildcard bind names no address another process could dial: the machine's name does. */
const internalHost = (host: string) => (['0.0.0.0', '::', ''].includes(host) ? os.hostname() : host);

/** Configs whose publicBaseUrl was derived from HOST and PORT (not given as PUBLIC_BASE_URL). */
const derivedBaseUrl = new WeakSet<Config>();
const baseUrlFor = (host: string, port: number) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

/**
 * Called once the server listens: with PORT=0 the port is known only now, and a derived
 * publicBaseUrl (signed URLs, the egress self-check) must name it. A PUBLIC_BASE_URL given in the
 * environment is left as it is. The one place the configuration changes after it was loaded.
 */
export function listeningOn(cfg: Config, port: number): void {
  if (derivedBaseUrl.has(cfg)) cfg.publicBaseUrl = baseUrlFor(cfg.host, port);
  if (derivedInternalUrl.has(cfg)) cfg.internalUrl = baseUrlFor(internalHost(cfg.host), port);
}
