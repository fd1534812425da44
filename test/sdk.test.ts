// The TypeScript SDK (sdk/) against the real server on SQLite and PostgreSQL: runAndWait of an
// http connector on the demo site (and its polling fallback when a sync wait ends without a
// terminal state), CRC-checked upload/download round trips (a corrupted transfer is detected),
// publishing from a HAR recording, paged async iterators, typed errors, capture waits. Also: the
// committed generated types match openapi/openapi.json, and the package builds.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startDemoSite } from '../examples/demo-site/server.js';
import {
  AuthenticationError,
  ChecksumMismatchError,
  ConflictError,
  ConnectionError,
  ConnectorServiceError,
  crc32cOf,
  createClient,
  isTerminalRun,
  NotFoundError,
  ValidationError,
  WaitTimeoutError,
  type ConnectorServiceClient,
  type Run,
} from '../sdk/src/index.js';
import { httpSearchDefinition, LOGIN_SLOT, SEARCH_INPUT, SEARCH_OUTPUT } from './fixtures/definitions.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { loginSecret, publish } from './helpers/runs.js';
import { fixtureHar } from './helpers/synth.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });
const exec = promisify(execFile);
const ROOT = path.resolve(__dirname, '..');

describe('sdk package', () => {
  it('the committed schema.d.ts is what openapi-typescript generates from openapi/openapi.json (no drift)', async () => {
    const tmp = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-gen-')), 'schema.d.ts');
    const script = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts['sdk:generate'] as string;
    // The same command as `npm run sdk:generate`, writing elsewhere.
    const args = script
      .replace(/^openapi-typescript /, '')
      .replace('-o sdk/src/schema.d.ts', `-o ${tmp}`)
      .split(' ');
    await exec(path.join(ROOT, 'node_modules/.bin/openapi-typescript'), args, { cwd: ROOT });
    const committed = fs.readFileSync(path.join(ROOT, 'sdk/src/schema.d.ts'), 'utf8');
    expect(fs.readFileSync(tmp, 'utf8') === committed, 'sdk/src/schema.d.ts is stale: run `npm run sdk:generate`').toBe(true);
    fs.rmSync(path.dirname(tmp), { recursive: true, force: true });
  });

  it('builds with `npm run sdk:build`; the built package loads and its CLI answers --version', async () => {
    await exec('npm', ['run', '-s', 'sdk:build'], { cwd: ROOT });
    for (const f of ['index.js', 'index.d.ts', 'client.d.ts', 'schema.d.ts', 'cli.js'])
      expect(fs.existsSync(path.join(ROOT, 'sdk/dist', f)), f).toBe(true);
    const mod = await import(path.join(ROOT, 'sdk/dist/index.js'));
    expect(typeof mod.createClient).toBe('function');
    expect(new mod.ValidationError({ status: 422, detail: [], method: 'GET', url: 'http://x/' })).toBeInstanceOf(mod.ConnectorServiceError);
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'sdk/package.json'), 'utf8'));
    expect(pkg).toMatchObject({ name: '@connector-service/sdk', type: 'module', bin: { connector: 'dist/cli.js' } });
    const v = await exec(process.execPath, [path.join(ROOT, 'sdk/dist/cli.js'), '--version']);
    expect(v.stdout.trim()).toBe(pkg.version);
  });
});

