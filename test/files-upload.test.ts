// Signed upload URLs over real HTTP: the PUT stores exactly the signed size with the signed
// Content-Type before expiry, or refuses with a 4xx and stores nothing.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from './helpers/harness.js';

interface Pending {
  file_id: string;
  upload_url: string;
  upload_headers: Record<string, string>;
}

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      for (const s of chunks) c.enqueue(new TextEncoder().encode(s));
      c.close();
    },
  });
}

/** A PUT whose body is streamed (Transfer-Encoding: chunked, no Content-Length). */
const putChunked = (url: string, contentType: string, ...chunks: string[]) =>
  fetch(url, { method: 'PUT', headers: { 'Content-Type': contentType }, body: streamOf(...chunks), duplex: 'half' } as RequestInit);

/** Sends a PUT over a raw socket, then closes our side; resolves with whatever came back. */
function rawPut(url: string, headers: Record<string, string>, body: string): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const sock = net.connect(Number(u.port), u.hostname, () => {
      const head = Object.entries({ Host: u.host, ...headers })
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      sock.write(`PUT ${u.pathname}${u.search} HTTP/1.1\r\n${head}\r\n${body}`);
      sock.end();
    });
    let got = '';
    sock.on('data', (d) => (got += d));
    sock.on('error', () => {});
    sock.on('close', () => resolve(got));
  });
}

