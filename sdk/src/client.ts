// The typed client: openapi-fetch over the generated `paths`, resource namespaces that throw typed
// errors instead of returning `{data, error}`, and the helpers users expect (runAndWait, uploadFile,
// downloadFile, capture waits, publishFromRecording, async iteration over paged lists).
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import createFetchClient, { type Client } from 'openapi-fetch';
import { Crc32c } from './crc32c.js';
import {
  ChecksumMismatchError,
  ConnectionError,
  ConnectorServiceError,
  ConnectorServiceSdkError,
  WaitTimeoutError,
  errorFromResponse,
} from './errors.js';
import { type Page, Paginator } from './pagination.js';
import type { components, operations, paths } from './schema.js';

type S = components['schemas'];
export type Run = S['Run'];
export type RunStatus = S['RunStatus'];
export type RunError = S['RunError'];
export type Connector = S['Connector'];
export type ConnectorFile = S['File'];
export type Secret = S['Secret'];
export type CaptureSession = S['CaptureSession'];
export type CaptureSessionState = S['CaptureSessionState'];
export type CreateRunRequest = S['CreateRunRequest'];
export type PublishConnectorRequest = S['PublishConnectorRequest'];
export type ReviseConnectorRequest = S['ReviseConnectorRequest'];
export type CreateSecretRequest = S['CreateSecretRequest'];
export type CreateCaptureSessionRequest = NonNullable<S['CreateCaptureSessionRequest']>;
export type SynthesisHints = S['SynthesisHints'];
export type ProxySettings = S['ProxySettings'];
export type ListFilesQuery = NonNullable<operations['listFiles']['parameters']['query']>;
export type ListConnectorsQuery = NonNullable<operations['listConnectors']['parameters']['query']>;

/** Run statuses a run never leaves. */
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = [
  'success',
  'connector_error',
  'timed_out',
  'result_too_large',
  'internal_error',
  'cancelled',
];
export const isTerminalRun = (run: Pick<Run, 'status'>): boolean => TERMINAL_RUN_STATUSES.includes(run.status);
/** Capture session states a session never leaves. */
export const TERMINAL_CAPTURE_STATES: readonly CaptureSessionState[] = ['completed', 'abandoned', 'failed'];

type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** Base URL of the service, e.g. `http://127.0.0.1:8080` (without `/v1beta`). Default: `CONNECTOR_API_URL`, else `http://127.0.0.1:8080`. */
  baseUrl?: string;
  /** API key (`csk_…`). Default: `CONNECTOR_API_KEY`. */
  apiKey?: string;
  /** A fetch implementation (tests, proxies, instrumentation). Default: the global fetch. */
  fetch?: FetchLike;
  /** Sent as User-Agent. */
  userAgent?: string;
}

export interface WaitOptions {
  /** Overall time limit in ms. */
  timeoutMs?: number;
  /** Longest pause between two polls (they start at 200 ms and back off). Default 2000. */
  pollIntervalMs?: number;
  signal?: AbortSignal;
}

export interface RunAndWaitOptions extends WaitOptions {
  /** Slot name → id of one of your secrets. */
  secretBindings?: Record<string, string>;
  /** Slot name → value for this run only (never stored by the service). */
  secretValues?: CreateRunRequest['secret_values'];
  proxySettings?: ProxySettings;
  /** The run's own timeout on the server (1..3600 s, default 300). */
  maxTimeoutS?: number;
  /** Called with the run whenever its status is seen (after the sync answer and on every poll). */
  onUpdate?: (run: Run) => void;
}

export interface UploadOptions {
  /** File name shown in the API. Default: the path's base name, or `upload.bin`. */
  name?: string;
  /** MIME type. Default: from the extension, else `application/octet-stream`. */
  contentType?: string;
  /** Progress of the PUT: bytes sent so far and the total. */
  onProgress?: (sent: number, total: number) => void;
  signal?: AbortSignal;
}

export interface DownloadOptions {
  /** Write the bytes to this path (streamed) instead of returning them. */
  to?: string;
  /** Progress of the transfer: bytes received so far and the total (null when unknown). */
  onProgress?: (received: number, total: number | null) => void;
  signal?: AbortSignal;
}

export interface DownloadResult {
  file: ConnectorFile;
  /** The bytes, unless `to` was given. */
  data?: Buffer;
  /** Where they were written, when `to` was given. */
  path?: string;
  /** CRC32C of the received bytes (checked against `file.crc32c`). */
  crc32c: string;
}

