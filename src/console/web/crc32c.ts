// CRC32C (Castagnoli) of bytes, as the API reports it: base64 of the big-endian 4 bytes.
// The console checks an upload against the service's figure with it.
const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32c(bytes: Uint8Array, prev = 0): number {
  let c = ~prev >>> 0;
  for (let i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

export function crc32cBase64(n: number): string {
  return btoa(String.fromCharCode((n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff));
}

/** Reads a File in slices so a large one does not sit in memory twice. */
export async function fileCrc32c(file: Blob): Promise<string> {
  let c = 0;
  const step = 4 * 1024 * 1024;
  for (let off = 0; off < file.size; off += step) c = crc32c(new Uint8Array(await file.slice(off, off + step).arrayBuffer()), c);
  return crc32cBase64(c);
}
