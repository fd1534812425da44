// Issue 9, findings 4 and 10: slow and hostile clients against the real server over raw
// sockets. Unfinished headers, bodies shorter than their Content-Length (JSON and signed
// uploads), too many uploads or connections: each is cut in bounded time with a {"detail"}
// answer (or a closed socket), leaves no temp file, and does not block other users. Errors
// raised before a route runs (HTTP parser, router, body limits) are {"detail"} too.
//
// SQLite only: these limits live in the HTTP layer and the blob store, not in the database
// (the database-specific attacks are in security-bad-bytes.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers/harness.js';
import { head, rawConnect, rawExchange } from './helpers/raw-http.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Pending {
  file_id: string;
  upload_url: string;
  upload_headers: Record<string, string>;
}

function tempFiles(h: Harness): string[] {
  const walk = (d: string): string[] =>
    fs.existsSync(d)
      ? fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [e.name]))
      : [];
  return walk(path.join(h.dataDir, 'blobs')).filter((n) => n.endsWith('.tmp'));
}

async function initiate(h: Harness, size: number, key?: string): Promise<Pending> {
  const r = await h.api('POST', '/v1beta/files', { name: 'f.bin', size_bytes: size, content_type: 'application/octet-stream' }, key);
  expect(r.status).toBe(200);
  return r.json;
}

/** Opens a signed PUT that declares `size` bytes, sends `sent` of them and then stalls. */
async function stalledUpload(p: Pending, size: number, sent: number) {
  const u = new URL(p.upload_url);
  const c = await rawConnect(p.upload_url);
  await c.write(head('PUT', u.pathname + u.search, { 'Content-Type': 'application/octet-stream', 'Content-Length': size }));
  if (sent) await c.write(Buffer.alloc(sent, 7));
  return c;
}

const isDetail = (json: any) => json && typeof json.detail === 'string' && json.detail.length > 0;

