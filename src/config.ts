// One schema over the environment, parsed once at start and passed down.
// The same table feeds `connector-service config` and the README's configuration table.
import path from 'node:path';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** postgres://… selects PostgreSQL; unset means SQLite in dataDir. */
  databaseUrl: string | null;
  /** Base of signed URLs handed to clients (upload/download). */
  publicBaseUrl: string;
  /** Master key(s) of the local vault: "id:base64,id:base64" (first is current) or one base64 key. */
  masterKey: string | null;
  logLevel: string;
  uploadUrlTtlS: number;
  downloadUrlTtlS: number;
  maxUploadBytes: number;
  /** Runs executing at once = warm sandbox worker processes. */
  runConcurrency: number;
  /** Largest result a run may produce (SPEC §8 execution limit, 100 MB). */
  runMaxResultBytes: number;
  /** Cap of one run's stored logs. */
  runLogMaxBytes: number;
  /** V8 heap limit of a sandbox worker. */
  sandboxMemoryMb: number;
  /** Memory limit of a script connector's QuickJS runtime. */
  scriptMemoryMb: number;
  /** Account sandbox workers run as when the server runs as root (name or number). */
  sandboxUid: string;
  sandboxGid: string;
  /** "type:country=url,…" upstream proxies for runs; "auto=url" when proxy_settings is unset. */
  proxyUrls: string | null;
  /** Remote Chromium (CDP) instead of the local binary. */
  browserCdpUrl: string | null;
  captureMaxSessions: number;
  captureWarmContexts: number;
  captureIdleTimeoutS: number;
  captureMaxLifetimeS: number;
  captureTimeoutAction: 'abandon' | 'complete';
  captureProxyUrl: string | null;
  captureMaxBodyBytes: number;
}

type Kind = 'string' | 'int' | 'url';
interface Entry {
  env: string;
  key: keyof Config;
  kind: Kind;
  doc: string;
  def?: string | number | null;
  min?: number;
  max?: number;
  choices?: string[];
}

