// S3 (or S3-compatible) BlobStore with the AWS SDK v3. Clients upload to and download from the
// bucket directly through presigned URLs; this process only signs, checks and streams its own
// writes (run outputs, recordings).
//
// What a presigned PUT enforces: Content-Type and Content-Length are SIGNED headers (a different
// size or type changes the canonical request, S3 answers 403 SignatureDoesNotMatch), and so is
// `If-None-Match: *` (unless S3_CONDITIONAL_WRITES=false), so the URL creates the object once and
// can never replace bytes whose CRC32C `complete` recorded. The CRC32C itself cannot be signed in: it is unknown when the URL is made.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';
import { Transform, type Readable, pipeline as pipe } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  type HeadObjectCommandOutput,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { BlobInfo, BlobStore, SignedUpload } from './port.js';
import { checkKey } from './keys.js';
import { crc32cBase64, crc32cUpdate } from './crc32c.js';
import { UploadSizeError } from './errors.js';
import { contentDisposition } from './content-disposition.js';

export interface S3BlobStoreOptions {
  bucket: string;
  region: string;
  /** S3-compatible server; unset = AWS. */
  endpoint?: string | null;
  forcePathStyle?: boolean;
  /** Sign `If-None-Match: *` into upload URLs (default true). */
  conditionalWrites?: boolean;
  /** Prepended to every key ("" or ending in "/"). */
  prefix?: string;
  /** Unset = the SDK's default credential chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string } | null;
  /** Where a stream of unknown size is spooled to learn its size (S3 needs it up front). */
  spoolDir: string;
}

/** The SDK's error shapes: `name` is the S3 error code (HEAD answers carry none, only the status). */
interface SdkError {
  name?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

const isMissing = (e: unknown) => {
  const err = e as SdkError;
  return err?.name === 'NoSuchKey' || err?.name === 'NotFound' || err?.$metadata?.httpStatusCode === 404;
};

/** A presigned URL lives from its signing second; the SPEC's expiry is whole seconds too. */
const unixNow = () => Math.floor(Date.now() / 1000);

export class S3BlobStore implements BlobStore {
  readonly client: S3Client;
  readonly bucket: string;
  private readonly prefix: string;
  private readonly spoolDir: string;
  private readonly conditionalWrites: boolean;

  constructor(opts: S3BlobStoreOptions) {
    this.bucket = opts.bucket;
    const p = (opts.prefix ?? '').replace(/^\/+/, '');
    this.prefix = p && !p.endsWith('/') ? `${p}/` : p;
    this.spoolDir = opts.spoolDir;
    this.conditionalWrites = opts.conditionalWrites ?? true;
    const config: S3ClientConfig = {
      region: opts.region,
      forcePathStyle: !!opts.forcePathStyle,
      // The SDK's default adds CRC32 trailers to streamed PUTs (aws-chunked) and a checksum of an
      // empty body to presigned PUTs; many S3-compatible servers refuse the first, and the second
      // would make every presigned upload fail. We compute CRC32C ourselves.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // Without a logger the SDK warns on the console (e.g. of a PUT we aborted); every error
      // reaches the caller anyway.
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {} },
    };
    if (opts.endpoint) config.endpoint = opts.endpoint;
    if (opts.credentials) config.credentials = opts.credentials;
    this.client = new S3Client(config);
  }

  private objectKey(key: string): string {
    checkKey(key);
    return this.prefix + key;
  }

