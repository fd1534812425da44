// CRC32C (Castagnoli) through the native @node-rs/crc32 — never zlib.crc32, which is the
// IEEE polynomial. The wire form (File.crc32c, as GCS reports it) is base64 of the
// 4-byte big-endian value: "123456789" → 0xE3069283 → "4waSgw==", empty → "AAAAAA==".
import { crc32c } from '@node-rs/crc32';

/** Continues a running CRC32C over one more chunk (start with 0). */
export function crc32cUpdate(prev: number, chunk: Uint8Array): number {
  return crc32c(chunk, prev);
}

export function crc32cBase64(value: number): string {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(value >>> 0);
  return b.toString('base64');
}

/** CRC32C of a whole buffer in wire form. */
export function crc32cOf(data: Uint8Array): string {
  return crc32cBase64(crc32c(data, 0));
}
