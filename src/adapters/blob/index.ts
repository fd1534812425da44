// Picks the blob store adapter from the config. Today: the local filesystem under
// `${dataDir}/blobs` with URLs signed by a key derived from the master key, so every
// process sharing the master key can verify them.
import path from 'node:path';
import type { Config } from '../../config.js';
import type { BlobStore } from './port.js';
import { LocalBlobStore } from './local.js';

export function createBlobStore(config: Config, signingKey: Buffer): BlobStore {
  return new LocalBlobStore({
    root: path.join(config.dataDir, 'blobs'),
    signingKey,
    baseUrl: () => config.publicBaseUrl,
  });
}
