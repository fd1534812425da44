// Runs: creation rules (CreateRunRequest: arguments against the pinned version's
// input_schema, secret bindings/values, proxy settings, timeout), reads, listing, logs, cancel.
// Execution lives in src/runtime (queue → sandboxed workers).
import { InvalidInput, conflict, notFound, type Problem } from '../../lib/errors.js';
import { ajvToEntries } from '../../lib/json-schema-problems.js';
import { FILE_ID_FORMAT } from '../../lib/json-schema.js';
import { decodeCursor, toPage, type Page } from '../../lib/cursor.js';
import { isUuid, newId, nowIso } from '../../lib/ids.js';
import { parseTotpSecret } from '../../lib/totp.js';
import type { SlotValue } from '../../runtime/worker/engines/context.js';
import { DEFAULT_RUN_TIMEOUT_S, type RunRow, type RunStore } from '../../runtime/host/run-store.js';
import type { Runtime } from '../../runtime/index.js';
import type { ProxyMap } from '../../runtime/host/proxies.js';
import type { VersionCache } from '../../runtime/host/version-cache.js';
import type { SecretsService } from '../secrets/service.js';
import type { ConnectorsService } from '../connectors/service.js';
import type { CreateRunInput, ListRunsParams, RunView } from './schemas.js';

export function toRunView(r: RunRow): RunView {
  const v: RunView = {
    id: r.id,
    connector_id: r.connector_id,
    connector_version: r.connector_version,
    arguments: JSON.parse(r.arguments),
    status: r.status,
    result: r.result !== null ? JSON.parse(r.result) : null,
    result_stored: !!r.result_stored,
    result_size_bytes: r.result_size_bytes === null ? null : Number(r.result_size_bytes),
    error: r.error ? JSON.parse(r.error) : null,
    has_logs: !!r.has_logs,
    created_at: r.created_at,
    finished_at: r.finished_at,
    // Written about once a second by the executing process; only a running run has one.
    progress: r.status === 'running' && r.progress ? JSON.parse(r.progress) : null,
  };
  if (r.secret_bindings) v.secret_bindings = JSON.parse(r.secret_bindings);
  return v;
}

export interface RunsDeps {
  store: RunStore;
  launch: Runtime['launch'];
  cancel: Runtime['cancel'];
  connectors: ConnectorsService;
  secrets: SecretsService;
  versions: VersionCache;
  proxies: ProxyMap;
  /** True when the user has an available file of this id (arguments of format file-id). */
  fileExists?: (userId: string, fileId: string) => Promise<boolean>;
  /** Why a webhook_url can't be used (the webhooks module's rule), or null. */
  checkWebhookUrl?: (url: string) => Promise<string | null>;
}

export class RunsService {
  constructor(private readonly d: RunsDeps) {}