describe('slow clients are cut (HTTP_* timeouts, MAX_CONCURRENT_UPLOADS)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('sqlite', {
      HTTP_HEADERS_TIMEOUT_S: '1',
      HTTP_BODY_IDLE_TIMEOUT_S: '2',
      HTTP_KEEP_ALIVE_TIMEOUT_S: '1',
      MAX_CONCURRENT_UPLOADS: '3',
      MAX_CONCURRENT_UPLOADS_PER_USER: '2',
    });
  });
  afterAll(async () => h?.close());

  it('slowloris: headers trickling in are cut after HTTP_HEADERS_TIMEOUT_S with 408 {"detail"}', async () => {
    const c = await rawConnect(h.url);
    await c.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    // One header byte every 200 ms: the socket is never idle, the headers never end.
    const trickle = setInterval(() => void c.write('X'), 200);
    const r = await c.result(8000);
    clearInterval(trickle);
    expect(r.closed).toBe(true);
    expect(r.ms).toBeLessThan(4000);
    expect(r.status).toBe(408);
    expect(isDetail(r.json)).toBe(true);
  });

  it('a connection that never sends a byte is closed after the headers timeout', async () => {
    const c = await rawConnect(h.url);
    const r = await c.result(8000);
    expect(r.closed).toBe(true);
    expect(r.ms).toBeLessThan(4000);
  });

  it('an idle keep-alive connection is closed after HTTP_KEEP_ALIVE_TIMEOUT_S', async () => {
    const c = await rawConnect(h.url);
    await c.write(head('GET', '/healthz', {}));
    const r = await c.result(8000);
    expect(r.status).toBe(200);
    expect(r.closed).toBe(true);
    expect(r.ms).toBeLessThan(4000);
  });

  it('a PUT declaring 10 MB that sends 1 KB and stalls gets 408 {"detail"}, leaves no temp file; others upload meanwhile', async () => {
    const size = 10 * 1024 * 1024;
    const p = await initiate(h, size);
    const c = await stalledUpload(p, size, 1024);
    // While it stalls, another user's upload goes through.
    const other = await h.newUser('bystander');
    const q = await initiate(h, 5, other.key);
    const ok = await fetch(q.upload_url, { method: 'PUT', headers: q.upload_headers, body: 'hello' });
    expect(ok.status).toBe(200);
    expect((await h.api('POST', `/v1beta/files/${q.file_id}/complete`, undefined, other.key)).status).toBe(200);

    const r = await c.result(10_000);
    expect(r.closed).toBe(true);
    expect(r.ms).toBeGreaterThanOrEqual(1500);
    expect(r.ms).toBeLessThan(6000);
    expect(r.status).toBe(408);
    expect(r.json.detail).toMatch(/no body data received/);
    await expect.poll(() => tempFiles(h), { timeout: 3000 }).toEqual([]);
    expect(await h.services.blobs.head(`files/${h.userId}/${p.file_id}`)).toBeNull();
    expect((await h.api('POST', `/v1beta/files/${p.file_id}/complete`)).status).toBe(409);
    // The file can still be uploaded properly afterwards.
    const again = await fetch(p.upload_url, { method: 'PUT', headers: p.upload_headers, body: Buffer.alloc(size, 1) });
    expect(again.status).toBe(200);
  });

  it('a download the client stops reading is closed after the body idle timeout (file and socket released)', async () => {
    const size = 20 * 1024 * 1024;
    const p = await initiate(h, size);
    expect((await fetch(p.upload_url, { method: 'PUT', headers: p.upload_headers, body: Buffer.alloc(size, 3) })).status).toBe(200);
    expect((await h.api('POST', `/v1beta/files/${p.file_id}/complete`)).status).toBe(200);
    const { url } = (await h.api('GET', `/v1beta/files/${p.file_id}/download_url`)).json;
    const u = new URL(url);
    const c = await rawConnect(url);
    c.sock.pause(); // read nothing: the server's writes back up
    await c.write(head('GET', u.pathname + u.search, {}));
    await sleep(5000); // past the idle timeout (2 s)
    // Reading again: only what sat in the buffers arrives, then the end; not the whole file.
    c.sock.resume();
    const r = await c.result(5000);
    expect(r.closed).toBe(true);
    expect(r.status).toBe(200);
    expect(r.text.length).toBeLessThan(size);
    // Served normally to a client that reads.
    expect((await fetch(url)).status).toBe(200);
  });

  it('a JSON POST shorter than its Content-Length gets 408 {"detail"} after the body idle timeout', async () => {
    const c = await rawConnect(h.url);
    await c.write(
      head('POST', '/v1beta/secrets', { Authorization: `Bearer ${h.key}`, 'Content-Type': 'application/json', 'Content-Length': 1000 }),
    );
    await c.write('{"name": "x",');
    const r = await c.result(10_000);
    expect(r.closed).toBe(true);
    expect(r.ms).toBeLessThan(6000);
    expect(r.status).toBe(408);
    expect(isDetail(r.json)).toBe(true);
    expect((await h.api('GET', '/v1beta/secrets')).json).toEqual([]);
  });

  it('answered before its body was read (no API key, unknown route), a stalled request is disconnected at once', async () => {
    for (const [p, auth] of [
      ['/v1beta/secrets', {}],
      ['/v1beta/secrets', { Authorization: 'Bearer wrong' }],
      ['/nope', {}],
    ] as const) {
      const c = await rawConnect(h.url);
      await c.write(head('POST', p, { ...auth, 'Content-Type': 'application/json', 'Content-Length': 100_000 }));
      await c.write('{"name": ');
      const r = await c.result(8000);
      expect([r.status, isDetail(r.json)], p).toEqual([p === '/nope' ? 404 : 401, true]);
      expect(r.closed, p).toBe(true);
      expect(r.ms, p).toBeLessThan(1500);
    }
  });

  it('a body the server never reads (413 from Content-Length) does not trip the idle timer later', async () => {
    const c = await rawConnect(h.url);
    await c.write(
      head('POST', '/v1beta/secrets', {
        Authorization: `Bearer ${h.key}`,
        'Content-Type': 'application/json',
        'Content-Length': 11 * 1024 * 1024,
      }),
    );
    await c.write('{"name": "x", ');
    // Keep the connection open past the body idle timeout (2 s): the server must stay up.
    await sleep(3000);
    expect((await fetch(`${h.url}/healthz`)).status).toBe(200);
    const r = await c.result(100);
    expect(r.status).toBe(413);
    expect(isDetail(r.json)).toBe(true);
  });

  it('one user beyond MAX_CONCURRENT_UPLOADS_PER_USER gets 429 {"detail"}; another user still uploads', async () => {
    const size = 1024 * 1024;
    const held = await Promise.all([1, 2].map(async () => stalledUpload(await initiate(h, size), size, 10)));
    await sleep(200);
    const mine = await initiate(h, 5);
    const refused = await fetch(mine.upload_url, { method: 'PUT', headers: mine.upload_headers, body: 'hello' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(isDetail(await refused.json())).toBe(true);
    const other = await h.newUser('not-starved');
    const theirs = await initiate(h, 5, other.key);
    expect((await fetch(theirs.upload_url, { method: 'PUT', headers: theirs.upload_headers, body: 'hello' })).status).toBe(200);
    expect((await Promise.all(held.map((c) => c.result(10_000)))).map((r) => r.status)).toEqual([408, 408]);
    expect((await fetch(mine.upload_url, { method: 'PUT', headers: mine.upload_headers, body: 'hello' })).status).toBe(200);
  });

  it('uploads beyond MAX_CONCURRENT_UPLOADS get 503 {"detail"} with Retry-After at once; slots free up when the stalled ones are cut', async () => {
    const size = 1024 * 1024;
    const users = [undefined, undefined, (await h.newUser('second')).key];
    const held = await Promise.all(users.map(async (key) => stalledUpload(await initiate(h, size, key), size, 10)));
    await sleep(200);
    const third = await h.newUser('third');
    const extra = await initiate(h, 5, third.key);
    const t0 = Date.now();
    const refused = await fetch(extra.upload_url, { method: 'PUT', headers: extra.upload_headers, body: 'hello' });
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(isDetail(await refused.json())).toBe(true);
    const results = await Promise.all(held.map((c) => c.result(10_000)));
    expect(results.map((r) => r.status)).toEqual([408, 408, 408]);
    await expect.poll(() => tempFiles(h), { timeout: 3000 }).toEqual([]);
    const retried = await fetch(extra.upload_url, { method: 'PUT', headers: extra.upload_headers, body: 'hello' });
    expect(retried.status).toBe(200);
  });
});