describe.each(await backends())('sdk against the server (%s)', (backend) => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  let client: ConnectorServiceClient;
  let search: any;
  let alice: string;
  let tmp: string;
  beforeAll(async () => {
    site = await startDemoSite();
    h = await startHarness(backend, { TOTP_CODE_REUSE: 'allow' });
    client = createClient({ baseUrl: h.url, apiKey: h.key });
    search = await publish(h, {
      definition: httpSearchDefinition(site.url),
      input_schema: SEARCH_INPUT,
      output_schema: SEARCH_OUTPUT,
      required_secrets: [LOGIN_SLOT],
      website: site.url,
    });
    alice = await loginSecret(h, 'alice', 'wonderland');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-test-'));
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await fetch(`${site.url}/__reset`, { method: 'POST' });
  });

  it('runAndWait runs an http connector on the demo site and returns the typed, terminal run', async () => {
    const seen: string[] = [];
    const run: Run = await client.runAndWait(
      search.id,
      { query: 'gamma', page_size: 3 },
      { secretBindings: { account: alice }, timeoutMs: 60_000, onUpdate: (r) => seen.push(r.status) },
    );
    expect(run).toMatchObject({
      status: 'success',
      connector_id: search.id,
      connector_version: 1,
      error: null,
      secret_bindings: { account: alice },
    });
    expect((run.result as any).items.map((i: any) => i.id)).toEqual([3, 8, 13, 18, 23, 28, 33, 38]);
    expect(seen).toEqual(['success']);
    expect(await client.runs.logs(run.id)).toMatch(/GET [^\n]*\/api\/search/);

    // A failed run is a value, not an exception: the site answers 503.
    const flaky = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'http',
        steps: [{ id: 's', url: `${site.url}/api/flaky?fail=1`, extract: { ok: { from: 'json', path: '$.ok' } } }],
        result: { ok: '{{vars.ok}}' },
      },
    });
    const failed = await client.runAndWait(flaky.id, {}, { timeoutMs: 60_000 });
    expect(failed.status).toBe('connector_error');
    expect(failed.error?.type).toBe('site_unavailable');

    // runs.wait polls an async run to its end.
    const pending = await client.runs.create({
      connector_id: search.id,
      arguments: { query: 'beta' },
      secret_bindings: { account: alice },
      async: true,
    });
    expect(pending.status).toBe('pending');
    const done = await client.runs.wait(pending.id, { timeoutMs: 60_000, pollIntervalMs: 100 });
    expect(done.status).toBe('success');
  });

  it('upload/download round trip: bytes and CRC32C match (buffer, path with progress, download to a file)', async () => {
    const bytes = crypto.randomBytes(300_000);
    const f = await client.uploadFile(bytes, { name: 'blob.bin' });
    expect(f).toMatchObject({
      name: 'blob.bin',
      size_bytes: bytes.length,
      content_type: 'application/octet-stream',
      source: 'UPLOAD',
      crc32c: crc32cOf(bytes),
    });
    const got = await client.downloadFile(f.id);
    expect(Buffer.compare(got.data!, bytes)).toBe(0);
    expect(got.crc32c).toBe(f.crc32c);

    const p = path.join(tmp, 'report.csv');
    fs.writeFileSync(p, 'a,b\n'.repeat(50_000));
    const progress: number[] = [];
    const totals = new Set<number>();
    const g = await client.uploadFile(p, {
      onProgress: (sent, total) => {
        totals.add(total);
        progress.push(sent);
      },
    });
    expect([...totals]).toEqual([200_000]);
    expect(g).toMatchObject({ name: 'report.csv', content_type: 'text/csv', size_bytes: 200_000 });
    expect(progress[0]).toBe(0);
    expect(progress.at(-1)).toBe(200_000);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    expect(progress.length).toBeGreaterThan(3);

    const out = path.join(tmp, 'out.csv');
    const dl: number[] = [];
    const res = await client.downloadFile(g.id, { to: out, onProgress: (n) => dl.push(n) });
    expect(res.path).toBe(out);
    expect(fs.readFileSync(out, 'utf8')).toBe(fs.readFileSync(p, 'utf8'));
    expect(dl.at(-1)).toBe(200_000);
    expect(fs.readdirSync(tmp).filter((n) => n.includes('.part-'))).toEqual([]);
  });

  it('a transfer corrupted on the wire is detected by CRC32C (upload: the file is deleted; download: nothing written)', async () => {
    // A transport that flips one bit of every PUT body and of every storage download, like a broken middlebox.
    const flip = (buf: Buffer) => {
      buf[buf.length >> 1] ^= 0x01;
      return buf;
    };
    const corrupting = createClient({
      baseUrl: h.url,
      apiKey: h.key,
      fetch: async (input, init) => {
        const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
        if (init?.method === 'PUT' && init.body) {
          const body = flip(Buffer.from(await new Response(init.body as BodyInit).arrayBuffer()));
          return fetch(input, { ...init, body, duplex: undefined } as RequestInit);
        }
        const res = await fetch(input, init);
        if (url.includes('/storage/') && res.ok)
          return new Response(flip(Buffer.from(await res.arrayBuffer())) as any, { status: 200, headers: res.headers });
        return res;
      },
    });
    const bytes = crypto.randomBytes(10_000);
    const err = await corrupting.uploadFile(bytes, { name: 'x.bin' }).catch((e) => e);
    expect(err).toBeInstanceOf(ChecksumMismatchError);
    expect(err.expected).toBe(crc32cOf(bytes));
    expect(err.actual).not.toBe(err.expected);
    // Deleted, not left pending: completing it is a 404 (a pending file would be a 409 or complete).
    expect((await h.api('POST', `/v1beta/files/${err.fileId}/complete`)).status).toBe(404);

    const good = await client.uploadFile(bytes, { name: 'y.bin' });
    const out = path.join(tmp, 'y.bin');
    const derr = await corrupting.downloadFile(good.id, { to: out }).catch((e) => e);
    expect(derr).toBeInstanceOf(ChecksumMismatchError);
    expect(derr.message).toMatch(/download/);
    expect(fs.existsSync(out)).toBe(false);
    expect(fs.readdirSync(tmp).filter((n) => n.includes('.part-'))).toEqual([]);
  });

  it('publishFromRecording uploads a HAR, the service synthesizes and validates it; the connector runs with new arguments', async () => {
    const harPath = path.join(tmp, 'search.har');
    fs.writeFileSync(harPath, fixtureHar('a-search', site.url));
    const c = await client.publishFromRecording({
      recording: harPath,
      displayName: 'Demo search',
      purpose: 'Search the demo shop',
      website: site.url,
      hints: { arguments: { query: 'gamma' }, secrets: { account: alice } },
    });
    expect(c).toMatchObject({ display_name: 'Demo search', version: 1, required_secrets: [{ name: 'account', type: 'login' }] });
    const def: any = await client.connectors.definition(c.id);
    expect(def.definition.meta.validation).toMatchObject({ replayed: true });
    const recording = await client.files.get(def.definition.meta.recording_file_id);
    expect(recording.name).toBe('search.har');
    const run = await client.runAndWait(c.id, { query: 'delta' }, { secretBindings: { account: alice }, timeoutMs: 60_000 });
    expect(run.status, JSON.stringify(run.error)).toBe('success');
    expect((run.result as any).items.map((i: any) => i.id)).toEqual([4, 9, 14, 19, 24, 29, 34, 39]);

    // Version 2 from a second recording of the flow, given as a parsed HAR object.
    await fetch(`${site.url}/__reset`, { method: 'POST' });
    const v2 = await client.reviseFromRecording(c.id, {
      recording: JSON.parse(fixtureHar('a-search-2', site.url)),
      hints: { arguments: { query: 'gamma' }, secrets: { account: alice } },
    });
    expect(v2).toMatchObject({ id: c.id, version: 2, display_name: 'Demo search' });

    // A recording it can't explain is a typed 422.
    const bad = await client
      .publishFromRecording({ recording: Buffer.from('{"log":{"entries":[]}}'), displayName: 'x', purpose: 'y' })
      .catch((e) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect(bad.status).toBe(422);
    expect(bad.errors.length).toBeGreaterThan(0);
  });

  it('async iterators walk cursor-paged lists across pages', async () => {
    const ids: string[] = [];
    const definition = {
      format: 'connector-definition/v1',
      engine: 'http',
      steps: [{ id: 's', url: `${site.url}/api/flaky`, extract: { ok: { from: 'json', path: '$.ok' } } }],
      result: { ok: '{{vars.ok}}' },
    };
    for (let i = 0; i < 5; i++) ids.push((await publish(h, { display_name: `paged ${i}`, definition })).id);
    const seen: string[] = [];
    for await (const c of client.connectors.list({ limit: 2 })) seen.push(c.id);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of ids) expect(seen).toContain(id);
    // Newest first: the five appear in reverse order of publication.
    expect(seen.filter((id) => ids.includes(id))).toEqual([...ids].reverse());
    let pages = 0;
    for await (const page of client.connectors.list({ limit: 2 }).pages()) {
      pages++;
      expect(page.data.length).toBeLessThanOrEqual(2);
    }
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(await client.connectors.list({ limit: 2 }).toArray({ max: 3 })).toHaveLength(3);

    for (let i = 0; i < 3; i++)
      await client.runs.create({ connector_id: search.id, arguments: { query: 'alpha' }, secret_bindings: { account: alice } });
    const runs = await client.runs.list(search.id, { limit: 1 }).toArray();
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expect(new Set(runs.map((r) => r.id)).size).toBe(runs.length);

    const files = await client.files.list({ limit: 1, source: 'UPLOAD' }).toArray();
    expect(files.length).toBeGreaterThanOrEqual(2);
  });

  it('runs.cancel stops a running run; cancelling it again is a ConflictError', async () => {
    const slow = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'browser',
        steps: [
          { action: 'navigate', url: `${site.url}/items` },
          { action: 'wait', ms: 120_000 },
        ],
        result: {},
      },
      input_schema: { type: 'object' },
      output_schema: { type: 'object' },
    });
    const started = await client.runs.create({ connector_id: slow.id, arguments: {}, async: true });
    for (let i = 0; i < 200 && (await client.runs.get(started.id)).status !== 'running'; i++) await new Promise((r) => setTimeout(r, 100));
    const cancelled = await client.runs.cancel(started.id);
    expect(cancelled.status).toBe('cancelled');
    expect(isTerminalRun(cancelled)).toBe(true);
    const again = await client.runs.cancel(started.id).catch((e) => e);
    expect(again).toBeInstanceOf(ConflictError);
    expect(again.status).toBe(409);
  });

  it('typed errors: 404, 422 with entries, 401, unreachable server', async () => {
    const nf = await client.connectors.get('does-not-exist').catch((e) => e);
    expect(nf).toBeInstanceOf(NotFoundError);
    expect(nf).toBeInstanceOf(ConnectorServiceError);
    expect(nf).toMatchObject({ status: 404, detail: 'Connector not found', method: 'GET' });
    expect(nf.message).toMatch(/^404 GET \/v1beta\/connectors\/does-not-exist: Connector not found/);

    const ve = await client.runs.create({ connector_id: search.id, arguments: { page_size: 'many' }, max_timeout_s: 0 }).catch((e) => e);
    expect(ve).toBeInstanceOf(ValidationError);
    expect(ve.status).toBe(422);
    const locs = ve.errors.map((e: any) => e.loc.join('.'));
    expect(locs).toContain('body.max_timeout_s');
    expect(ve.errors.find((e: any) => e.loc.join('.') === 'body.max_timeout_s')).toMatchObject({
      type: 'greater_than_equal',
      ctx: { ge: 1 },
    });
    expect(ve.detail).toEqual(ve.errors);

    const unauth = await createClient({ baseUrl: h.url, apiKey: 'csk_wrong' })
      .secrets.list()
      .catch((e) => e);
    expect(unauth).toBeInstanceOf(AuthenticationError);
    expect(unauth.status).toBe(401);

    const other = await h.newUser();
    const foreign = await createClient({ baseUrl: h.url, apiKey: other.key })
      .runAndWait(search.id)
      .catch((e) => e);
    expect(foreign).toBeInstanceOf(NotFoundError);

    const down = await createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: h.key })
      .connectors.get('x')
      .catch((e) => e);
    expect(down).toBeInstanceOf(ConnectionError);
  });

  it('createCaptureSession returns the live view; waitForCapture sees it completed', async () => {
    const s = await client.createCaptureSession({ startUrl: `${site.url}/login` });
    expect(s.state).toBe('active');
    expect(s.iframe_url).toMatch(new RegExp(`^${h.url}/live/`));
    const timeout = await client.waitForCapture(s.id, { timeoutMs: 300 }).catch((e) => e);
    expect(timeout).toBeInstanceOf(WaitTimeoutError);
    expect(timeout.last.state).toBe('active');
    expect((await client.captureSessions.complete(s.id)).state).toMatch(/completing|completed/);
    const done = await client.waitForCapture(s.id, { timeoutMs: 60_000, pollIntervalMs: 200 });
    expect(done.state).toBe('completed');
  });
});

