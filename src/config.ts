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