describe('HTTP_REQUEST_TIMEOUT_S', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('sqlite', { HTTP_REQUEST_TIMEOUT_S: '2', HTTP_HEADERS_TIMEOUT_S: '1', HTTP_BODY_IDLE_TIMEOUT_S: '30' });
  });
  afterAll(async () => h?.close());

  it('a body trickling in (never idle) is cut when the whole request takes too long: 408 {"detail"}, no temp file', async () => {
    const size = 1024 * 1024;
    const p = await initiate(h, size);
    const c = await stalledUpload(p, size, 10);
    const trickle = setInterval(() => void c.write('x'), 100);
    const r = await c.result(10_000);
    clearInterval(trickle);
    expect(r.closed).toBe(true);
    expect(r.ms).toBeLessThan(5000);
    expect(r.status).toBe(408);
    expect(isDetail(r.json)).toBe(true);
    await expect.poll(() => tempFiles(h), { timeout: 3000 }).toEqual([]);
  });
});

describe('HTTP_MAX_CONNECTIONS', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('sqlite', { HTTP_MAX_CONNECTIONS: '5', HTTP_HEADERS_TIMEOUT_S: '30' });
  });
  afterAll(async () => h?.close());

  it('closes connections beyond the cap at once; serves again when they go', async () => {
    const held = await Promise.all([1, 2, 3, 4, 5].map(() => rawConnect(h.url)));
    await sleep(200);
    const extra = await rawExchange(h.url, head('GET', '/healthz', {}), 3000);
    expect(extra.closed).toBe(true);
    expect(extra.status).toBeNull();
    for (const c of held) c.sock.destroy();
    await sleep(200);
    expect((await fetch(`${h.url}/healthz`)).status).toBe(200);
  });
});