/** A HAR recording: a path to a `.har`/JSON file, its bytes, or the parsed HAR object. */
export type RecordingSource = string | Uint8Array | Record<string, unknown>;

export type PublishFromRecordingOptions = {
  displayName: string;
  purpose: string;
  website?: string | null;
  hints?: SynthesisHints | string;
  /** Extra publish fields (e.g. `required_secrets`). */
  extra?: Partial<PublishConnectorRequest>;
} & ({ recording: RecordingSource; recordingName?: string } | { captureSessionId: string });

export type ReviseFromRecordingOptions = {
  displayName?: string;
  purpose?: string;
  website?: string | null;
  hints?: SynthesisHints | string;
} & ({ recording: RecordingSource; recordingName?: string } | { captureSessionId: string });

const CONTENT_TYPES: Record<string, string> = {
  '.har': 'application/json',
  '.json': 'application/json',
  '.txt': 'text/plain',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.zip': 'application/zip',
};

const UPLOAD_CHUNK = 64 * 1024;
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

type ApiResult<T> = { data?: T; error?: unknown; response: Response };

export class ConnectorServiceClient {
  /** The underlying openapi-fetch client, for operations without a helper (`client.raw.GET('/v1beta/tasks')`). */
  readonly raw: Client<paths>;
  readonly baseUrl: string;
  private readonly fetchImpl: FetchLike;
  private readonly authHeaders: Record<string, string>;

