// The files API on the S3 blob store (BLOB_STORE=s3) against a real S3 API server started here
// (test/helpers/s3-server.ts): presigned PUT with signed Content-Type, Content-Length and
// If-None-Match, complete computing CRC32C, 307 to a presigned GET, refusals of another size,
// type, a tampered signature and expired URLs, run output files and capture recordings in the
// same bucket, the adapter's exact-size streaming, and /readyz when the server is gone.
// The blob store does not depend on the database: one backend is enough.
import crypto from 'node:crypto';
import http from 'node:http';
import { spawnSync } from 'node:child_process';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { crc32c } from '@node-rs/crc32';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { publish, run } from './helpers/runs.js';
import { startS3Server, type S3TestServer } from './helpers/s3-server.js';
import { S3BlobStore } from '../src/adapters/blob/s3.js';
import { UploadSizeError } from '../src/adapters/blob/errors.js';
import { createClient } from '../sdk/src/index.js';
import { ConfigError, loadConfig } from '../src/config.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

const PREFIX = 'cs/';

function expectedCrc(data: Buffer): string {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(crc32c(data) >>> 0);
  return b.toString('base64');
}

/** A PUT with exactly these headers and body (fetch would refuse a Content-Length that lies). */
function rawPut(url: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'PUT', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** When a presigned URL stops working: X-Amz-Date + X-Amz-Expires, in ms. */
function presignedExpiry(url: string): number {
  const q = new URL(url).searchParams;
  const d = q.get('X-Amz-Date')!;
  const t = Date.parse(`${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}T${d.slice(9, 11)}:${d.slice(11, 13)}:${d.slice(13, 15)}Z`);
  return t + Number(q.get('X-Amz-Expires')) * 1000;
}

const readAll = async (s: Readable) => {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
};

const [backend] = await backends();

describe(`files on the S3 blob store (${backend})`, () => {
  let s3: S3TestServer;
  let h: Harness;
  let direct: S3Client;
  const objectKey = (fileId: string) => `${PREFIX}files/${h.userId}/${fileId}`;
  const stored = async (key: string) => {
    try {
      const r = await direct.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
      return { bytes: await readAll(r.Body as Readable), contentType: r.ContentType };
    } catch (e) {
      if ((e as Error).name === 'NoSuchKey') return null;
      throw e;
    }
  };
  const initiate = async (name: string, size: number, contentType: string) => {
    const r = await h.api('POST', '/v1beta/files', { name, size_bytes: size, content_type: contentType });
    expect(r.status).toBe(200);
    return r.json as { file_id: string; upload_url: string; upload_headers: Record<string, string>; expires_at: string };
  };

  beforeAll(async () => {
    s3 = await startS3Server();
    h = await startHarness(backend, { ...s3.env, S3_PREFIX: PREFIX, RUN_CONCURRENCY: '1' });
    direct = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: s3.credentials });
  });
  afterAll(async () => {
    direct?.destroy();
    await h?.close();
    await s3?.close();
  });

  it('uploads with a presigned PUT, completes with the CRC32C of the bytes, downloads through a 307', async () => {
    expect(h.services.blobs).toBeInstanceOf(S3BlobStore);
    const data = crypto.randomBytes(300_000);
    const init = await initiate('report.csv', data.length, 'text/csv');
    const url = new URL(init.upload_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${s3.endpoint}/${s3.bucket}/${objectKey(init.file_id)}`);
    expect(init.upload_headers).toEqual({ 'Content-Type': 'text/csv', 'Content-Length': String(data.length), 'If-None-Match': '*' });
    // Our side of the contract: every upload header is a signed header, and the URL dies at expires_at.
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host;if-none-match');
    expect(presignedExpiry(init.upload_url)).toBe(Date.parse(init.expires_at));
    expect(Date.parse(init.expires_at) - Date.now()).toBeGreaterThan((h.config.uploadUrlTtlS - 2) * 1000);

    const early = await h.api('POST', `/v1beta/files/${init.file_id}/complete`);
    expect(early.status).toBe(409);
    expect(early.json.detail).toMatch(/no uploaded bytes/);

    const put = await fetch(init.upload_url, { method: 'PUT', headers: init.upload_headers, body: new Uint8Array(data) });
    expect(put.status).toBe(200);
    await put.arrayBuffer();
    const done = await h.api('POST', `/v1beta/files/${init.file_id}/complete`);
    expect(done.status).toBe(200);
    expect(done.json).toEqual({
      file_id: init.file_id,
      name: 'report.csv',
      size_bytes: data.length,
      content_type: 'text/csv',
      crc32c: expectedCrc(data),
    });
    expect((await h.api('GET', `/v1beta/files/${init.file_id}`)).json).toMatchObject({
      crc32c: expectedCrc(data),
      size_bytes: data.length,
    });
    const obj = await stored(objectKey(init.file_id));
    expect(obj?.bytes.equals(data)).toBe(true);
    expect(obj?.contentType).toBe('text/csv');

    const dl = await h.api('GET', `/v1beta/files/${init.file_id}/download`);
    expect(dl.status).toBe(307);
    const location = dl.headers.get('location')!;
    expect(location.startsWith(`${s3.endpoint}/${s3.bucket}/${objectKey(init.file_id)}?`)).toBe(true);
    expect(new URL(location).searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    const res = await fetch(location);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="report.csv"');
    expect(Buffer.from(await res.arrayBuffer()).equals(data)).toBe(true);

    const du = await h.api('GET', `/v1beta/files/${init.file_id}/download_url`);
    expect(presignedExpiry(du.json.url)).toBe(Date.parse(du.json.expires_at));
    expect(Date.parse(du.json.expires_at) - Date.now()).toBeGreaterThan((h.config.downloadUrlTtlS - 2) * 1000);
  });

  it('round-trips through the SDK (streamed PUT with the upload headers, CRC32C checked both ways)', async () => {
    const client = createClient({ baseUrl: h.url, apiKey: h.key });
    const data = crypto.randomBytes(1024 * 1024 + 5);
    const f = await client.uploadFile(data, { name: 'sdk.bin' });
    expect(f).toMatchObject({ name: 'sdk.bin', size_bytes: data.length, crc32c: expectedCrc(data) });
    expect((await stored(objectKey(f.id)))?.bytes.equals(data)).toBe(true);
    const got = await client.downloadFile(f.id);
    expect(Buffer.from(got.data!).equals(data)).toBe(true);
  });

  it('round-trips a 0-byte file', async () => {
    const init = await initiate('empty.txt', 0, 'text/plain');
    const put = await fetch(init.upload_url, { method: 'PUT', headers: init.upload_headers, body: new Uint8Array(0) });
    expect(put.status).toBe(200);
    const done = await h.api('POST', `/v1beta/files/${init.file_id}/complete`);
    expect(done.json).toMatchObject({ size_bytes: 0, crc32c: 'AAAAAA==' });
    const res = await fetch(`${h.url}/v1beta/files/${init.file_id}/download`, { headers: { authorization: `Bearer ${h.key}` } });
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it('signs the exact RFC 6266 disposition of a non-ASCII name into the download URL', async () => {
    const data = Buffer.from('a;b\n');
    const init = await initiate('Grüße "1".csv', data.length, 'text/csv; charset=utf-8');
    expect((await fetch(init.upload_url, { method: 'PUT', headers: init.upload_headers, body: data })).status).toBe(200);
    expect((await h.api('POST', `/v1beta/files/${init.file_id}/complete`)).status).toBe(200);
    const du = await h.api('GET', `/v1beta/files/${init.file_id}/download_url`);
    const q = new URL(du.json.url).searchParams;
    // Query parameters are part of the SigV4 canonical request: S3 serves exactly these headers.
    // (The test server canonicalizes the apostrophes of UTF-8'' wrongly, so only our side is checked.)
    expect(q.get('response-content-disposition')).toBe(
      `attachment; filename="Gr__e _1_.csv"; filename*=UTF-8''Gr%C3%BC%C3%9Fe%20%221%22.csv`,
    );
    expect(q.get('response-content-type')).toBe('text/csv; charset=utf-8');
  });

  it('refuses a PUT of another size or type, without If-None-Match, or with a tampered URL; nothing is stored', async () => {
    const data = Buffer.from('0123456789');
    const init = await initiate('ten.bin', 10, 'application/octet-stream');
    const other = await initiate('other.bin', 10, 'application/octet-stream');
    const { 'Content-Length': _len, ...headers } = init.upload_headers;
    const refused = async (url: string, hdrs: Record<string, string>, body: Buffer, code = 'SignatureDoesNotMatch') => {
      const r = await rawPut(url, { ...hdrs, 'content-length': String(body.length) }, body);
      expect(r.status, r.text).toBe(403);
      expect(r.text).toContain(`<Code>${code}</Code>`);
    };
    await refused(init.upload_url, headers, Buffer.concat([data, Buffer.from('!')]));
    await refused(init.upload_url, headers, data.subarray(0, 9));
    await refused(init.upload_url, { ...headers, 'Content-Type': 'text/html' }, data);
    const { 'If-None-Match': _inm, ...noCondition } = headers;
    await refused(init.upload_url, noCondition, data);
    const sig = new URL(init.upload_url).searchParams.get('X-Amz-Signature')!;
    const flipped = `${sig.slice(0, -1)}${sig.endsWith('0') ? '1' : '0'}`;
    await refused(init.upload_url.replace(sig, flipped), headers, data);
    await refused(init.upload_url.replace('X-Amz-Expires=', 'X-Amz-Expires=9'), headers, data);
    // The same signature on another file's key.
    await refused(init.upload_url.replace(init.file_id, other.file_id), headers, data);

    expect(await stored(objectKey(init.file_id))).toBeNull();
    expect(await stored(objectKey(other.file_id))).toBeNull();
    expect((await h.api('POST', `/v1beta/files/${init.file_id}/complete`)).status).toBe(409);
    const ok = await rawPut(init.upload_url, { ...init.upload_headers }, data);
    expect(ok.status).toBe(200);
    expect((await h.api('POST', `/v1beta/files/${init.file_id}/complete`)).json).toMatchObject({
      size_bytes: 10,
      crc32c: expectedCrc(data),
    });
  });

  it('complete refuses bytes of another size than declared (409) and stays pending', async () => {
    const init = await initiate('declared.bin', 10, 'application/octet-stream');
    // Written with the server's own credentials, as a store that did not enforce the signed size would.
    await direct.send(
      new PutObjectCommand({
        Bucket: s3.bucket,
        Key: objectKey(init.file_id),
        Body: Buffer.from('four'),
        ContentType: 'application/octet-stream',
      }),
    );
    const r = await h.api('POST', `/v1beta/files/${init.file_id}/complete`);
    expect(r.status).toBe(409);
    expect(r.json.detail).toBe('Storage holds 4 bytes but the file was created with size_bytes 10');
    expect((await h.api('GET', `/v1beta/files/${init.file_id}`)).status).toBe(404);
  });

  it('refuses expired upload and download URLs', async () => {
    const data = Buffer.from('expiring');
    const done = await initiate('old.txt', data.length, 'text/plain');
    expect((await fetch(done.upload_url, { method: 'PUT', headers: done.upload_headers, body: data })).status).toBe(200);
    expect((await h.api('POST', `/v1beta/files/${done.file_id}/complete`)).status).toBe(200);
    const ttl = { up: h.config.uploadUrlTtlS, down: h.config.downloadUrlTtlS };
    h.config.uploadUrlTtlS = 1;
    h.config.downloadUrlTtlS = 1;
    let late: Awaited<ReturnType<typeof initiate>>;
    let du: { url: string; expires_at: string };
    try {
      late = await initiate('late.txt', data.length, 'text/plain');
      du = (await h.api('GET', `/v1beta/files/${done.file_id}/download_url`)).json;
    } finally {
      h.config.uploadUrlTtlS = ttl.up;
      h.config.downloadUrlTtlS = ttl.down;
    }
    expect(presignedExpiry(late.upload_url)).toBe(Date.parse(late.expires_at));
    await new Promise((r) => setTimeout(r, Math.max(Date.parse(late.expires_at), Date.parse(du.expires_at)) - Date.now() + 1100));
    const put = await fetch(late.upload_url, { method: 'PUT', headers: late.upload_headers, body: data });
    expect(put.status).toBe(403);
    expect(await put.text()).toMatch(/<Code>AccessDenied<\/Code><Message>Request has expired/);
    const get = await fetch(du.url);
    expect(get.status).toBe(403);
    expect(await get.text()).toMatch(/Request has expired/);
    expect(await stored(objectKey(late.file_id))).toBeNull();
  });

  it('deleting a file deletes its object; its download URL stops working', async () => {
    const data = Buffer.from('gone soon');
    const init = await initiate('gone.txt', data.length, 'text/plain');
    await fetch(init.upload_url, { method: 'PUT', headers: init.upload_headers, body: data });
    await h.api('POST', `/v1beta/files/${init.file_id}/complete`);
    const du = await h.api('GET', `/v1beta/files/${init.file_id}/download_url`);
    expect((await fetch(du.json.url)).status).toBe(200);
    expect((await h.api('DELETE', `/v1beta/files/${init.file_id}`)).status).toBe(200);
    expect(await stored(objectKey(init.file_id))).toBeNull();
    const after = await fetch(du.json.url);
    expect(after.status).toBe(404);
    expect(await after.text()).toContain('<Code>NoSuchKey</Code>');
  });

  it('streams exactly the declared size into the bucket, or stores nothing', async () => {
    const store = h.services.blobs as S3BlobStore;
    const chunks = (...parts: string[]) =>
      Readable.from(
        parts.map((p) => Buffer.from(p)),
        { objectMode: false },
      );
    const info = await store.put('t/exact', chunks('hello ', 'world'), { contentType: 'text/plain', size: 11 });
    expect(info).toEqual({ size: 11, crc32c: expectedCrc(Buffer.from('hello world')), contentType: 'text/plain' });
    expect(await store.head('t/exact')).toEqual(info);
    expect((await readAll((await store.get('t/exact'))!)).toString()).toBe('hello world');

    const t0 = Date.now();
    await expect(store.put('t/long', chunks('hello ', 'world!'), { contentType: 'text/plain', size: 11 })).rejects.toThrow(
      expect.objectContaining({ constructor: UploadSizeError, tooLarge: true }),
    );
    await expect(store.put('t/short', chunks('hello'), { contentType: 'text/plain', size: 11 })).rejects.toThrow(
      expect.objectContaining({ constructor: UploadSizeError, tooLarge: false }),
    );
    // The PUT was aborted, not left waiting for bytes that never come.
    expect(Date.now() - t0).toBeLessThan(5000);
    // S3 keeps nothing of an aborted PUT; the test server keeps what arrived: never the whole object.
    for (const k of ['t/long', 't/short']) {
      const o = await stored(`${PREFIX}${k}`);
      expect(o === null || o.bytes.length < 11, `${k}: ${o?.bytes}`).toBe(true);
    }

    // Unknown size: spooled, then sent with its CRC32C.
    const big = crypto.randomBytes(200_000);
    const spooled = await store.put('t/spooled', Readable.from([big.subarray(0, 70_000), big.subarray(70_000)]), {
      contentType: 'application/x-test',
    });
    expect(spooled).toEqual({ size: big.length, crc32c: expectedCrc(big), contentType: 'application/x-test' });
    expect((await stored(`${PREFIX}t/spooled`))?.bytes.equals(big)).toBe(true);
    const head = await direct.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: `${PREFIX}t/spooled` }));
    expect(head.ContentLength).toBe(big.length);

    await store.delete('t/exact');
    expect(await store.get('t/exact')).toBeNull();
    expect(await store.head('t/exact')).toBeNull();
    await expect(
      store.presignGet('../x', { expiresAt: new Date(Date.now() + 60_000), filename: 'x', contentType: 'text/plain' }),
    ).rejects.toThrow(/relative segment/);
  });

  it('with S3_CONDITIONAL_WRITES=false, upload URLs sign only Content-Type and Content-Length', async () => {
    const store = new S3BlobStore({
      bucket: s3.bucket,
      region: 'us-east-1',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      conditionalWrites: false,
      credentials: s3.credentials,
      spoolDir: h.dataDir,
    });
    try {
      const up = await store.presignPut('t/plain', { contentType: 'text/plain', size: 2, expiresAt: new Date(Date.now() + 60_000) });
      expect(up.headers).toEqual({ 'Content-Type': 'text/plain', 'Content-Length': '2' });
      expect(new URL(up.url).searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');
      expect((await rawPut(up.url, up.headers, Buffer.from('ok'))).status).toBe(200);
      expect((await rawPut(up.url, { ...up.headers, 'Content-Length': '3' }, Buffer.from('ok!'))).status).toBe(403);
      expect(await store.head('t/plain')).toEqual({ size: 2, crc32c: expectedCrc(Buffer.from('ok')), contentType: 'text/plain' });
    } finally {
      store.close();
    }
  });

  it('stores run output files in the bucket', async () => {
    const c = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'script',
        source: `export default async function (ctx) {
          const f = await ctx.files.save('out.txt', 'made by a run\\n', 'text/plain');
          return { file_id: f.id };
        }`,
      },
    });
    const r = await run(h, { connector_id: c.id, arguments: {} });
    expect(r.status, JSON.stringify(r.error)).toBe('success');
    const files = (await h.api('GET', `/v1beta/files?run_id=${r.id}`)).json.data;
    expect(files).toEqual([
      expect.objectContaining({
        id: r.result.file_id,
        source: 'RUN_OUTPUT',
        name: 'out.txt',
        size_bytes: 14,
        crc32c: expectedCrc(Buffer.from('made by a run\n')),
      }),
    ]);
    expect((await stored(objectKey(r.result.file_id)))?.bytes.toString()).toBe('made by a run\n');
    const dl = await h.api('GET', `/v1beta/files/${r.result.file_id}/download`);
    expect(dl.status).toBe(307);
    expect(await (await fetch(dl.headers.get('location')!)).text()).toBe('made by a run\n');
  });

  it('stores capture recordings in the bucket', async () => {
    const s = await h.api('POST', '/v1beta/capture_sessions', {});
    expect(s.status, s.text).toBe(200);
    expect((await h.api('POST', `/v1beta/capture_sessions/${s.json.id}/complete`)).status).toBe(202);
    await expect
      .poll(async () => (await h.api('GET', `/v1beta/capture_sessions/${s.json.id}`)).json.state, { timeout: 30_000 })
      .toBe('completed');
    const rec = await h.api('GET', `/v1beta/capture_sessions/${s.json.id}/recording`);
    expect(rec.status).toBe(200);
    expect(rec.json.log.version).toBe('1.2');
    const obj = await stored(`${PREFIX}recordings/${h.userId}/${s.json.id}.har.json`);
    expect(obj?.contentType).toBe('application/json');
    expect(JSON.parse(obj!.bytes.toString()).log.version).toBe('1.2');
  });

  it('never prints the S3 secret key, and refuses an incomplete S3 configuration', () => {
    const secret = `s3-secret-${crypto.randomBytes(8).toString('hex')}`;
    const out = spawnSync(process.execPath, ['--import', 'tsx', 'src/start/cli.ts', 'config'], {
      env: { ...process.env, ...s3.env, S3_SECRET_ACCESS_KEY: secret, DATA_DIR: h.dataDir },
      encoding: 'utf8',
    });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^S3_SECRET_ACCESS_KEY\s+\(set\)$/m);
    expect(out.stdout).toMatch(/^BLOB_STORE\s+s3$/m);
    expect(out.stdout + out.stderr).not.toContain(secret);
    expect(h.logs.join('')).not.toContain(s3.credentials.secretAccessKey);
    expect(() => loadConfig({ BLOB_STORE: 's3' })).toThrow(ConfigError);
    expect(() => loadConfig({ BLOB_STORE: 's3' })).toThrow(/S3_BUCKET is required/);
    expect(() => loadConfig({ BLOB_STORE: 's3', S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'k' })).toThrow(/go together/);
    expect(() => loadConfig({ S3_FORCE_PATH_STYLE: 'yes' })).toThrow(/S3_FORCE_PATH_STYLE must be true or false/);
  });

  // Last: it stops the S3 server.
  it('/readyz reports the blob store, and its cause once the S3 server is down', async () => {
    const up = await h.api('GET', '/readyz', undefined, null);
    expect(up.json.checks.blob_store, up.text).toEqual({ ok: true });
    await s3.close();
    const down = await h.api('GET', '/readyz', undefined, null);
    expect(down.status).toBe(503);
    expect(down.json.checks.blob_store.ok).toBe(false);
    expect(down.json.detail).toMatch(/blob_store: S3 bucket "connector-test": .*ECONNREFUSED/);
  });
});
