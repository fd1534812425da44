// Envelope encryption of one vault entry (pure functions, no storage).
//
// Blob (text, dot-separated, base64url parts):
//   v1.<kid>.<wrapIv>.<wrappedKey+tag>.<dataIv>.<ciphertext+tag>
// A fresh random 32-byte data key encrypts the value (AES-256-GCM); the master key <kid> wraps the
// data key (AES-256-GCM). Both use AAD naming the owner and the secret, so a blob copied onto
// another row (or another owner) does not decrypt. Rotation rewraps only the data key: the value's
// ciphertext never changes and the plaintext is never materialised.
import crypto from 'node:crypto';

export const BLOB_VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

export interface EnvelopeRef {
  ownerId: string;
  secretId: string;
}

/** Raised for any blob that cannot be opened. Its message never contains plaintext. */
export class VaultDecryptError extends Error {
  constructor(secretId: string, reason: string) {
    super(`vault entry ${secretId} could not be decrypted: ${reason}`);
    this.name = 'VaultDecryptError';
  }
}

// Length-prefixed fields so no choice of ids can make two different refs produce the same AAD.
function aad(purpose: 'wrap' | 'data', ref: EnvelopeRef, kid?: string): Buffer {
  const parts = ['connector-service/vault', BLOB_VERSION, purpose, ref.ownerId, ref.secretId, ...(kid !== undefined ? [kid] : [])];
  return Buffer.concat(
    parts.map((p) => {
      const b = Buffer.from(p, 'utf8');
      const len = Buffer.alloc(4);
      len.writeUInt32BE(b.length);
      return Buffer.concat([len, b]);
    }),
  );
}

function gcmEncrypt(key: Buffer, plaintext: Buffer, ad: Buffer): { iv: Buffer; sealed: Buffer } {
  const iv = crypto.randomBytes(IV_BYTES);
  const c = crypto.createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  c.setAAD(ad);
  const sealed = Buffer.concat([c.update(plaintext), c.final(), c.getAuthTag()]);
  return { iv, sealed };
}

function gcmDecrypt(key: Buffer, iv: Buffer, sealed: Buffer, ad: Buffer): Buffer {
  if (iv.length !== IV_BYTES || sealed.length < TAG_BYTES) throw new Error('malformed');
  const d = crypto.createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  d.setAAD(ad);
  d.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  return Buffer.concat([d.update(sealed.subarray(0, sealed.length - TAG_BYTES)), d.final()]);
}

const b64 = (b: Buffer) => b.toString('base64url');
const unb64 = (s: string) => Buffer.from(s, 'base64url');

interface Parsed {
  kid: string;
  wrapIv: Buffer;
  wrapped: Buffer;
  dataIv: Buffer;
  ciphertext: Buffer;
}

function parse(blob: string, secretId: string): Parsed {
  const p = blob.split('.');
  if (p.length !== 6 || p[0] !== BLOB_VERSION) throw new VaultDecryptError(secretId, 'unknown blob format');
  return { kid: p[1], wrapIv: unb64(p[2]), wrapped: unb64(p[3]), dataIv: unb64(p[4]), ciphertext: unb64(p[5]) };
}

function format(x: Parsed): string {
  return [BLOB_VERSION, x.kid, b64(x.wrapIv), b64(x.wrapped), b64(x.dataIv), b64(x.ciphertext)].join('.');
}

/** The master key id recorded in a blob (no decryption). */
export function blobKid(blob: string): string {
  return blob.split('.')[1] ?? '';
}

export function seal(plaintext: Buffer, ref: EnvelopeRef, kid: string, masterKey: Buffer): string {
  if (kid.includes('.')) throw new Error('master key id must not contain "."');
  const dataKey = crypto.randomBytes(KEY_BYTES);
  try {
    const data = gcmEncrypt(dataKey, plaintext, aad('data', ref));
    const wrap = gcmEncrypt(masterKey, dataKey, aad('wrap', ref, kid));
    return format({ kid, wrapIv: wrap.iv, wrapped: wrap.sealed, dataIv: data.iv, ciphertext: data.sealed });
  } finally {
    dataKey.fill(0);
  }
}

type KeyLookup = (kid: string) => Buffer | undefined;

function unwrap(x: Parsed, ref: EnvelopeRef, keyFor: KeyLookup): Buffer {
  const master = keyFor(x.kid);
  if (!master) throw new VaultDecryptError(ref.secretId, `master key ${x.kid} is not in the keyring`);
  try {
    return gcmDecrypt(master, x.wrapIv, x.wrapped, aad('wrap', ref, x.kid));
  } catch {
    throw new VaultDecryptError(ref.secretId, 'data key authentication failed (wrong key, owner or id, or tampered)');
  }
}

export function open(blob: string, ref: EnvelopeRef, keyFor: KeyLookup): Buffer {
  const x = parse(blob, ref.secretId);
  const dataKey = unwrap(x, ref, keyFor);
  try {
    return gcmDecrypt(dataKey, x.dataIv, x.ciphertext, aad('data', ref));
  } catch {
    throw new VaultDecryptError(ref.secretId, 'value authentication failed (tampered)');
  } finally {
    dataKey.fill(0);
  }
}

/** Re-wraps the blob's data key under (kid, masterKey); the value ciphertext is kept as is. */
export function rewrap(blob: string, ref: EnvelopeRef, keyFor: KeyLookup, kid: string, masterKey: Buffer): string {
  const x = parse(blob, ref.secretId);
  const dataKey = unwrap(x, ref, keyFor);
  try {
    const wrap = gcmEncrypt(masterKey, dataKey, aad('wrap', ref, kid));
    return format({ ...x, kid, wrapIv: wrap.iv, wrapped: wrap.sealed });
  } finally {
    dataKey.fill(0);
  }
}
