// CRC32C (Castagnoli) in the service's wire form: base64 of the 4 big-endian bytes
// ("123456789" → "4waSgw==", empty → "AAAAAA=="). Not zlib.crc32, which is another polynomial.
import { crc32c } from '@node-rs/crc32';

/** A running CRC32C: `update` each chunk in order, then `digest()`. */
export class Crc32c {
  private value = 0;
  update(chunk: Uint8Array): this {
    this.value = crc32c(chunk, this.value);
    return this;
  }
  digest(): string {
    return crc32cBase64(this.value);
  }
}

export function crc32cBase64(value: number): string {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(value >>> 0);
  return b.toString('base64');
}

/** CRC32C of a whole buffer, in wire form. */
export function crc32cOf(data: Uint8Array): string {
  return new Crc32c().update(data).digest();
}
