// A real S3 API server for tests: @20minutes/s3rver 4.0.4 (npm, pure JavaScript), on 127.0.0.1
// with a random port and a temp directory. It verifies SigV4 signatures (header and presigned:
// canonical request, signed headers, X-Amz-Expires) like S3. Where it differs from AWS
// (docs/files.md, "S3 blob store"): anonymous requests are allowed, conditional PUTs
// (If-None-Match) are not enforced, object checksums (x-amz-checksum-*) are neither verified nor
// returned, bucket-level requests of the AWS SDK (HeadBucket, ListObjects: path "/bucket/") fail
// its signature check, and query values with ' ( ) * ! are canonicalized wrongly.
import fs from 'node:fs';
import os from 'node:os';
import crypto from 'node:crypto';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export interface S3TestServer {
  endpoint: string;
  bucket: string;
  /** A key pair of its own (random secret, so tests can look for it in logs). */
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** The environment that points the service at this server. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startS3Server(bucket = 'connector-test'): Promise<S3TestServer> {
  const S3rver = require('@20minutes/s3rver');
  const credentials = {
    accessKeyId: `AK${crypto.randomBytes(8).toString('hex').toUpperCase()}`,
    secretAccessKey: crypto.randomBytes(24).toString('base64url'),
  };
  require('@20minutes/s3rver/lib/models/account').DUMMY_ACCOUNT.createKeyPair(credentials.accessKeyId, credentials.secretAccessKey);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: bucket }] });
  const addr: { port: number } = await server.run();
  const endpoint = `http://127.0.0.1:${addr.port}`;
  let closed = false;
  return {
    endpoint,
    bucket,
    credentials,
    env: {
      BLOB_STORE: 's3',
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    },
    async close() {
      if (closed) return;
      closed = true;
      // Keep-alive sockets of the SDK would hold close() open: end them with the server.
      server.httpServer?.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
