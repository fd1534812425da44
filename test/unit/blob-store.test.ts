// Unit tests of the local blob store: key safety, CRC32C, exact-size streaming, signing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { crc32c } from '@node-rs/crc32';
import { BadKeyError, checkKey, resolveKey } from '../../src/adapters/blob/keys.js';
import { crc32cBase64, crc32cOf, crc32cUpdate } from '../../src/adapters/blob/crc32c.js';
import { LocalBlobStore } from '../../src/adapters/blob/local.js';
import { UploadSizeError } from '../../src/adapters/blob/errors.js';
import { SignedUrlError, UrlSigner } from '../../src/adapters/blob/signing.js';
import { contentDisposition } from '../../src/adapters/blob/content-disposition.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-blob-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const store = new LocalBlobStore({ root, signingKeys: crypto.randomBytes(32), baseUrl: () => 'http://127.0.0.1:1' });
const bytes = (s: string | Buffer) => Readable.from([Buffer.from(s)], { objectMode: false });

/** Every file under the root, dot-files (temps, sidecars) included. */
function listAll(dir = root): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listAll(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

describe('object keys', () => {
  it.each(['files/u/f', 'a', 'a.b/c_d-1', '0/1/2'])('accepts %s', (k) => {
    expect(() => checkKey(k)).not.toThrow();
    expect(resolveKey(root, k).startsWith(root + path.sep)).toBe(true);
  });

  it.each([
    '',
    '..',
    '../x',
    'a/../../x',
    'a/./b',
    '/etc/passwd',
    'a\\b',
    '..\\x',
    'a\0b',
    'a//b',
    'a/',
    '.hidden',
    'a/.b.meta.json',
    'a b',
    'x'.repeat(1025),
  ])('rejects %j', (k) => {
    expect(() => resolveKey(root, k)).toThrow(BadKeyError);
  });
});

describe('CRC32C', () => {
  it('matches the standard check values', () => {
    expect(crc32cOf(Buffer.from('123456789'))).toBe(crc32cBase64(0xe3069283));
    expect(crc32cOf(Buffer.from('123456789'))).toBe('4waSgw==');
    expect(crc32cOf(Buffer.alloc(0))).toBe('AAAAAA==');
    // RFC 3720 B.4: 32 bytes of zeros → 0x8A9136AA, of 0xFF → 0x62A8AB43.
    expect(crc32cOf(Buffer.alloc(32, 0))).toBe(crc32cBase64(0x8a9136aa));
    expect(crc32cOf(Buffer.alloc(32, 0xff))).toBe(crc32cBase64(0x62a8ab43));
  });

  it('is the same computed incrementally in any chunking', () => {
    const data = crypto.randomBytes(100_003);
    let crc = 0;
    for (let i = 0; i < data.length; i += 4096) crc = crc32cUpdate(crc, data.subarray(i, i + 4096));
    expect(crc32cBase64(crc)).toBe(crc32cOf(data));
  });
});

describe('LocalBlobStore', () => {
  it('stores, reports, serves and deletes bytes', async () => {
    const info = await store.put('t/one', bytes('hello'), { contentType: 'text/plain', size: 5 });
    expect(info).toEqual({ size: 5, crc32c: crc32cBase64(crc32c(Buffer.from('hello'))), contentType: 'text/plain' });
    expect(await store.head('t/one')).toEqual(info);
    const chunks: Buffer[] = [];
    for await (const c of (await store.get('t/one'))!) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('hello');
    await store.delete('t/one');
    expect(await store.head('t/one')).toBeNull();
    expect(await store.get('t/one')).toBeNull();
    await store.delete('t/one'); // deleting twice is fine
  });

  it('stores without a size when none is given (run outputs)', async () => {
    const info = await store.put('t/free', bytes('abc'), { contentType: 'application/octet-stream' });
    expect(info.size).toBe(3);
  });

  it.each([
    ['too many', 'hello!', true],
    ['too few', 'hell', false],
  ])('refuses %s bytes and leaves nothing behind', async (_what, body, tooLarge) => {
    const err = await store.put('t/exact', bytes(body), { contentType: 'text/plain', size: 5 }).catch((e) => e);
    expect(err).toBeInstanceOf(UploadSizeError);
    expect(err.tooLarge).toBe(tooLarge);
    expect(await store.head('t/exact')).toBeNull();
    expect(listAll().filter((f) => f.includes('exact'))).toEqual([]);
  });

  it('keeps the previous object when a replacement fails, and leaves no temp file on a stream error', async () => {
    await store.put('t/keep', bytes('12345'), { contentType: 'text/plain', size: 5 });
    const src = new PassThrough();
    const p = store.put('t/keep', src, { contentType: 'text/plain', size: 5 });
    src.write('ab');
    src.destroy(new Error('client went away'));
    await expect(p).rejects.toThrow('client went away');
    expect((await store.head('t/keep'))?.crc32c).toBe(crc32cOf(Buffer.from('12345')));
    expect(listAll().filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses unsafe keys in every operation', async () => {
    await expect(store.put('../x', bytes('a'), { contentType: 'a/b' })).rejects.toThrow(BadKeyError);
    await expect(store.head('../x')).rejects.toThrow(BadKeyError);
    await expect(store.get('/etc/passwd')).rejects.toThrow(BadKeyError);
    await expect(store.delete('a/../../x')).rejects.toThrow(BadKeyError);
    await expect(store.presignPut('..', { contentType: 'a/b', size: 1, expiresAt: new Date() })).rejects.toThrow(BadKeyError);
  });
});

describe('UrlSigner', () => {
  const key = crypto.randomBytes(32);
  let now = 1_000_000_000_000;
  const signer = new UrlSigner(key, () => now);
  const grant = { key: 'files/a/b', expires: now / 1000 + 60, contentType: 'text/plain', size: 5 };
  const query = (url: string) => Object.fromEntries(new URL(url).searchParams);

  it('round-trips PUT and GET grants', () => {
    expect(signer.verifyPut('files/a/b', query(signer.putUrl('http://h', grant)))).toEqual(grant);
    const g = { key: 'files/a/b', expires: grant.expires, filename: 'ä "x".txt', contentType: 'text/plain' };
    expect(signer.verifyGet('files/a/b', query(signer.getUrl('http://h', g)))).toEqual(g);
  });

  it.each([
    ['key', (q: Record<string, string>) => q, 'files/a/c'],
    ['expires', (q: Record<string, string>) => ({ ...q, expires: String(Number(q.expires) + 1) }), 'files/a/b'],
    ['size', (q: Record<string, string>) => ({ ...q, size: '6' }), 'files/a/b'],
    ['content type', (q: Record<string, string>) => ({ ...q, content_type: 'text/html' }), 'files/a/b'],
    [
      'signature',
      (q: Record<string, string>) => ({ ...q, signature: q.signature.slice(0, -2) + (q.signature.endsWith('AA') ? 'BB' : 'AA') }),
      'files/a/b',
    ],
  ])('refuses a tampered %s', (_what, tamper, k) => {
    const q = tamper(query(signer.putUrl('http://h', grant)));
    expect(() => signer.verifyPut(k, q)).toThrow(expect.objectContaining({ kind: 'signature' }));
  });

  it('refuses a URL signed with another key, a GET signature used for PUT, and malformed queries', () => {
    const other = new UrlSigner(crypto.randomBytes(32), () => now);
    expect(() => signer.verifyPut('files/a/b', query(other.putUrl('http://h', grant)))).toThrow(SignedUrlError);
    const g = query(
      signer.getUrl('http://h', { key: 'files/a/b', expires: grant.expires, filename: 'text/plain', contentType: 'text/plain' }),
    );
    expect(() => signer.verifyPut('files/a/b', { ...g, size: '5' })).toThrow(expect.objectContaining({ kind: 'signature' }));
    expect(() => signer.verifyPut('files/a/b', {})).toThrow(expect.objectContaining({ kind: 'malformed' }));
    expect(() => signer.verifyPut('files/a/b', { ...query(signer.putUrl('http://h', grant)), expires: '-1' })).toThrow(
      expect.objectContaining({ kind: 'malformed' }),
    );
    expect(() => signer.verifyPut('files/a/b', { ...query(signer.putUrl('http://h', grant)), size: ['1', '2'] as any })).toThrow(
      expect.objectContaining({ kind: 'malformed' }),
    );
  });

  it('a fleet mid-rotation: signed with the first key, accepted under any key of the ring', () => {
    const next = crypto.randomBytes(32);
    const rotated = new UrlSigner([next, key], () => now);
    expect(rotated.verifyPut('files/a/b', query(signer.putUrl('http://h', grant)))).toEqual(grant);
    expect(signer.verifyPut('files/a/b', query(new UrlSigner([key, next], () => now).putUrl('http://h', grant)))).toEqual(grant);
    // The old ring alone doesn't know the next key.
    expect(() => signer.verifyPut('files/a/b', query(rotated.putUrl('http://h', grant)))).toThrow(
      expect.objectContaining({ kind: 'signature' }),
    );
    expect(() => new UrlSigner([])).toThrow();
  });

  it('refuses a URL after its expiry', () => {
    const q = query(signer.putUrl('http://h', grant));
    now = grant.expires * 1000;
    expect(signer.verifyPut('files/a/b', q)).toEqual(grant);
    now += 1;
    expect(() => signer.verifyPut('files/a/b', q)).toThrow(expect.objectContaining({ kind: 'expired' }));
  });
});

describe('Content-Disposition', () => {
  it('gives an ASCII fallback and the exact UTF-8 name (RFC 6266)', () => {
    expect(contentDisposition('report 2026-11_v1.2.pdf')).toBe(`attachment; filename="report 2026-11_v1.2.pdf"`);
    expect(contentDisposition("it's (1).txt")).toBe(`attachment; filename="it's (1).txt"; filename*=UTF-8''it%27s%20%281%29.txt`);
    expect(contentDisposition('größe "1"\\.txt')).toBe(
      `attachment; filename="gr__e _1__.txt"; filename*=UTF-8''gr%C3%B6%C3%9Fe%20%221%22%5C.txt`,
    );
  });
});
