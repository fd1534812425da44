// Blob storage for file bytes. Adapters: local filesystem (default, our own signed URLs) or S3.
import type { Readable } from 'node:stream';

export interface BlobInfo {
  size: number;
  /** base64 of the big-endian CRC32C of the bytes. */
  crc32c: string;
  contentType: string;
}

export interface SignedUpload {
  url: string;
  /** Headers the client must send verbatim; covered by the signature. */
  headers: Record<string, string>;
}

export interface BlobStore {
  /** Stores a stream atomically; nothing is stored unless exactly `size` bytes arrive (when given). */
  put(key: string, body: Readable, opts: { contentType: string; size?: number }): Promise<BlobInfo>;
  head(key: string): Promise<BlobInfo | null>;
  get(key: string): Promise<Readable | null>;
  delete(key: string): Promise<void>;
  presignPut(key: string, opts: { contentType: string; size: number; expiresAt: Date }): Promise<SignedUpload>;
  /** Resolves when the store can take and serve bytes; rejects with the cause otherwise (readiness). */
  check(): Promise<void>;
  presignGet(key: string, opts: { expiresAt: Date; filename: string; contentType: string }): Promise<string>;
  /** Releases connections (S3); the store is not used afterwards. */
  close?(): void;
}