  constructor(opts: ClientOptions = {}) {
    const env = typeof process !== 'undefined' ? process.env : {};
    this.baseUrl = (opts.baseUrl ?? env.CONNECTOR_API_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
    const apiKey = opts.apiKey ?? env.CONNECTOR_API_KEY;
    this.fetchImpl = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const headers: Record<string, string> = { 'user-agent': opts.userAgent ?? '@connector-service/sdk' };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    this.authHeaders = headers;
    const f = this.fetchImpl;
    this.raw = createFetchClient<paths>({ baseUrl: this.baseUrl, headers, fetch: (req: Request) => f(req) });
  }

  /** Awaits an openapi-fetch call and returns its data, or throws the typed error. */
  private async call<T>(method: string, p: Promise<ApiResult<T>>, url = this.baseUrl): Promise<T> {
    let r: ApiResult<T>;
    try {
      r = await p;
    } catch (e) {
      throw wrapNetworkError(e, url);
    }
    if (!r.response.ok) throw errorFromResponse(r.response, r.error, method);
    return r.data as T;
  }

  // ---------------------------------------------------------------- resources

  readonly connectors = {
    /** Every connector, newest first, across pages: `for await (const c of client.connectors.list())`. */
    list: (query: Omit<ListConnectorsQuery, 'cursor'> = {}): Paginator<Connector> =>
      new Paginator(
        (cursor) =>
          this.call('GET', this.raw.GET('/v1beta/connectors', { params: { query: { ...query, cursor } } })) as Promise<Page<Connector>>,
      ),
    get: (id: string): Promise<Connector> =>
      this.call('GET', this.raw.GET('/v1beta/connectors/{connector_id}', { params: { path: { connector_id: id } } })),
    /** Publishes version 1: a hand-written `definition`, or synthesis from `recording_file_id` / `capture_session_id`. */
    publish: (body: PublishConnectorRequest): Promise<Connector> => this.call('POST', this.raw.POST('/v1beta/connectors', { body })),
    /** Publishes version + 1. */
    revise: (id: string, body: ReviseConnectorRequest): Promise<Connector> =>
      this.call('POST', this.raw.POST('/v1beta/connectors/{connector_id}/revisions', { params: { path: { connector_id: id } }, body })),
    rename: (id: string, displayName: string): Promise<Connector> =>
      this.call(
        'PATCH',
        this.raw.PATCH('/v1beta/connectors/{connector_id}', {
          params: { path: { connector_id: id } },
          body: { display_name: displayName },
        }),
      ),
    delete: (id: string) =>
      this.call('DELETE', this.raw.DELETE('/v1beta/connectors/{connector_id}', { params: { path: { connector_id: id } } })),
    /** Every version, newest first. */
    revisions: async (id: string): Promise<Connector[]> =>
      (await this.call('GET', this.raw.GET('/v1beta/connectors/{connector_id}/revisions', { params: { path: { connector_id: id } } })))
        .data,
    /** The definition (plan) of a version, newest by default. */
    definition: (id: string, version?: number) =>
      this.call(
        'GET',
        this.raw.GET('/v1beta/connectors/{connector_id}/definition', {
          params: { path: { connector_id: id }, query: version === undefined ? {} : { version } },
        }),
      ),
  };

  readonly runs = {
    /** POST /v1beta/runs as is (sync by default: the answer is the finished run; `async: true` answers at once). */
    create: (body: CreateRunRequest): Promise<Run> => this.call('POST', this.raw.POST('/v1beta/runs', { body })) as Promise<Run>,
    get: (id: string): Promise<Run> => this.call('GET', this.raw.GET('/v1beta/runs/{run_id}', { params: { path: { run_id: id } } })),
    /** The run's log; while it executes, the log so far. */
    logs: async (id: string): Promise<string> =>
      (await this.call('GET', this.raw.GET('/v1beta/runs/{run_id}/logs', { params: { path: { run_id: id } } }))).logs,
    /** Cancels a pending or running run (ConflictError once it ended). */
    cancel: (id: string): Promise<Run> =>
      this.call('POST', this.raw.POST('/v1beta/runs/{run_id}/cancel', { params: { path: { run_id: id } } })),
    /** Runs of a connector (of its newest version unless `version`), newest first, across pages. */
    list: (connectorId: string, query: { version?: number; limit?: number } = {}): Paginator<Run> =>
      new Paginator(
        (cursor) =>
          this.call('GET', this.raw.GET('/v1beta/runs', { params: { query: { connector_id: connectorId, ...query, cursor } } })) as Promise<
            Page<Run>
          >,
      ),
    /** Polls GET /v1beta/runs/{id} until the run is terminal; WaitTimeoutError (with the last run seen) after `timeoutMs`. */
    wait: (id: string, opts: WaitOptions & { onUpdate?: (run: Run) => void } = {}): Promise<Run> => this.pollRun(id, opts),
  };

  readonly files = {
    /** Uploads and run outputs, across pages (filters and sort as in the API). */
    list: (query: Omit<ListFilesQuery, 'cursor'> = {}): Paginator<ConnectorFile> =>
      new Paginator(
        (cursor) =>
          this.call('GET', this.raw.GET('/v1beta/files', { params: { query: { ...query, cursor } } })) as Promise<Page<ConnectorFile>>,
      ),
    get: (id: string): Promise<ConnectorFile> =>
      this.call('GET', this.raw.GET('/v1beta/files/{file_id}', { params: { path: { file_id: id } } })),
    delete: (id: string) => this.call('DELETE', this.raw.DELETE('/v1beta/files/{file_id}', { params: { path: { file_id: id } } })),
    downloadUrl: (id: string) =>
      this.call('GET', this.raw.GET('/v1beta/files/{file_id}/download_url', { params: { path: { file_id: id } } })),
    upload: (source: string | Uint8Array, opts?: UploadOptions) => this.uploadFile(source, opts),
    download: (id: string, opts?: DownloadOptions) => this.downloadFile(id, opts),
  };

  readonly secrets = {
    list: (): Promise<Secret[]> => this.call('GET', this.raw.GET('/v1beta/secrets')),
    /** Stores a credential; the answer is metadata only. */
    create: (body: CreateSecretRequest): Promise<Secret> =>
      this.call('POST', this.raw.POST('/v1beta/secrets', { body })) as Promise<Secret>,
    delete: (id: string) => this.call('DELETE', this.raw.DELETE('/v1beta/secrets/{id}', { params: { path: { id } } })),
    /** The current TOTP code of a login secret with a seed. */
    totp: (id: string) => this.call('POST', this.raw.POST('/v1beta/secrets/{id}/totp', { params: { path: { id } } })),
  };

  readonly captureSessions = {
    list: (): Promise<CaptureSession[]> => this.call('GET', this.raw.GET('/v1beta/capture_sessions')),
    create: (body: CreateCaptureSessionRequest = {}): Promise<CaptureSession> =>
      this.call('POST', this.raw.POST('/v1beta/capture_sessions', { body })),
    get: (id: string): Promise<CaptureSession> =>
      this.call('GET', this.raw.GET('/v1beta/capture_sessions/{id}', { params: { path: { id } } })),
    /** Stops recording (202 `completing`); `waitForCapture` then sees `completed`. */
    complete: (id: string): Promise<CaptureSession> =>
      this.call('POST', this.raw.POST('/v1beta/capture_sessions/{id}/complete', { params: { path: { id } } })),
    abandon: (id: string): Promise<CaptureSession> =>
      this.call('POST', this.raw.POST('/v1beta/capture_sessions/{id}/abandon', { params: { path: { id } } })),
    /** Types a field of a stored login secret at the caret of the live browser (the value never leaves the server). */
    paste: (id: string, field: 'username' | 'password' | 'totp', secretId: string): Promise<void> =>
      this.call(
        'POST',
        this.raw.POST('/v1beta/capture_sessions/{id}/paste', { params: { path: { id } }, body: { field, secret_id: secretId } }),
      ) as Promise<void>,
    /** The recording of a completed session as HAR 1.2. */
    recording: (id: string) => this.call('GET', this.raw.GET('/v1beta/capture_sessions/{id}/recording', { params: { path: { id } } })),
    wait: (id: string, opts?: WaitOptions & { until?: readonly CaptureSessionState[] }) => this.waitForCapture(id, opts),
  };

  // ---------------------------------------------------------------- helpers

  /**
   * Runs a connector and returns the terminal run. The run is created synchronously (the service
   * answers when it finished); if that answer is not terminal (a 202, or a server that let go of
   * the wait, e.g. while shutting down) the run is polled with GET /v1beta/runs/{id}. After
   * `timeoutMs` (default: the run's own timeout + 60 s) a WaitTimeoutError carries the run as last
   * seen (null when the sync call itself was still waiting: no id was known yet).
   * A failed run is returned, not thrown: check `run.status`.
   */
  async runAndWait(connectorId: string, args: Record<string, unknown> = {}, opts: RunAndWaitOptions = {}): Promise<Run> {
    const timeoutMs = opts.timeoutMs ?? (opts.maxTimeoutS ?? 300) * 1000 + 60_000;
    const deadline = Date.now() + timeoutMs;
    const body: CreateRunRequest = { connector_id: connectorId, arguments: args, async: false };
    if (opts.secretBindings) body.secret_bindings = opts.secretBindings;
    if (opts.secretValues) body.secret_values = opts.secretValues;
    if (opts.proxySettings) body.proxy_settings = opts.proxySettings;
    if (opts.maxTimeoutS !== undefined) body.max_timeout_s = opts.maxTimeoutS;
    const timer = AbortSignal.timeout(timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timer]) : timer;
    let run: Run;
    try {
      run = (await this.call('POST', this.raw.POST('/v1beta/runs', { body, signal }))) as Run;
    } catch (e) {
      if (timer.aborted && !opts.signal?.aborted) {
        throw new WaitTimeoutError(
          `run of connector ${connectorId} did not answer within ${timeoutMs} ms (no run id was returned yet)`,
          null,
        );
      }
      throw e;
    }
    opts.onUpdate?.(run);
    if (isTerminalRun(run)) return run;
    return this.pollRun(run.id, { ...opts, timeoutMs: Math.max(0, deadline - Date.now()), last: run });
  }