export const CONFIG_TABLE: Entry[] = [
  { env: 'HOST', key: 'host', kind: 'string', def: '127.0.0.1', doc: 'Interface the HTTP server binds.' },
  { env: 'PORT', key: 'port', kind: 'int', def: 8080, min: 0, max: 65535, doc: 'TCP port (0 picks a free one).' },
  { env: 'DATA_DIR', key: 'dataDir', kind: 'string', def: './data', doc: 'SQLite database, blobs, vault and key files live here.' },
  { env: 'DATABASE_URL', key: 'databaseUrl', kind: 'url', def: null, doc: 'postgres://user@host:5432/db selects PostgreSQL; unset = SQLite in DATA_DIR.' },
  { env: 'PUBLIC_BASE_URL', key: 'publicBaseUrl', kind: 'url', def: null, doc: 'Base URL clients reach this server at; used in signed URLs. Default http://HOST:PORT.' },
  { env: 'MASTER_KEY', key: 'masterKey', kind: 'string', def: null, doc: 'Vault master key(s): base64 of 32 bytes, or "id:base64,id:base64" with the current key first. Unset = generated once into DATA_DIR/master.key (mode 0600).' },
  { env: 'LOG_LEVEL', key: 'logLevel', kind: 'string', def: 'info', choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], doc: 'pino log level.' },
  { env: 'UPLOAD_URL_TTL_S', key: 'uploadUrlTtlS', kind: 'int', def: 900, min: 1, max: 7 * 86400, doc: 'Lifetime of signed upload URLs, seconds.' },
  { env: 'DOWNLOAD_URL_TTL_S', key: 'downloadUrlTtlS', kind: 'int', def: 300, min: 1, max: 7 * 86400, doc: 'Lifetime of signed download URLs, seconds.' },
  { env: 'MAX_UPLOAD_BYTES', key: 'maxUploadBytes', kind: 'int', def: 5 * 1024 ** 3, min: 0, doc: 'Largest size_bytes accepted by POST /v1beta/files.' },
  { env: 'RUN_CONCURRENCY', key: 'runConcurrency', kind: 'int', def: 4, min: 1, max: 256, doc: 'Runs executing at once: the number of warm sandboxed worker processes.' },
  { env: 'RUN_MAX_RESULT_BYTES', key: 'runMaxResultBytes', kind: 'int', def: 100 * 1024 * 1024, min: 1_000_000, doc: 'Largest run result (UTF-8 JSON bytes); above it a run ends result_too_large.' },
  { env: 'RUN_LOG_MAX_BYTES', key: 'runLogMaxBytes', kind: 'int', def: 1_000_000, min: 1000, doc: "Cap of one run's stored logs (later lines are dropped with a marker)." },
  { env: 'SANDBOX_MEMORY_MB', key: 'sandboxMemoryMb', kind: 'int', def: 1024, min: 64, doc: 'V8 heap limit of each sandboxed worker process; exceeding it ends the run connector_error/crash.' },
  { env: 'SCRIPT_MEMORY_MB', key: 'scriptMemoryMb', kind: 'int', def: 256, min: 32, max: 2048, doc: "Memory limit of a script connector's QuickJS (WebAssembly) instance; exceeding it ends the run connector_error/crash." },
  { env: 'SANDBOX_UID', key: 'sandboxUid', kind: 'string', def: 'nobody', doc: 'User (name or uid) the sandbox worker processes run as when the server runs as root; ignored otherwise.' },
  { env: 'SANDBOX_GID', key: 'sandboxGid', kind: 'string', def: 'nogroup', doc: 'Group (name or gid) of the sandbox worker processes when the server runs as root; ignored otherwise.' },
  { env: 'PROXY_URLS', key: 'proxyUrls', kind: 'string', def: null, doc: 'Upstream proxies for runs: "isp:us=http://h:p,residential:de=http://h:p,residential:*=…,auto=…". auto is used when a run has no proxy_settings; unset auto = direct.' },
  { env: 'BROWSER_CDP_URL', key: 'browserCdpUrl', kind: 'url', def: null, doc: 'Remote Chromium over CDP (ws:// or http://) instead of launching /usr/bin/chromium.' },
  { env: 'CAPTURE_MAX_SESSIONS', key: 'captureMaxSessions', kind: 'int', def: 4, min: 1, max: 1000, doc: 'Capture sessions live at once in this process; beyond it POST /v1beta/capture_sessions answers 429.' },
  { env: 'CAPTURE_WARM_CONTEXTS', key: 'captureWarmContexts', kind: 'int', def: 2, min: 0, max: 64, doc: 'Browser contexts kept pre-warmed for new capture sessions (0 = create on demand).' },
  { env: 'CAPTURE_IDLE_TIMEOUT_S', key: 'captureIdleTimeoutS', kind: 'int', def: 900, min: 1, max: 86400, doc: 'A capture session with no viewer input and no API call for this long ends (see CAPTURE_TIMEOUT_ACTION).' },
  { env: 'CAPTURE_MAX_LIFETIME_S', key: 'captureMaxLifetimeS', kind: 'int', def: 3600, min: 1, max: 7 * 86400, doc: 'Longest a capture session may stay active.' },
  { env: 'CAPTURE_TIMEOUT_ACTION', key: 'captureTimeoutAction', kind: 'string', def: 'abandon', choices: ['abandon', 'complete'], doc: 'What a timed-out capture session does: abandon (state abandoned, recording discarded) or complete (recording kept).' },
  { env: 'CAPTURE_PROXY_URL', key: 'captureProxyUrl', kind: 'url', def: null, doc: 'Upstream proxy (http://host:port) for capture sessions created with use_proxy: true.' },
  { env: 'CAPTURE_MAX_BODY_BYTES', key: 'captureMaxBodyBytes', kind: 'int', def: 2 * 1024 * 1024, min: 1024, max: 100 * 1024 * 1024, doc: 'Largest request/response body text kept per entry in a recording (larger: truncated, with size and sha256).' },
];

export class ConfigError extends Error {}

/** Parse the environment (or overrides in tests). Throws ConfigError listing every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: Partial<Config> = {}): Config {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const e of CONFIG_TABLE) {
    const raw = env[e.env];
    if (raw === undefined || raw === '') {
      out[e.key] = e.def ?? null;
      continue;
    }
    if (e.kind === 'int') {
      const n = Number(raw);
      if (!Number.isInteger(n) || (e.min !== undefined && n < e.min) || (e.max !== undefined && n > e.max)) {
        problems.push(`${e.env} must be an integer${e.min !== undefined ? ` ≥ ${e.min}` : ''}${e.max !== undefined ? ` and ≤ ${e.max}` : ''}`);
      }
      out[e.key] = n;
    } else if (e.kind === 'url') {
      try {
        new URL(raw);
      } catch {
        problems.push(`${e.env} must be a URL`);
      }
      out[e.key] = raw.replace(/\/+$/, '');
    } else {
      if (e.choices && !e.choices.includes(raw)) problems.push(`${e.env} must be one of ${e.choices.join(', ')}`);
      out[e.key] = raw;
    }
  }
  if (problems.length) throw new ConfigError(`Invalid configuration:\n- ${problems.join('\n- ')}`);
  const cfg = { ...(out as unknown as Config), ...overrides };
  cfg.dataDir = path.resolve(cfg.dataDir);
  if (cfg.databaseUrl && !/^postgres(ql)?:\/\//.test(cfg.databaseUrl)) {
    throw new ConfigError('Invalid configuration:\n- DATABASE_URL must be a postgres:// URL (unset it for SQLite)');
  }
  if (!cfg.publicBaseUrl) cfg.publicBaseUrl = `http://${cfg.host.includes(':') ? `[${cfg.host}]` : cfg.host}:${cfg.port}`;
  return cfg;
}

export function isPostgres(cfg: Pick<Config, 'databaseUrl'>): boolean {
  return !!cfg.databaseUrl;
}