  async create(userId: string, body: CreateRunInput): Promise<{ view: RunView; async: boolean }> {
    const current = await this.d.connectors.currentVersion(userId, body.connector_id);
    const v = current === null ? null : await this.d.versions.get(userId, body.connector_id, current.version);
    if (!v || !current) throw notFound('Connector');
    if (current.deleted) throw conflict('Connector was deleted; it can no longer be run');
    const errors: Problem[] = [];

    const args = structuredClone(body.arguments ?? {});
    if (!v.checkArgs(args)) {
      errors.push(
        ...ajvToEntries(v.checkArgs.errors ?? [], 'body', args).map((e) => ({ ...e, loc: ['body', 'arguments', ...e.loc.slice(1)] })),
      );
    } else if (this.d.fileExists) {
      // A file argument names one of the caller's uploaded files: a wrong id is the caller's
      // mistake, told now rather than as a failed run (the run checks again when it reads it).
      for (const k of fileArguments(v.inputSchema)) {
        const id = (args as Record<string, unknown>)[k];
        if (typeof id === 'string' && !(await this.d.fileExists(userId, id)))
          errors.push({
            loc: ['body', 'arguments', k],
            msg: 'Value error, no uploaded file with this id: upload it (POST /v1beta/files, PUT the bytes, then complete) and pass its file_id',
            type: 'value_error',
            input: id,
          });
      }
    }

    const bindings = body.secret_bindings ?? {};
    const values = body.secret_values ?? {};
    const slots = new Map(v.requiredSecrets.map((s) => [s.name, s]));
    const ephemeral: Record<string, SlotValue> = {};
    for (const name of Object.keys(bindings)) {
      if (!slots.has(name))
        errors.push({
          loc: ['body', 'secret_bindings', name],
          msg: `Value error, the connector has no secret slot '${name}'`,
          type: 'value_error',
        });
    }
    for (const name of Object.keys(values)) {
      if (!slots.has(name))
        errors.push({
          loc: ['body', 'secret_values', name],
          msg: `Value error, the connector has no secret slot '${name}'`,
          type: 'value_error',
        });
    }
    for (const slot of slots.values()) {
      const bound = slot.name in bindings;
      const given = slot.name in values;
      if (bound && given) {
        errors.push({
          loc: ['body', 'secret_values', slot.name],
          msg: `Value error, slot '${slot.name}' is in secret_bindings too; give it in exactly one`,
          type: 'value_error',
        });
      } else if (!bound && !given) {
        errors.push({
          loc: ['body', 'secret_bindings', slot.name],
          msg: `Field required: bind slot '${slot.name}' in secret_bindings or give it in secret_values`,
          type: 'missing',
        });
      } else if (bound) {
        const meta = await this.d.secrets.get(userId, bindings[slot.name]);
        if (!meta)
          errors.push({
            loc: ['body', 'secret_bindings', slot.name],
            msg: 'Value error, no such secret',
            type: 'value_error',
            input: bindings[slot.name],
          });
        else if (meta.secret_type !== slot.type) {
          errors.push({
            loc: ['body', 'secret_bindings', slot.name],
            msg: `Value error, slot '${slot.name}' needs a ${slot.type} secret, this one is ${meta.secret_type}`,
            type: 'value_error',
            input: bindings[slot.name],
          });
        }
      } else {
        const val = values[slot.name];
        const at = ['body', 'secret_values', slot.name];
        if (slot.type === 'login') {
          if (val.value !== undefined)
            errors.push({
              loc: [...at, 'value'],
              msg: 'Extra inputs are not permitted: a login slot takes username, password, totp_secret',
              type: 'extra_forbidden',
            });
          for (const f of ['username', 'password'] as const)
            if (val[f] === undefined) errors.push({ loc: [...at, f], msg: 'Field required', type: 'missing' });
          const seed = val.totp_secret ? parseTotpSecret(val.totp_secret) : null;
          if (val.totp_secret && !seed)
            errors.push({
              loc: [...at, 'totp_secret'],
              msg: 'Value error, totp_secret must be base32 with at least 16 characters',
              type: 'value_error',
            });
          if (val.username !== undefined && val.password !== undefined)
            ephemeral[slot.name] = { type: 'login', username: val.username, password: val.password, totp_secret: seed };
        } else {
          for (const f of ['username', 'password', 'totp_secret'] as const) {
            if (val[f] !== undefined)
              errors.push({ loc: [...at, f], msg: 'Extra inputs are not permitted: a string slot takes value', type: 'extra_forbidden' });
          }
          if (val.value === undefined) errors.push({ loc: [...at, 'value'], msg: 'Field required', type: 'missing' });
          else ephemeral[slot.name] = { type: 'string', value: val.value };
        }
      }
    }

    const proxy = body.proxy_settings ?? null;
    if (proxy && this.d.proxies.resolve(proxy) === undefined) {
      errors.push({
        loc: ['body', 'proxy_settings'],
        msg: `Value error, no upstream proxy is configured for ${proxy.type}/${proxy.location} (PROXY_URLS)`,
        type: 'value_error',
        input: proxy,
      });
    }
    const webhookUrl = body.webhook_url ?? null;
    const refused = webhookUrl && this.d.checkWebhookUrl ? await this.d.checkWebhookUrl(webhookUrl) : null;
    if (refused) errors.push({ loc: ['body', 'webhook_url'], msg: `Value error, ${refused}`, type: 'value_error', input: webhookUrl });
    if (errors.length) throw new InvalidInput(errors);

    const isAsync = body.async ?? false;
    const row: RunRow = {
      id: newId(),
      user_id: userId,
      connector_id: body.connector_id,
      connector_version: v.version,
      arguments: JSON.stringify(args),
      secret_bindings: Object.keys(bindings).length ? JSON.stringify(bindings) : null,
      ephemeral_secrets: Object.keys(ephemeral).length ? 1 : 0,
      proxy: proxy ? JSON.stringify(proxy) : null,
      is_async: isAsync ? 1 : 0,
      max_timeout_s: body.max_timeout_s ?? DEFAULT_RUN_TIMEOUT_S,
      status: 'pending',
      result: null,
      result_stored: 0,
      result_size_bytes: null,
      error: null,
      has_logs: 0,
      created_at: nowIso(),
      started_at: null,
      finished_at: null,
      lease_until: null,
      cancel_requested: 0,
      progress: null,
      webhook_url: webhookUrl,
    };
    // Sync: wait for the terminal state. A client that goes away doesn't cancel anything.
    const f = await this.d.launch(row, ephemeral, !isAsync);
    if (!f) return { view: toRunView(row), async: true };
    const view = await this.get(userId, row.id);
    if (f.transientResult !== undefined) view.result = f.transientResult;
    return { view, async: false };
  }