describe.each(await backends())('runAndWait fallback to polling (%s)', (backend) => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startDemoSite>>;
  beforeAll(async () => {
    site = await startDemoSite();
    h = await startHarness(backend, { RUN_CONCURRENCY: '1', RUN_MAX_CONCURRENCY_PER_USER: '1' });
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });

  it('a sync wait the server ends without a terminal state (shutdown) is polled by GET /runs/{id} up to the overall timeout', async () => {
    const client = createClient({ baseUrl: h.url, apiKey: h.key });
    const slow = (ms: number) =>
      publish(h, {
        display_name: `slow ${ms}`,
        definition: {
          format: 'connector-definition/v1',
          engine: 'http',
          steps: [{ id: 'w', url: `${site.url}/api/slow?ms=${ms}`, extract: { w: { from: 'json', path: '$.waited_ms' } } }],
          result: { waited: '{{vars.w}}' },
        },
      });
    const a = await slow(20_000);
    const b = await slow(1);
    await client.runs.create({ connector_id: a.id, async: true }); // holds the only slot
    const updates: Run[] = [];
    const waiting = client.runAndWait(b.id, {}, { timeoutMs: 4000, pollIntervalMs: 200, onUpdate: (r) => updates.push(r) }).catch((e) => e);
    await expect.poll(async () => (await client.runs.list(b.id).toArray()).map((r) => r.status), { timeout: 10_000 }).toEqual(['pending']);
    // The server stops its runtime: sync callers still waiting get their run as it is (pending).
    await h.services.runtime.stop();
    const err = await waiting;
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect(err.last).toMatchObject({ connector_id: b.id, status: 'pending' });
    // The sync answer, then several polls of the same run.
    expect(updates.length).toBeGreaterThan(3);
    expect(new Set(updates.map((r) => r.id))).toEqual(new Set([err.last.id]));
  });
});
