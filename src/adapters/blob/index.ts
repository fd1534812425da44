// Picks the blob store adapter from the config: the local filesystem under `${dataDir}/blobs`
// with URLs signed by a key derived from the master key (every process sharing the master key
// verifies them), or an S3 bucket with presigned URLs (BLOB_STORE=s3; the SDK loads only then).
import path from 'node:path';
import type { Config } from '../../config.js';
import type { BlobStore } from './port.js';
import { LocalBlobStore } from './local.js';

export async function createBlobStore(config: Config, signingKeys: readonly Buffer[]): Promise<BlobStore> {
  if (config.blobStore === 's3') {
    const { S3BlobStore } = await import('./s3.js');
    return new S3BlobStore({
      bucket: config.s3Bucket!,
      region: config.s3Region,
      endpoint: config.s3Endpoint,
      forcePathStyle: config.s3ForcePathStyle,
      conditionalWrites: config.s3ConditionalWrites,
      prefix: config.s3Prefix,
      credentials:
        config.s3AccessKeyId && config.s3SecretAccessKey
          ? { accessKeyId: config.s3AccessKeyId, secretAccessKey: config.s3SecretAccessKey }
          : null,
      spoolDir: path.join(config.dataDir, 'tmp'),
    });
  }
  return new LocalBlobStore({
    root: path.join(config.dataDir, 'blobs'),
    signingKeys,
    baseUrl: () => config.publicBaseUrl,
  });
}
