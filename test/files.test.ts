// Files API over HTTP (Files): every endpoint, every 422, cross-user isolation,
// byte-exact round trips and run outputs. Uploads use real PUTs to upload_url.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crc32c } from '@node-rs/crc32';
import { backends, startHarness, type Harness } from './helpers/harness.js';

/** The wire form computed independently of the service: base64 of the big-endian CRC32C. */
function expectedCrc(data: Buffer): string {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(crc32c(data) >>> 0);
  return b.toString('base64');
}

async function upload(h: Harness, name: string, data: Buffer, contentType = 'application/octet-stream', key?: string) {
  const init = await h.api('POST', '/v1beta/files', { name, size_bytes: data.length, content_type: contentType }, key);
  expect(init.status).toBe(200);
  const put = await fetch(init.json.upload_url, { method: 'PUT', headers: init.json.upload_headers, body: new Uint8Array(data) });
  expect(put.status).toBe(200);
  await put.arrayBuffer();
  const done = await h.api('POST', `/v1beta/files/${init.json.file_id}/complete`, undefined, key);
  expect(done.status).toBe(200);
  return { id: init.json.file_id as string, init: init.json, complete: done.json };
}

describe.each(await backends())('files API (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend);
  });
  afterAll(async () => h?.close());

  it('creates a pending file with a signed upload URL and exact headers', async () => {
    const r = await h.api('POST', '/v1beta/files', { name: 'a.txt', size_bytes: 5, content_type: 'text/plain' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json).sort()).toEqual(['expires_at', 'file_id', 'upload_headers', 'upload_url']);
    expect(r.json.upload_url.startsWith(`${h.url}/storage/`)).toBe(true);
    expect(r.json.upload_headers).toEqual({ 'Content-Type': 'text/plain', 'Content-Length': '5' });
    const ttl = Date.parse(r.json.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan((h.config.uploadUrlTtlS - 2) * 1000);
    expect(ttl).toBeLessThanOrEqual(h.config.uploadUrlTtlS * 1000);
    expect(new URL(r.json.upload_url).searchParams.get('expires')).toBe(String(Date.parse(r.json.expires_at) / 1000));
    // Pending: not visible until complete.
    expect((await h.api('GET', `/v1beta/files/${r.json.file_id}`)).status).toBe(404);
    expect((await h.api('GET', `/v1beta/files/${r.json.file_id}/download_url`)).status).toBe(404);
    expect((await h.api('GET', `/v1beta/files/${r.json.file_id}/download`)).status).toBe(404);
    const list = await h.api('GET', '/v1beta/files?limit=100');
    expect(list.json.data.map((f: any) => f.id)).not.toContain(r.json.file_id);
  });

  it('refuses to complete a file whose bytes never arrived (409), then completes after the PUT', async () => {
    const r = await h.api('POST', '/v1beta/files', { name: 'late.bin', size_bytes: 3, content_type: 'application/octet-stream' });
    const early = await h.api('POST', `/v1beta/files/${r.json.file_id}/complete`);
    expect(early.status).toBe(409);
    expect(early.json.detail).toMatch(/no uploaded bytes/);
    const put = await fetch(r.json.upload_url, { method: 'PUT', headers: r.json.upload_headers, body: new Uint8Array([1, 2, 3]) });
    expect(put.status).toBe(200);
    const done = await h.api('POST', `/v1beta/files/${r.json.file_id}/complete`);
    expect(done.status).toBe(200);
    expect(done.json).toEqual({
      file_id: r.json.file_id,
      name: 'late.bin',
      size_bytes: 3,
      content_type: 'application/octet-stream',
      crc32c: expectedCrc(Buffer.from([1, 2, 3])),
    });
    // Idempotent.
    expect((await h.api('POST', `/v1beta/files/${r.json.file_id}/complete`)).json).toEqual(done.json);
    // The upload URL is dead once the file is complete: its bytes can no longer change.
    const again = await fetch(r.json.upload_url, { method: 'PUT', headers: r.json.upload_headers, body: new Uint8Array([9, 9, 9]) });
    expect(again.status).toBe(409);
    expect((await again.json()).detail).toMatch(/closed/);
  });

  it('round-trips a 0-byte file', async () => {
    const f = await upload(h, 'empty.txt', Buffer.alloc(0), 'text/plain');
    expect(f.complete).toMatchObject({ size_bytes: 0, crc32c: 'AAAAAA==' });
    const res = await fetch(`${h.url}/v1beta/files/${f.id}/download`, { headers: { authorization: `Bearer ${h.key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('0');
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it('round-trips a 5 MiB random file byte-exactly with the right CRC32C', async () => {
    const data = crypto.randomBytes(5 * 1024 * 1024 + 17);
    const f = await upload(h, 'big.bin', data);
    expect(f.complete).toEqual({
      file_id: f.id,
      name: 'big.bin',
      size_bytes: data.length,
      content_type: 'application/octet-stream',
      crc32c: expectedCrc(data),
    });
    const meta = await h.api('GET', `/v1beta/files/${f.id}`);
    expect(meta.json).toEqual({
      id: f.id,
      source: 'UPLOAD',
      run_id: null,
      name: 'big.bin',
      size_bytes: data.length,
      content_type: 'application/octet-stream',
      crc32c: expectedCrc(data),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const res = await fetch(`${h.url}/v1beta/files/${f.id}/download`, { headers: { authorization: `Bearer ${h.key}` } });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(data)).toBe(true);
  });

  it('downloads through download_url and a 307 from download, with the stored type and name', async () => {
    const f = await upload(h, 'Grüße "1".csv', Buffer.from('a,b\n1,2\n'), 'text/csv; charset=utf-8');
    const du = await h.api('GET', `/v1beta/files/${f.id}/download_url`);
    expect(du.status).toBe(200);
    expect(Object.keys(du.json).sort()).toEqual(['expires_at', 'url']);
    const ttl = Date.parse(du.json.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan((h.config.downloadUrlTtlS - 2) * 1000);
    expect(ttl).toBeLessThanOrEqual(h.config.downloadUrlTtlS * 1000);
    const res = await fetch(du.json.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-length')).toBe('8');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="Gr__e _1_.csv"; filename*=UTF-8''Gr%C3%BC%C3%9Fe%20%221%22.csv`,
    );
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toBe('a,b\n1,2\n');

    const redirect = await h.api('GET', `/v1beta/files/${f.id}/download`);
    expect(redirect.status).toBe(307);
    const location = redirect.headers.get('location')!;
    expect(location.startsWith(`${h.url}/storage/`)).toBe(true);
    expect(await (await fetch(location)).text()).toBe('a,b\n1,2\n');

    // A tampered or expired download URL is refused.
    const u = new URL(du.json.url);
    u.searchParams.set('filename', 'evil.html');
    expect((await fetch(u)).status).toBe(403);
    const expired = await h.services.blobs.presignGet(`files/${h.userId}/${f.id}`, {
      expiresAt: new Date(Date.now() - 2000),
      filename: 'x',
      contentType: 'text/plain',
    });
    const er = await fetch(expired);
    expect(er.status).toBe(403);
    expect((await er.json()).detail).toMatch(/expired/);
  });

  it('deletes a file and its bytes; its download URL then 404s', async () => {
    const f = await upload(h, 'gone.txt', Buffer.from('bye'), 'text/plain');
    const url = (await h.api('GET', `/v1beta/files/${f.id}/download_url`)).json.url;
    expect((await fetch(url)).status).toBe(200);
    const del = await h.api('DELETE', `/v1beta/files/${f.id}`);
    expect(del.status).toBe(200);
    expect(del.json).toEqual({ id: f.id, deleted: true });
    const after = await fetch(url);
    expect(after.status).toBe(404);
    expect(await after.json()).toEqual({ detail: 'Object not found' });
    expect(await h.services.blobs.head(`files/${h.userId}/${f.id}`)).toBeNull();
    for (const [m, p] of [
      ['GET', ''],
      ['DELETE', ''],
      ['GET', '/download_url'],
      ['GET', '/download'],
      ['POST', '/complete'],
    ]) {
      const r = await h.api(m, `/v1beta/files/${f.id}${p}`);
      expect(r.status, `${m} ${p}`).toBe(404);
      expect(r.json).toEqual({ detail: 'File not found' });
    }
    // An upload URL of a deleted file cannot bring it back.
    const pend = await h.api('POST', '/v1beta/files', { name: 'p.txt', size_bytes: 1, content_type: 'text/plain' });
    expect((await h.api('DELETE', `/v1beta/files/${pend.json.file_id}`)).json).toEqual({ id: pend.json.file_id, deleted: true });
    const put = await fetch(pend.json.upload_url, { method: 'PUT', headers: pend.json.upload_headers, body: 'x' });
    expect(put.status).toBe(409);
    expect(await h.services.blobs.head(`files/${h.userId}/${pend.json.file_id}`)).toBeNull();
  });

  it("answers 404 for unknown, malformed and other users' file ids", async () => {
    const f = await upload(h, 'mine.txt', Buffer.from('secret bytes'), 'text/plain');
    const pending = await h.api('POST', '/v1beta/files', { name: 'p.txt', size_bytes: 1, content_type: 'text/plain' });
    const b = await h.newUser('bob');
    for (const id of [f.id, pending.json.file_id, crypto.randomUUID(), 'not-a-uuid', '..%2F..%2Fetc']) {
      for (const [m, p] of [
        ['GET', ''],
        ['DELETE', ''],
        ['GET', '/download_url'],
        ['GET', '/download'],
        ['POST', '/complete'],
      ]) {
        const r = await h.api(m, `/v1beta/files/${id}${p}`, undefined, b.key);
        expect(r.status, `${m} ${id}${p}`).toBe(404);
        expect(r.json).toEqual({ detail: 'File not found' });
      }
    }
    const list = await h.api('GET', '/v1beta/files?limit=100', undefined, b.key);
    expect(list.json).toEqual({ data: [], has_more: false, next_cursor: null });
    // Still intact for the owner.
    expect((await h.api('GET', `/v1beta/files/${f.id}`)).status).toBe(200);
    expect((await h.api('GET', '/v1beta/files', undefined, null)).status).toBe(401);
    expect((await h.api('POST', '/v1beta/files', { name: 'x', size_bytes: 1, content_type: 'a/b' }, null)).status).toBe(401);
  });

  it('stores run outputs through the service and lists them as RUN_OUTPUT', async () => {
    const data = crypto.randomBytes(1000);
    const f = await h.services.files.saveRunOutput({
      userId: h.userId,
      runId: 'run-1',
      connectorId: 'conn-1',
      name: 'out.bin',
      contentType: 'application/octet-stream',
      body: data,
    });
    expect(f).toMatchObject({ source: 'RUN_OUTPUT', run_id: 'run-1', name: 'out.bin', size_bytes: 1000, crc32c: expectedCrc(data) });
    const { Readable } = await import('node:stream');
    const streamed = await h.services.files.saveRunOutput({
      userId: h.userId,
      runId: 'run-1',
      connectorId: null,
      name: 'log.txt',
      contentType: 'text/plain',
      body: Readable.from([Buffer.from('line 1\n'), Buffer.from('line 2\n')]),
    });
    expect(streamed).toMatchObject({ size_bytes: 14, crc32c: expectedCrc(Buffer.from('line 1\nline 2\n')) });
    expect((await h.api('GET', `/v1beta/files/${f.id}`)).json).toEqual(f);
    const list = await h.api('GET', '/v1beta/files?run_id=run-1&sort=name&order=asc');
    expect(list.json.data.map((x: any) => x.name)).toEqual(['log.txt', 'out.bin']);
    const res = await fetch(`${h.url}/v1beta/files/${f.id}/download`, { headers: { authorization: `Bearer ${h.key}` } });
    expect(Buffer.from(await res.arrayBuffer()).equals(data)).toBe(true);
  });

  describe('422 validation', () => {
    const post = (body: unknown) => h.api('POST', '/v1beta/files', body);
    const ok = { name: 'a.txt', size_bytes: 1, content_type: 'text/plain' };

    it.each([
      ['name too short', { ...ok, name: '' }, ['body', 'name'], 'string_too_short'],
      ['name too long', { ...ok, name: 'n'.repeat(513) }, ['body', 'name'], 'string_too_long'],
      ['name not a string', { ...ok, name: 5 }, ['body', 'name'], 'string_type'],
      ['negative size', { ...ok, size_bytes: -1 }, ['body', 'size_bytes'], 'greater_than_equal'],
      ['fractional size', { ...ok, size_bytes: 1.5 }, ['body', 'size_bytes'], 'int_from_float'],
      ['size beyond MAX_UPLOAD_BYTES', { ...ok, size_bytes: 5 * 1024 ** 3 + 1 }, ['body', 'size_bytes'], 'less_than_equal'],
      ['content_type too short', { ...ok, content_type: '' }, ['body', 'content_type'], 'string_too_short'],
      ['content_type too long', { ...ok, content_type: `a/${'b'.repeat(255)}` }, ['body', 'content_type'], 'string_too_long'],
      ['content_type not a media type', { ...ok, content_type: 'plain text' }, ['body', 'content_type'], 'string_pattern_mismatch'],
      ['extra field', { ...ok, crc32c: 'x' }, ['body', 'crc32c'], 'extra_forbidden'],
    ])('%s', async (_what, body, loc, type) => {
      const r = await post(body);
      expect(r.status).toBe(422);
      expect(r.json.detail).toEqual([expect.objectContaining({ loc, type, msg: expect.any(String) })]);
    });

    it('accepts the boundaries', async () => {
      expect((await post({ name: 'n'.repeat(512), size_bytes: 0, content_type: `a/${'b'.repeat(254)}` })).status).toBe(200);
      expect((await post({ ...ok, size_bytes: h.config.maxUploadBytes })).status).toBe(200);
    });

    it('reports every missing field, and malformed JSON', async () => {
      const r = await post({});
      expect(r.status).toBe(422);
      expect(r.json.detail.map((e: any) => [e.loc, e.type])).toEqual([
        [['body', 'name'], 'missing'],
        [['body', 'size_bytes'], 'missing'],
        [['body', 'content_type'], 'missing'],
      ]);
      const bad = await post('{"name": ');
      expect(bad.status).toBe(422);
      expect(bad.json.detail[0].type).toBe('json_invalid');
      expect((await h.api('POST', '/v1beta/files')).status).toBe(422);
    });

    it.each([
      ['limit=0', ['query', 'limit'], 'greater_than_equal'],
      ['limit=101', ['query', 'limit'], 'less_than_equal'],
      ['limit=abc', ['query', 'limit'], 'int_parsing'],
      ['source=FOO', ['query', 'source'], 'enum'],
      ['sort=id', ['query', 'sort'], 'enum'],
      ['order=up', ['query', 'order'], 'enum'],
      ['cursor=garbage', ['query', 'cursor'], 'value_error'],
      [`cursor=${Buffer.from('[1,2,3]').toString('base64url')}`, ['query', 'cursor'], 'value_error'],
      [
        `cursor=${Buffer.from(JSON.stringify(['size_bytes', 'desc', 'x', 'id'])).toString('base64url')}&sort=size_bytes`,
        ['query', 'cursor'],
        'value_error',
      ],
    ])('list: %s', async (qs, loc, type) => {
      const r = await h.api('GET', `/v1beta/files?${qs}`);
      expect(r.status).toBe(422);
      expect(r.json.detail).toEqual([expect.objectContaining({ loc, type })]);
    });

    it('list: a cursor only works with the sort and order it was issued for', async () => {
      await upload(h, 'c1.txt', Buffer.from('1'), 'text/plain');
      await upload(h, 'c2.txt', Buffer.from('2'), 'text/plain');
      const page = await h.api('GET', '/v1beta/files?limit=1&sort=name&order=asc');
      expect(page.json.next_cursor).toEqual(expect.any(String));
      const r = await h.api('GET', `/v1beta/files?limit=1&sort=name&order=desc&cursor=${page.json.next_cursor}`);
      expect(r.status).toBe(422);
      expect(r.json.detail[0]).toMatchObject({ loc: ['query', 'cursor'], msg: expect.stringMatching(/sort=name&order=asc/) });
    });
  });

  it('never answered 500 or logged an unhandled error', () => {
    const bad = h.logs.filter((l) => /"level":(50|60)/.test(l) || /"statusCode":5\d\d/.test(l));
    expect(bad).toEqual([]);
  });

  it('documents the routes in OpenAPI', async () => {
    const doc = (await h.api('GET', '/openapi.json', undefined, null)).json;
    for (const p of [
      '/v1beta/files',
      '/v1beta/files/{file_id}',
      '/v1beta/files/{file_id}/complete',
      '/v1beta/files/{file_id}/download_url',
      '/v1beta/files/{file_id}/download',
    ]) {
      expect(doc.paths[p], p).toBeDefined();
    }
    expect(doc.paths['/v1beta/files/{file_id}/download'].get.responses['307']).toBeDefined();
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/storage'))).toBe(false);
  });
});
