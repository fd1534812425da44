// Local filesystem BlobStore under `${dataDir}/blobs`, with our own signed URLs.
//
// Layout for key "a/b":  <root>/a/b (bytes), <root>/a/.b.meta.json (size, crc32c,
// contentType), <root>/a/.b.<random>.tmp while an upload streams. Dot-names cannot be keys
// (see keys.ts), so they never collide with objects.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobInfo, BlobStore, SignedUpload } from './port.js';
import { resolveKey } from './keys.js';
import { crc32cBase64, crc32cUpdate } from './crc32c.js';
import { UploadSizeError } from './errors.js';
import { toUnixSeconds, type GetGrant, type PutGrant, UrlSigner } from './signing.js';

export interface LocalBlobStoreOptions {
  root: string;
  /** URL signing keys, current first (see UrlSigner). */
  signingKeys: Buffer | readonly Buffer[];
  /** Read at call time: tests (and proxies) learn the public address only after listen. */
  baseUrl: () => string;
  now?: () => number;
}

const isMissing = (e: unknown) => (e as NodeJS.ErrnoException)?.code === 'ENOENT';

export class LocalBlobStore implements BlobStore {
  readonly root: string;
  readonly signer: UrlSigner;
  private readonly baseUrl: () => string;
  /** Per-key queue: commit, head and delete of one key never interleave (data + sidecar). */
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(opts: LocalBlobStoreOptions) {
    this.root = path.resolve(opts.root);
    this.signer = new UrlSigner(opts.signingKeys, opts.now);
    this.baseUrl = opts.baseUrl;
  }

  async check(): Promise<void> {
    await fsp.mkdir(this.root, { recursive: true });
    await fsp.access(this.root, fs.constants.R_OK | fs.constants.W_OK);
  }

  private paths(key: string) {
    const file = resolveKey(this.root, key);
    const dir = path.dirname(file);
    const base = path.basename(file);
    return {
      file,
      dir,
      meta: path.join(dir, `.${base}.meta.json`),
      tmp: () => path.join(dir, `.${base}.${crypto.randomBytes(8).toString('hex')}.tmp`),
    };
  }

  private async locked<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(key) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => {});
    this.locks.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(key) === tail) this.locks.delete(key);
    }
  }

  async put(key: string, body: Readable, opts: { contentType: string; size?: number }): Promise<BlobInfo> {
    // An error the source emits before pipeline() listens (e.g. a client gone during mkdir)
    // must not be an uncaught exception; pipeline still sees the stream as errored.
    body.on('error', () => {});
    const p = this.paths(key);
    await fsp.mkdir(p.dir, { recursive: true });
    const tmp = p.tmp();
    const expected = opts.size;
    let size = 0;
    let crc = 0;
    const count = new Transform({
      transform(chunk: Buffer | string, _enc, cb) {
        const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        size += buf.length;
        // Stop at the first byte too many: nothing beyond the signed size touches the disk.
        if (expected !== undefined && size > expected) return cb(new UploadSizeError(expected, size, true));
        crc = crc32cUpdate(crc, buf);
        cb(null, buf);
      },
    });
    // flush: fsync before close, so a renamed file is a complete file even after a crash.
    const out = fs.createWriteStream(tmp, { flags: 'wx', flush: true });
    try {
      await pipeline(body, count, out);
      if (expected !== undefined && size !== expected) throw new UploadSizeError(expected, size, false);
      const info: BlobInfo = { size, crc32c: crc32cBase64(crc), contentType: opts.contentType };
      await this.locked(key, async () => {
        await fsp.rename(tmp, p.file);
        await writeAtomic(p.meta, JSON.stringify(info));
      });
      return info;
    } catch (e) {
      // A source that fails early can beat the file's open: wait until the stream is closed,
      // or the temp file appears after we removed it.
      if (!out.closed) await new Promise<void>((r) => out.once('close', () => r()));
      await fsp.rm(tmp, { force: true });
      throw e;
    }
  }

  async head(key: string): Promise<BlobInfo | null> {
    const p = this.paths(key);
    return this.locked(key, async () => {
      try {
        const [raw, st] = await Promise.all([fsp.readFile(p.meta, 'utf8'), fsp.stat(p.file)]);
        const info = JSON.parse(raw) as BlobInfo;
        // Bytes without a matching sidecar (a crash between the two renames) count as absent.
        return st.size === info.size ? { size: info.size, crc32c: info.crc32c, contentType: info.contentType } : null;
      } catch (e) {
        if (isMissing(e)) return null;
        throw e;
      }
    });
  }

  async get(key: string): Promise<Readable | null> {
    const p = this.paths(key);
    try {
      // Opening first means a concurrent delete cannot break a download already started.
      const fh = await fsp.open(p.file, 'r');
      return fh.createReadStream();
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    const p = this.paths(key);
    await this.locked(key, async () => {
      await fsp.rm(p.meta, { force: true });
      await fsp.rm(p.file, { force: true });
    });
  }

  async presignPut(key: string, opts: { contentType: string; size: number; expiresAt: Date }): Promise<SignedUpload> {
    resolveKey(this.root, key);
    const grant: PutGrant = { key, expires: toUnixSeconds(opts.expiresAt), contentType: opts.contentType, size: opts.size };
    return {
      url: this.signer.putUrl(this.baseUrl(), grant),
      headers: { 'Content-Type': opts.contentType, 'Content-Length': String(opts.size) },
    };
  }

  async presignGet(key: string, opts: { expiresAt: Date; filename: string; contentType: string }): Promise<string> {
    resolveKey(this.root, key);
    const grant: GetGrant = { key, expires: toUnixSeconds(opts.expiresAt), filename: opts.filename, contentType: opts.contentType };
    return this.signer.getUrl(this.baseUrl(), grant);
  }
}

async function writeAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}.${crypto.randomBytes(6).toString('hex')}.tmp`;
  try {
    await fsp.writeFile(tmp, text, { flush: true });
    await fsp.rename(tmp, file);
  } catch (e) {
    await fsp.rm(tmp, { force: true });
    throw e;
  }
}