  private async pollRun(id: string, opts: WaitOptions & { onUpdate?: (run: Run) => void; last?: Run }): Promise<Run> {
    const deadline = Date.now() + (opts.timeoutMs ?? 3_600_000);
    const maxPause = opts.pollIntervalMs ?? 2000;
    let pause = Math.min(200, maxPause);
    let last: Run | null = opts.last ?? null;
    for (;;) {
      if (last && isTerminalRun(last)) return last;
      const left = deadline - Date.now();
      if (left <= 0) throw new WaitTimeoutError(`run ${id} is still ${last?.status ?? 'unknown'} after the timeout`, last);
      if (last) await sleep(Math.min(pause, left), opts.signal);
      pause = Math.min(maxPause, Math.round(pause * 1.5));
      last = await this.runs.get(id);
      opts.onUpdate?.(last);
    }
  }

  /**
   * Uploads bytes or a file (a string is a path): initiate, PUT to the signed URL with the signed
   * `upload_headers` verbatim, complete, then compare the CRC32C the service computed with the one
   * computed here over the bytes sent. On a mismatch the file is deleted and ChecksumMismatchError
   * thrown. Returns the file's metadata.
   */
  async uploadFile(source: string | Uint8Array, opts: UploadOptions = {}): Promise<ConnectorFile> {
    const isPath = typeof source === 'string';
    const size = isPath ? (await fs.promises.stat(source)).size : source.byteLength;
    const name = opts.name ?? (isPath ? path.basename(source) : 'upload.bin');
    const contentType = opts.contentType ?? CONTENT_TYPES[path.extname(name).toLowerCase()] ?? 'application/octet-stream';
    const init = await this.call('POST', this.raw.POST('/v1beta/files', { body: { name, size_bytes: size, content_type: contentType } }));
    const fileId = init.file_id;
    const discard = () => this.files.delete(fileId).catch(() => {});

    const crc = new Crc32c();
    let sent = 0;
    opts.onProgress?.(0, size);
    const chunks: AsyncIterable<Uint8Array> = isPath
      ? fs.createReadStream(source, { highWaterMark: UPLOAD_CHUNK })
      : ((function* () {
          for (let i = 0; i < source.byteLength; i += UPLOAD_CHUNK) yield source.subarray(i, i + UPLOAD_CHUNK);
        })() as unknown as AsyncIterable<Uint8Array>);
    const body = Readable.toWeb(
      Readable.from(
        (async function* () {
          for await (const chunk of chunks) {
            crc.update(chunk);
            sent += chunk.byteLength;
            yield chunk;
            opts.onProgress?.(sent, size);
          }
        })(),
        { objectMode: false },
      ),
    ) as ReadableStream<Uint8Array>;

    let put: Response;
    try {
      put = await this.fetchImpl(init.upload_url, {
        method: 'PUT',
        headers: init.upload_headers,
        body,
        signal: opts.signal,
        duplex: 'half',
      } as RequestInit);
    } catch (e) {
      await discard();
      throw wrapNetworkError(e, init.upload_url);
    }
    const putText = await put.text();
    if (!put.ok) {
      await discard();
      throw errorFromResponse(put, putText, 'PUT');
    }
    const local = crc.digest();
    // The local store reports the CRC32C of what it received at once: refuse to complete a corrupted file.
    let putCrc: unknown;
    try {
      putCrc = JSON.parse(putText)?.crc32c;
    } catch {
      /* storage that answers no JSON */
    }
    if (typeof putCrc === 'string' && putCrc !== local) {
      await discard();
      throw new ChecksumMismatchError(fileId, local, putCrc, 'upload');
    }
    const done = await this.call('POST', this.raw.POST('/v1beta/files/{file_id}/complete', { params: { path: { file_id: fileId } } }));
    if (done.crc32c !== local || done.size_bytes !== size) {
      await discard();
      throw new ChecksumMismatchError(fileId, local, done.crc32c, 'upload');
    }
    return this.files.get(fileId);
  }