  /**
   * Readiness: a GET of a key that never exists (dot-names are not valid keys) must answer
   * NoSuchKey — endpoint reachable, credentials accepted, bucket present, our prefix readable.
   * (Not HeadBucket: a HEAD carries no error code to tell a missing bucket from bad credentials.)
   */
  async check(): Promise<void> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: `${this.prefix}.readyz-probe` }), {
        abortSignal: AbortSignal.timeout(2500),
      });
      (r.Body as Readable | undefined)?.destroy();
    } catch (e) {
      if ((e as SdkError).name === 'NoSuchKey') return;
      throw new Error(`S3 bucket ${JSON.stringify(this.bucket)}: ${describe(e)}`);
    }
  }

  async presignPut(key: string, opts: { contentType: string; size: number; expiresAt: Date }): Promise<SignedUpload> {
    const once = this.conditionalWrites;
    const headers: Record<string, string> = { 'Content-Type': opts.contentType, 'Content-Length': String(opts.size) };
    if (once) headers['If-None-Match'] = '*';
    const cmd = new PutObjectCommand({
      Bucket: this.bucket,
      Key: this.objectKey(key),
      ContentType: opts.contentType,
      ContentLength: opts.size,
      IfNoneMatch: once ? '*' : undefined,
    });
    // Signed, so enforced by S3 (the presigner leaves content-type unsigned unless told), and
    // kept as headers the client sends, never hoisted into the query string.
    const signed = new Set(['content-type', 'content-length', ...(once ? ['if-none-match'] : [])]);
    const url = await getSignedUrl(this.client, cmd, {
      ...this.validity(opts.expiresAt),
      signableHeaders: signed,
      unhoistableHeaders: signed,
    });
    return { url, headers };
  }

  async presignGet(key: string, opts: { expiresAt: Date; filename: string; contentType: string }): Promise<string> {
    const cmd = new GetObjectCommand({
      Bucket: this.bucket,
      Key: this.objectKey(key),
      ResponseContentDisposition: contentDisposition(opts.filename),
      ResponseContentType: opts.contentType,
    });
    return getSignedUrl(this.client, cmd, this.validity(opts.expiresAt));
  }

  /** Signing second + X-Amz-Expires = expiresAt exactly (the expires_at the API reports). */
  private validity(expiresAt: Date): { signingDate: Date; expiresIn: number } {
    const now = unixNow();
    return { signingDate: new Date(now * 1000), expiresIn: Math.max(1, Math.floor(expiresAt.getTime() / 1000) - now) };
  }

  /**
   * Size, type and CRC32C of a stored object. The CRC32C is S3's own full-object checksum when
   * the object has one (stored with x-amz-checksum-crc32c); otherwise — presigned uploads, whose
   * checksum could not be signed in — the object is read once and the CRC32C computed here.
   */
  async head(key: string): Promise<BlobInfo | null> {
    const Key = this.objectKey(key);
    let h: HeadObjectCommandOutput;
    try {
      h = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key, ChecksumMode: 'ENABLED' }));
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
    const size = Number(h.ContentLength ?? 0);
    const contentType = h.ContentType ?? 'application/octet-stream';
    if (h.ChecksumCRC32C && h.ChecksumType !== 'COMPOSITE') return { size, crc32c: h.ChecksumCRC32C, contentType };
    // IfMatch: the bytes read are the bytes HEAD described.
    let body: Readable;
    try {
      const g = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key, IfMatch: h.ETag }));
      body = g.Body as Readable;
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
    let read = 0;
    let crc = 0;
    for await (const chunk of body) {
      read += (chunk as Buffer).length;
      crc = crc32cUpdate(crc, chunk as Buffer);
    }
    if (read !== size) throw new Error(`S3 object ${Key} sent ${read} bytes, its HEAD said ${size}`);
    return { size, crc32c: crc32cBase64(crc), contentType };
  }

  async get(key: string): Promise<Readable | null> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
      return r.Body as Readable;
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
  }

  /**
   * Streams `body` into one PutObject. With a size, exactly that many bytes must arrive: one byte
   * too many or an early end fails the stream, the request is aborted and nothing is kept.
   * Without one, the body is spooled to a temp file first (S3 needs the
   * Content-Length up front) and then sent with its CRC32C, which S3 verifies.
   */
  async put(key: string, body: Readable, opts: { contentType: string; size?: number }): Promise<BlobInfo> {
    const Key = this.objectKey(key);
    // An error the source emits before the SDK reads it must not be an uncaught exception.
    body.on('error', () => {});
    if (opts.size === undefined) return this.putSpooled(Key, body, opts.contentType);
    const expected = opts.size;
    let size = 0;
    let crc = 0;
    let refused: UploadSizeError | null = null;
    const count = new Transform({
      transform(chunk: Buffer | string, _enc, cb) {
        const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        size += buf.length;
        if (size > expected) return cb((refused = new UploadSizeError(expected, size, true)));
        crc = crc32cUpdate(crc, buf);
        cb(null, buf);
      },
      flush(cb) {
        cb(size === expected ? null : (refused = new UploadSizeError(expected, size, false)));
      },
    });
    // A failed body does not end the SDK's request by itself (the server would wait for the
    // missing bytes): abort it, so the connection is dropped and nothing is stored.
    const abort = new AbortController();
    const stream = pipe(body, count, (e) => e && abort.abort(e));
    try {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key, Body: stream, ContentLength: expected, ContentType: opts.contentType }),
        { abortSignal: abort.signal },
      );
    } catch (e) {
      // S3 keeps nothing of an aborted PUT; some S3-compatible servers keep what arrived. Our keys
      // are never written twice, so removing the key cannot remove anything good.
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key })).catch(() => {});
      throw refused ?? e;
    }
    if (refused) throw refused;
    return { size, crc32c: crc32cBase64(crc), contentType: opts.contentType };
  }

  private async putSpooled(Key: string, body: Readable, contentType: string): Promise<BlobInfo> {
    await fsp.mkdir(this.spoolDir, { recursive: true, mode: 0o700 });
    const tmp = path.join(this.spoolDir, `s3-put-${crypto.randomBytes(8).toString('hex')}.tmp`);
    try {
      let size = 0;
      let crc = 0;
      const count = new Transform({
        transform(chunk: Buffer, _enc, cb) {
          size += chunk.length;
          crc = crc32cUpdate(crc, chunk);
          cb(null, chunk);
        },
      });
      await pipeline(body, count, fs.createWriteStream(tmp, { flags: 'wx', mode: 0o600 }));
      const crc32c = crc32cBase64(crc);
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key,
          Body: fs.createReadStream(tmp),
          ContentLength: size,
          ContentType: contentType,
          ChecksumCRC32C: crc32c,
        }),
      );
      return { size, crc32c, contentType };
    } finally {
      await fsp.rm(tmp, { force: true });
    }
  }

  close(): void {
    this.client.destroy();
  }
}

/** An SDK error as one line: the S3 error code (or HTTP status of a HEAD) and the message. */
function describe(e: unknown): string {
  const err = e as SdkError & { code?: string };
  const status = err?.$metadata?.httpStatusCode;
  const name = err?.name && err.name !== 'Error' && !/^Unknown$/.test(err.name) ? err.name : (err?.code ?? '');
  const msg = err?.message && err.message !== err.name && err.message !== 'UnknownError' ? err.message : '';
  return [status ? `HTTP ${status}` : '', name, msg].filter(Boolean).join(': ') || String(e);
}