  private async row(userId: string, id: string): Promise<RunRow> {
    if (!isUuid(id)) throw notFound('Run');
    const r = await this.d.store.owned(userId, id);
    if (!r) throw notFound('Run');
    return r;
  }

  async get(userId: string, id: string): Promise<RunView> {
    return toRunView(await this.row(userId, id));
  }

  /**
   * Cancels a pending or running run; the run as it then is (`cancelled`, or — when another process
   * executes it and hasn't stopped it within a few seconds — still `running`). 409 once it ended.
   */
  async cancel(userId: string, id: string): Promise<RunView> {
    const r = await this.row(userId, id);
    const notCancellable = () => conflict(`Run is ${r.status}; only a pending or running run can be cancelled`);
    if (r.status !== 'pending' && r.status !== 'running') throw notCancellable();
    const what = await this.d.cancel(r.id);
    if (what === 'finished') {
      const now = await this.get(userId, id);
      if (now.status !== 'cancelled') throw conflict(`Run is ${now.status}; it ended before it could be cancelled`);
      return now;
    }
    // Another process executes it: it reads the request within a second and stops the run.
    for (let waited = 0; what === 'requested' && waited < 5000; waited += 100) {
      const now = await this.get(userId, id);
      if (now.status !== 'running') return now;
      await new Promise((res) => setTimeout(res, 100));
    }
    return this.get(userId, id);
  }

  async logs(userId: string, id: string): Promise<{ logs: string }> {
    const r = await this.row(userId, id);
    return { logs: await this.d.store.logs(r.id) };
  }

  /**
   * The user's runs across connectors (the MCP `list_runs` tool), newest first; optionally of one
   * connector (any version) and one status.
   */
  async listRecent(userId: string, p: { connector_id?: string; status?: string; limit: number; cursor?: string }): Promise<Page<RunView>> {
    if (p.connector_id !== undefined && (await this.d.connectors.currentVersion(userId, p.connector_id)) === null)
      throw notFound('Connector');
    const cursor = decodeCursor(p.cursor, 'created_at', 'desc');
    const rows = await this.d.store.listByUser(userId, { connectorId: p.connector_id, status: p.status }, cursor, p.limit);
    return toPage(rows, p.limit, 'created_at', 'desc', (r) => r.created_at, toRunView);
  }

  async list(userId: string, p: ListRunsParams): Promise<Page<RunView>> {
    const current = await this.d.connectors.currentVersion(userId, p.connector_id);
    if (current === null) throw notFound('Connector');
    const version = p.version ?? current.version;
    const cursor = decodeCursor(p.cursor, 'created_at', 'desc');
    const rows = await this.d.store.list(userId, p.connector_id, version, cursor, p.limit);
    return toPage(rows, p.limit, 'created_at', 'desc', (r) => r.created_at, toRunView);
  }
}

/** Top-level arguments of format file-id. */
function fileArguments(schema: Record<string, unknown>): string[] {
  const props = (schema as { properties?: Record<string, { format?: unknown }> }).properties ?? {};
  return Object.entries(props)
    .filter(([, p]) => p && typeof p === 'object' && p.format === FILE_ID_FORMAT)
    .map(([k]) => k);
}