  /**
   * Downloads a file: GET /v1beta/files/{id}/download, then the signed URL it redirects to (fetched
   * without the API key, which never goes to storage). The received bytes' CRC32C is checked against
   * the file's. Returns the bytes, or writes them to `to`.
   */
  async downloadFile(id: string, opts: DownloadOptions = {}): Promise<DownloadResult> {
    const file = await this.files.get(id);
    const url = `${this.baseUrl}/v1beta/files/${encodeURIComponent(id)}/download`;
    let redirect: Response;
    try {
      redirect = await this.fetchImpl(url, { headers: this.authHeaders, redirect: 'manual', signal: opts.signal });
    } catch (e) {
      throw wrapNetworkError(e, url);
    }
    const location = redirect.headers.get('location');
    if (redirect.status < 300 || redirect.status >= 400 || !location) {
      throw errorFromResponse(redirect, await redirect.text(), 'GET');
    }
    await redirect.body?.cancel();
    const signedUrl = new URL(location, url).toString();
    let res: Response;
    try {
      res = await this.fetchImpl(signedUrl, { signal: opts.signal });
    } catch (e) {
      throw wrapNetworkError(e, signedUrl);
    }
    if (!res.ok || !res.body) throw errorFromResponse(res, await res.text(), 'GET');
    const lengthHeader = res.headers.get('content-length');
    const total = lengthHeader === null ? null : Number(lengthHeader);
    const crc = new Crc32c();
    let received = 0;
    opts.onProgress?.(0, total);
    const parts: Buffer[] = [];
    const tmp = opts.to ? `${opts.to}.part-${process.pid}-${Date.now()}` : null;
    const out = tmp ? fs.createWriteStream(tmp, { mode: 0o600 }) : null;
    try {
      for await (const chunk of Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>)) {
        const buf = chunk as Buffer;
        crc.update(buf);
        received += buf.byteLength;
        if (out) {
          if (!out.write(buf)) await new Promise<void>((r) => out.once('drain', () => r()));
        } else parts.push(buf);
        opts.onProgress?.(received, total);
      }
      if (out) await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
      const got = crc.digest();
      if (got !== file.crc32c) throw new ChecksumMismatchError(id, file.crc32c, got, 'download');
      if (tmp && opts.to) await fs.promises.rename(tmp, opts.to);
      return opts.to ? { file, path: opts.to, crc32c: got } : { file, data: Buffer.concat(parts), crc32c: got };
    } catch (e) {
      out?.destroy();
      if (tmp) await fs.promises.rm(tmp, { force: true });
      throw e;
    }
  }

  /** Starts a capture session (a recording remote browser); its `iframe_url` is the live view. */
  createCaptureSession(opts: { startUrl?: string; useProxy?: boolean; cookies?: CreateCaptureSessionRequest['cookies'] } = {}) {
    const body: CreateCaptureSessionRequest = {};
    if (opts.startUrl !== undefined) body.start_url = opts.startUrl;
    if (opts.useProxy !== undefined) body.use_proxy = opts.useProxy;
    if (opts.cookies !== undefined) body.cookies = opts.cookies;
    return this.captureSessions.create(body);
  }

  /**
   * Polls a capture session until its state is one of `until` (default: a final state — completed,
   * abandoned or failed). Someone (a person in the live view, or your code) completes it with
   * `captureSessions.complete(id)`.
   */
  async waitForCapture(id: string, opts: WaitOptions & { until?: readonly CaptureSessionState[] } = {}): Promise<CaptureSession> {
    const until = opts.until ?? TERMINAL_CAPTURE_STATES;
    const deadline = Date.now() + (opts.timeoutMs ?? 3_600_000);
    const maxPause = opts.pollIntervalMs ?? 2000;
    let pause = Math.min(200, maxPause);
    for (;;) {
      const s = await this.captureSessions.get(id);
      if (until.includes(s.state)) return s;
      const left = deadline - Date.now();
      if (left <= 0) throw new WaitTimeoutError(`capture session ${id} is still ${s.state} after the timeout`, s);
      await sleep(Math.min(pause, left), opts.signal);
      pause = Math.min(maxPause, Math.round(pause * 1.5));
    }
  }

  /**
   * Publishes a connector synthesized from a recording: a HAR (path, bytes or object; uploaded
   * through the files API first) or a completed capture session. The service validates the
   * synthesized plan by replaying it before publishing; a recording it can't explain is a
   * ValidationError saying which stage failed.
   */
  async publishFromRecording(opts: PublishFromRecordingOptions): Promise<Connector> {
    const body: PublishConnectorRequest = { ...opts.extra, display_name: opts.displayName, purpose: opts.purpose };
    if (opts.website !== undefined) body.website = opts.website;
    if (opts.hints !== undefined) body.hints = opts.hints;
    Object.assign(body, await this.recordingSource(opts));
    return this.connectors.publish(body);
  }

  /** Publishes version + 1 of a connector from a new recording (omitted names are carried over). */
  async reviseFromRecording(connectorId: string, opts: ReviseFromRecordingOptions): Promise<Connector> {
    const body: ReviseConnectorRequest = {};
    if (opts.displayName !== undefined) body.display_name = opts.displayName;
    if (opts.purpose !== undefined) body.purpose = opts.purpose;
    if (opts.website !== undefined) body.website = opts.website;
    if (opts.hints !== undefined) body.hints = opts.hints;
    Object.assign(body, await this.recordingSource(opts));
    return this.connectors.revise(connectorId, body);
  }

  private async recordingSource(
    opts: { recording: RecordingSource; recordingName?: string } | { captureSessionId: string },
  ): Promise<{ recording_file_id: string } | { capture_session_id: string }> {
    if ('captureSessionId' in opts) return { capture_session_id: opts.captureSessionId };
    const r = opts.recording;
    const data = typeof r === 'string' || r instanceof Uint8Array ? r : Buffer.from(JSON.stringify(r));
    const name = opts.recordingName ?? (typeof r === 'string' ? path.basename(r) : 'recording.har');
    const file = await this.uploadFile(data, { name, contentType: 'application/json' });
    return { recording_file_id: file.id };
  }
}

function wrapNetworkError(e: unknown, url: string): Error {
  if (e instanceof ConnectorServiceSdkError || e instanceof ConnectorServiceError) return e as Error;
  if ((e as Error)?.name === 'AbortError' || (e as Error)?.name === 'TimeoutError') return e as Error;
  return new ConnectionError(url, e);
}

/** Creates a client; options default to `CONNECTOR_API_URL` and `CONNECTOR_API_KEY`. */
export function createClient(opts: ClientOptions = {}): ConnectorServiceClient {
  return new ConnectorServiceClient(opts);
}
