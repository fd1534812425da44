// Serves the local blob store's signed URLs (see signing.ts). No bearer auth: the signature
// is the authorization. Every refusal is a {"detail"} 4xx and leaves nothing stored.
import { PassThrough } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { FilesService } from './service.js';
import type { BlobStore } from '../../adapters/blob/port.js';
import { HttpError } from '../../http/errors.js';
import { bodyIdleError, watchIdle } from '../../http/body-guard.js';
import { LocalBlobStore } from '../../adapters/blob/local.js';
import { UploadSizeError } from '../../adapters/blob/errors.js';
import { contentDisposition } from '../../adapters/blob/content-disposition.js';
import { BadKeyError } from '../../adapters/blob/keys.js';
import { STORAGE_PREFIX, SignedUrlError } from '../../adapters/blob/signing.js';

class ClientGoneError extends Error {}

const STATUS: Record<SignedUrlError['kind'], number> = { malformed: 400, signature: 403, expired: 403 };

function refuse(e: unknown): never {
  if (e instanceof SignedUrlError) throw new HttpError(STATUS[e.kind], e.message);
  if (e instanceof BadKeyError) throw new HttpError(400, e.message);
  if (e instanceof UploadSizeError) throw new HttpError(e.tooLarge ? 413 : 400, e.message);
  if (e instanceof ClientGoneError) throw new HttpError(400, e.message);
  throw e;
}

/**
 * Feeds the request into a PassThrough the store may destroy on a size error without
 * destroying the socket, so the client still reads our 413/400. A client that disconnects
 * early ends the upload with an error (never a short, "complete" file); one that goes silent
 * for `idleS` seconds gets a 408 the same way (its temp file is removed by the store).
 */
function detachBody(raw: IncomingMessage, idleS: number): PassThrough {
  const body = new PassThrough();
  watchIdle(raw, idleS * 1000, () => body.destroy(bodyIdleError(idleS)));
  const gone = (why: string) => body.destroy(new ClientGoneError(why));
  // The client may have vanished while we checked the file row: then no event is coming.
  if (raw.destroyed && !raw.readableEnded) {
    gone('Client disconnected before the upload finished');
    return body;
  }
  // Any error of the incoming request (ECONNRESET "aborted", …) means the client is gone.
  raw.on('error', (e) => gone(`Client connection failed during the upload: ${e.message}`));
  raw.on('close', () => {
    if (!raw.readableEnded) gone('Client disconnected before the upload finished');
  });
  raw.pipe(body);
  return body;
}

const route = `${STORAGE_PREFIX}*`;

export const blobRoutes: FastifyPluginAsync<{ store: BlobStore; files: FilesService; config: Config }> = async (
  app,
  { store, files, config },
) => {
  if (!(store instanceof LocalBlobStore)) return; // other adapters sign URLs of their own service
  const signer = store.signer;

  // The upload is raw bytes of whatever type was signed: hand the stream over unparsed.
  // This plugin is encapsulated, so the JSON parser of the API is untouched.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));

  const keyOf = (params: unknown) => (params as Record<string, string>)['*'] ?? '';
  const { maxConcurrentUploads, maxConcurrentUploadsPerUser, httpBodyIdleTimeoutS } = config;
  /** Uploads streaming now (each holds a socket and a temp file descriptor), in all and per user. */
  let uploading = 0;
  const perUser = new Map<string, number>();

  app.put(route, { schema: { hide: true } as object }, async (req, reply: FastifyReply) => {
    const key = keyOf(req.params);
    let grant;
    try {
      grant = signer.verifyPut(key, req.query as Record<string, unknown>);
    } catch (e) {
      refuse(e);
    }
    const ct = req.headers['content-type'];
    if (ct !== grant.contentType) {
      throw new HttpError(
        400,
        `Content-Type must be exactly ${JSON.stringify(grant.contentType)} as signed (got ${JSON.stringify(ct ?? null)})`,
      );
    }
    const declared = req.headers['content-length'];
    if (declared !== undefined) {
      const n = Number(declared);
      if (n > grant.size) throw new HttpError(413, `Content-Length ${declared} is larger than the signed size of ${grant.size} bytes`);
      if (n !== grant.size) throw new HttpError(400, `Content-Length must be exactly ${grant.size} as signed (got ${declared})`);
    }
    // Before any I/O: at the cap the body is not read and the connection is closed after the 503.
    const owner = files.uploadOwner(key) ?? key;
    const mine = perUser.get(owner) ?? 0;
    if (mine >= maxConcurrentUploadsPerUser) {
      throw new HttpError(429, `Too many uploads of yours in progress (${maxConcurrentUploadsPerUser}); finish one first`, {
        'retry-after': '5',
        connection: 'close',
      });
    }
    if (uploading >= maxConcurrentUploads) {
      throw new HttpError(503, `Too many uploads in progress on this server (${maxConcurrentUploads}); retry shortly`, {
        'retry-after': '5',
        connection: 'close',
      });
    }
    uploading++;
    perUser.set(owner, mine + 1);
    try {
      // A signed PUT only fills a pending file: once completed or deleted the URL is dead, so
      // the bytes behind a recorded crc32c never change and deleted files don't come back.
      if (!(await files.acceptsUpload(key))) {
        throw new HttpError(409, 'This upload is closed: the file was already completed or deleted');
      }
      return await receive(req, reply, key, grant);
    } finally {
      uploading--;
      const left = (perUser.get(owner) ?? 1) - 1;
      if (left > 0) perUser.set(owner, left);
      else perUser.delete(owner);
    }
  });

  async function receive(req: FastifyRequest, reply: FastifyReply, key: string, grant: { contentType: string; size: number }) {
    const raw = req.raw;
    const body = req.body === undefined ? emptyBody() : detachBody(raw, httpBodyIdleTimeoutS);
    try {
      const info = await store.put(key, body, { contentType: grant.contentType, size: grant.size });
      return reply.code(200).send({ size_bytes: info.size, crc32c: info.crc32c });
    } catch (e) {
      req.log.info({ key, reason: (e as Error).message }, 'upload refused, nothing stored');
      // Drop whatever the client still sends and close the connection after answering.
      raw.unpipe(body);
      raw.resume();
      reply.header('connection', 'close');
      refuse(e);
    }
  }

  app.get(route, { schema: { hide: true } as object }, async (req, reply) => {
    const key = keyOf(req.params);
    let grant;
    try {
      grant = signer.verifyGet(key, req.query as Record<string, unknown>);
    } catch (e) {
      refuse(e);
    }
    const info = await store.head(key);
    const stream = info && (await store.get(key));
    if (!info || !stream) throw new HttpError(404, 'Object not found');
    // A client that stops reading would hold the socket and the file open for ever (the
    // server has no socket idle timeout: sync runs may be silent for long). Once the socket
    // has not moved for the body idle timeout, it is closed; after the response, no timeout.
    const socket = req.raw.socket;
    socket.setTimeout(httpBodyIdleTimeoutS * 1000, () => socket.destroy());
    reply.raw.once('close', () => socket.setTimeout(0));
    return reply
      .headers({
        'content-type': grant.contentType,
        'content-length': String(info.size),
        'content-disposition': contentDisposition(grant.filename),
        // User-supplied types must not turn our origin into a web host for their content.
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
        'cache-control': 'private, no-store',
      })
      .send(stream);
  });
};

function emptyBody(): PassThrough {
  const s = new PassThrough();
  s.end();
  return s;
}