describe.each(await backends())('signed uploads (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend);
  });
  afterAll(async () => h?.close());

  const blobKey = (id: string) => `files/${h.userId}/${id}`;
  async function create(size: number, contentType = 'text/plain'): Promise<Pending> {
    const r = await h.api('POST', '/v1beta/files', { name: 'u.txt', size_bytes: size, content_type: contentType });
    expect(r.status).toBe(200);
    return r.json;
  }
  function tempFiles(): string[] {
    const walk = (d: string): string[] =>
      fs.existsSync(d)
        ? fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [e.name]))
        : [];
    return walk(path.join(h.dataDir, 'blobs')).filter((n) => n.endsWith('.tmp'));
  }
  async function expectNothingStored(p: Pending) {
    expect(await h.services.blobs.head(blobKey(p.file_id))).toBeNull();
    expect(tempFiles()).toEqual([]);
    const c = await h.api('POST', `/v1beta/files/${p.file_id}/complete`);
    expect(c.status).toBe(409);
  }
  async function expectRefused(res: Response, status: number, detail: RegExp) {
    expect(res.status).toBe(status);
    expect((await res.json()).detail).toMatch(detail);
  }

  it('stores an exact upload sent with upload_headers verbatim', async () => {
    const p = await create(5);
    const res = await fetch(p.upload_url, { method: 'PUT', headers: p.upload_headers, body: 'hello' });
    expect(res.status).toBe(200);
    expect(await h.services.blobs.head(blobKey(p.file_id))).toMatchObject({ size: 5, contentType: 'text/plain' });
  });

  it('accepts an exact chunked upload without Content-Length', async () => {
    const p = await create(10);
    expect((await putChunked(p.upload_url, 'text/plain', 'hello', 'world')).status).toBe(200);
    expect((await h.api('POST', `/v1beta/files/${p.file_id}/complete`)).json.size_bytes).toBe(10);
  });

  it('refuses a body larger than size_bytes (Content-Length) with 413', async () => {
    const p = await create(5);
    await expectRefused(
      await fetch(p.upload_url, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'hello!' }),
      413,
      /larger than the signed size/,
    );
    await expectNothingStored(p);
  });

  it('refuses a body smaller than size_bytes (Content-Length) with 400', async () => {
    const p = await create(5);
    await expectRefused(
      await fetch(p.upload_url, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'hell' }),
      400,
      /Content-Length must be exactly 5/,
    );
    await expectNothingStored(p);
  });

  it('refuses a chunked body that runs past size_bytes with 413', async () => {
    const p = await create(5);
    await expectRefused(
      await putChunked(p.upload_url, 'text/plain', 'hel', 'lo', ' world', 'x'.repeat(1 << 20)),
      413,
      /larger than the signed size/,
    );
    await expectNothingStored(p);
  });

  it('refuses a chunked body that ends short of size_bytes with 400', async () => {
    const p = await create(5);
    await expectRefused(await putChunked(p.upload_url, 'text/plain', 'hel'), 400, /ended after 3 of the signed 5 bytes/);
    await expectNothingStored(p);
  });

  it('stores nothing when the client disconnects before sending all bytes', async () => {
    const p = await create(5);
    await rawPut(p.upload_url, { ...p.upload_headers }, 'hel');
    // The server notices the closed socket asynchronously: wait until it has given up.
    const refused = () => h.logs.some((l) => l.includes(p.file_id) && l.includes('upload refused'));
    for (let i = 0; i < 100 && !refused(); i++) await new Promise((r) => setTimeout(r, 20));
    expect(refused()).toBe(true);
    await expectNothingStored(p);
  });

  it('refuses a Content-Type other than the signed one', async () => {
    const p = await create(5);
    for (const ct of ['text/html', 'text/plain; charset=utf-8', 'TEXT/PLAIN']) {
      await expectRefused(
        await fetch(p.upload_url, { method: 'PUT', headers: { ...p.upload_headers, 'Content-Type': ct }, body: 'hello' }),
        400,
        /Content-Type must be exactly "text\/plain"/,
      );
    }
    const noType = await rawPut(p.upload_url, { 'Content-Length': '5', Connection: 'close' }, 'hello');
    expect(noType).toMatch(/^HTTP\/1\.1 400 /);
    await expectNothingStored(p);
  });

  it.each([
    [
      'signature',
      (u: URL) =>
        u.searchParams.set(
          'signature',
          u.searchParams.get('signature')!.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')),
        ),
    ],
    ['expiry', (u: URL) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600))],
    ['size', (u: URL) => u.searchParams.set('size', '6')],
    ['content type', (u: URL) => u.searchParams.set('content_type', 'text/html')],
  ])('refuses a tampered %s with 403', async (what, tamper) => {
    const p = await create(5);
    const u = new URL(p.upload_url);
    tamper(u);
    const headers = { 'Content-Type': u.searchParams.get('content_type')!, 'Content-Length': u.searchParams.get('size')! };
    const body = 'x'.repeat(Number(headers['Content-Length']));
    await expectRefused(await fetch(u, { method: 'PUT', headers, body }), 403, /Signature does not match/);
    await expectNothingStored(p);
    expect(what).toBeTruthy();
  });

  it("refuses a URL whose key was swapped for another file's", async () => {
    const a = await create(5);
    const b = await create(5);
    const u = new URL(a.upload_url);
    u.pathname = new URL(b.upload_url).pathname;
    await expectRefused(await fetch(u, { method: 'PUT', headers: a.upload_headers, body: 'hello' }), 403, /Signature does not match/);
    u.pathname = u.pathname.replace(/[^/]+$/, '..%2F..%2Fescape');
    await expectRefused(await fetch(u, { method: 'PUT', headers: a.upload_headers, body: 'hello' }), 403, /Signature does not match/);
    await expectNothingStored(a);
    await expectNothingStored(b);
  });

  it('refuses malformed signed-URL queries with 400', async () => {
    const p = await create(5);
    const u = new URL(p.upload_url);
    u.searchParams.delete('signature');
    await expectRefused(await fetch(u, { method: 'PUT', headers: p.upload_headers, body: 'hello' }), 400, /signature/);
    u.search = '';
    await expectRefused(await fetch(u), 400, /expires/);
    await expectNothingStored(p);
  });

  it('refuses an expired URL with 403', async () => {
    const p = await create(5);
    const url = (
      await h.services.blobs.presignPut(blobKey(p.file_id), { contentType: 'text/plain', size: 5, expiresAt: new Date(Date.now() - 1000) })
    ).url;
    await expectRefused(await fetch(url, { method: 'PUT', headers: p.upload_headers, body: 'hello' }), 403, /expired/);
    await expectNothingStored(p);
  });

  it('keeps the bytes of an earlier good PUT when a later one is refused', async () => {
    const p = await create(5);
    expect((await fetch(p.upload_url, { method: 'PUT', headers: p.upload_headers, body: 'hello' })).status).toBe(200);
    expect((await putChunked(p.upload_url, 'text/plain', 'hello world')).status).toBe(413);
    const c = await h.api('POST', `/v1beta/files/${p.file_id}/complete`);
    expect(c.json).toMatchObject({ size_bytes: 5, crc32c: 'mnG7TA==' });
    const res = await fetch(`${h.url}/v1beta/files/${p.file_id}/download`, { headers: { authorization: `Bearer ${h.key}` } });
    expect(await res.text()).toBe('hello');
  });

  it('never answered 500 or logged an unhandled error', () => {
    const bad = h.logs.filter((l) => /"level":(50|60)/.test(l) || /"statusCode":5\d\d/.test(l));
    expect(bad).toEqual([]);
  });

  it('accepts any signed content type as raw bytes, JSON included', async () => {
    const p = await create(7, 'application/json');
    expect((await fetch(p.upload_url, { method: 'PUT', headers: p.upload_headers, body: '{"a":1}' })).status).toBe(200);
    const q = await create(4, 'application/x-www-form-urlencoded');
    expect((await fetch(q.upload_url, { method: 'PUT', headers: q.upload_headers, body: 'a=bc' })).status).toBe(200);
    for (const f of [p, q]) expect((await h.api('POST', `/v1beta/files/${f.file_id}/complete`)).status).toBe(200);
  });
});

describe('upload URL lifetime (UPLOAD_URL_TTL_S=1)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('sqlite', { UPLOAD_URL_TTL_S: '1' });
  });
  afterAll(async () => h?.close());

  it('stops accepting the upload once expires_at has passed', async () => {
    const r = await h.api('POST', '/v1beta/files', { name: 'slow.txt', size_bytes: 5, content_type: 'text/plain' });
    expect(Date.parse(r.json.expires_at) - Date.now()).toBeLessThanOrEqual(1000);
    await new Promise((res) => setTimeout(res, Math.max(0, Date.parse(r.json.expires_at) - Date.now()) + 1100));
    const put = await fetch(r.json.upload_url, { method: 'PUT', headers: r.json.upload_headers, body: 'hello' });
    expect(put.status).toBe(403);
    expect((await put.json()).detail).toMatch(/expired/);
    expect((await h.api('POST', `/v1beta/files/${r.json.file_id}/complete`)).status).toBe(409);
  });
});