describe('every 4xx before a route runs is {"detail"}', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('sqlite');
  });
  afterAll(async () => h?.close());
  const auth = () => ({ Authorization: `Bearer ${h.key}` });

  it('bad percent-encoding in the path: 400 {"detail"} (was FST_ERR_BAD_URL)', async () => {
    const r = await rawExchange(h.url, head('GET', '/v1beta/files/%E0%A4%A', { ...auth(), Connection: 'close' }), 3000);
    expect(r.status).toBe(400);
    expect(Object.keys(r.json)).toEqual(['detail']);
    expect(isDetail(r.json)).toBe(true);
  });

  it('ids up to the schema limit (200 characters, any script) reach their route: 404, never 414', async () => {
    for (const id of ['a'.repeat(200), '😀'.repeat(100), 'é'.repeat(200)]) {
      const r = await h.api('GET', `/v1beta/files/${encodeURIComponent(id)}`);
      expect([r.status, r.json]).toEqual([404, { detail: 'File not found' }]);
    }
    const long = await h.api('GET', `/v1beta/connectors/${'a'.repeat(201)}`);
    expect(long.status).toBe(422);
    expect(long.json.detail[0]).toMatchObject({ loc: ['path', 'connector_id'], type: 'string_too_long' });
    const absurd = await h.api('GET', `/v1beta/files/${'a'.repeat(5000)}`);
    expect(absurd.status).toBe(414);
    expect(isDetail(absurd.json)).toBe(true);
  });

  it('Node\'s parser errors: 431 headers too large, 400 malformed request, 400 bad Content-Length, all {"detail"}', async () => {
    const big = await rawExchange(h.url, head('GET', '/healthz', { 'X-Big': 'a'.repeat(40_000) }), 3000);
    expect([big.status, isDetail(big.json), big.closed]).toEqual([431, true, true]);
    const garbage = await rawExchange(h.url, 'GARBAGE\r\n\r\n', 3000);
    expect([garbage.status, isDetail(garbage.json), garbage.closed]).toEqual([400, true, true]);
    const badLen = await rawExchange(
      h.url,
      head('POST', '/v1beta/secrets', { ...auth(), 'Content-Type': 'application/json', 'Content-Length': 'abc' }),
      3000,
    );
    expect([badLen.status, isDetail(badLen.json)]).toEqual([400, true]);
    const both = await rawExchange(
      h.url,
      `${head('POST', '/v1beta/secrets', {
        ...auth(),
        'Content-Type': 'application/json',
        'Content-Length': 5,
        'Transfer-Encoding': 'chunked',
      })}0\r\n\r\n`,
      3000,
    );
    expect([both.status, isDetail(both.json)]).toEqual([400, true]);
  });

  it('413 for a body over the limit, 415 for a wrong content type, both {"detail"}', async () => {
    const huge = await fetch(`${h.url}/v1beta/secrets`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x'.repeat(11 * 1024 * 1024) }),
    });
    expect(huge.status).toBe(413);
    expect(isDetail(await huge.json())).toBe(true);
    const text = await fetch(`${h.url}/v1beta/secrets`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/xml' },
      body: '<a/>',
    });
    expect(text.status).toBe(415);
    expect(isDetail(await text.json())).toBe(true);
  });

  it('10,000-deep JSON is a 422 json_invalid, not a crash or an empty 422', async () => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    for (const [p, body] of [
      ['/v1beta/runs', `{"connector_id": "x", "arguments": {"a": ${deep}}}`],
      ['/v1beta/secrets', `{"name": ${deep}}`],
      ['/v1beta/connectors', deep],
    ]) {
      const r = await h.api('POST', p, body);
      expect(r.status, p).toBe(422);
      expect(r.json.detail[0]).toMatchObject({ type: 'json_invalid', loc: ['body', expect.any(Number)] });
      expect(r.json.detail[0].ctx.error).toMatch(/nested deeper than 128/);
    }
    // 100 levels is fine (legitimate nesting), and its echo in a 422 is summarised.
    const ok = await h.api(
      'POST',
      '/v1beta/files',
      `{"name": ${'['.repeat(100)}${']'.repeat(100)}, "size_bytes": 1, "content_type": "a/b"}`,
    );
    expect(ok.status).toBe(422);
    expect(ok.json.detail[0]).toMatchObject({ loc: ['body', 'name'], type: 'string_type' });
    expect(JSON.stringify(ok.json).length).toBeLessThan(500);
  });

  it('a 9.4 MB invalid body gets a small 422: inputs truncated, entries capped (≤ 64 KB)', async () => {
    const name = 'n'.repeat(9_400_000);
    const r = await h.api('POST', '/v1beta/files', { name, size_bytes: 1, content_type: 'a/b' });
    expect(r.status).toBe(422);
    expect(r.json.detail[0]).toMatchObject({ loc: ['body', 'name'], type: 'string_too_long' });
    expect(r.json.detail[0].input.length).toBeLessThanOrEqual(201);
    expect(r.text.length).toBeLessThan(2000);

    // Thousands of errors (one per binding) and a big extra field: all found, 50 reported, small.
    const bindings = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`slot${i}`, i]));
    const many = await h.api('POST', '/v1beta/runs', {
      connector_id: 'x',
      secret_bindings: bindings,
      extra: Array(3000).fill('z'.repeat(1000)),
    });
    expect(many.status).toBe(422);
    expect(many.json.detail).toHaveLength(50);
    expect(many.text.length).toBeLessThan(64 * 1024);
    const extra = many.json.detail.find((d: any) => d.type === 'extra_forbidden');
    expect(extra.input.length).toBeLessThanOrEqual(11);
    expect(extra.input[0].length).toBeLessThanOrEqual(201);
  });

  it('a 10 MB body of a million invalid entries costs one error, not a million (CPU and memory bounded)', async () => {
    const bindings: Record<string, number> = {};
    for (let i = 0; i < 1_000_000; i++) bindings[i.toString(36)] = 1;
    const t0 = Date.now();
    const r = await h.api('POST', '/v1beta/runs', { connector_id: 'x', secret_bindings: bindings });
    expect(r.status).toBe(422);
    // Above FULL_REPORT_MAX_NODES values only the first error is looked for (ajv's allErrors
    // would build a million error objects: seconds of CPU and ~500 MB per request).
    expect(r.json.detail).toEqual([expect.objectContaining({ loc: ['body', 'secret_bindings', '0'], type: 'string_type' })]);
    expect(Date.now() - t0).toBeLessThan(15_000);
  }, 30_000);
});
