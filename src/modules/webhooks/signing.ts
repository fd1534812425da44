// Standard Webhooks signatures (https://www.standardwebhooks.com): a secret is `whsec_` + base64
// of random bytes; each attempt is signed over "<webhook-id>.<webhook-timestamp>.<body>" with
// HMAC-SHA256 keyed by the base64-decoded part, sent as `webhook-signature: v1,<base64>`.
// Receivers verify with any Standard Webhooks library (`standardwebhooks` on npm, `svix`, …).
import crypto from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

export function newSigningSecret(): string {
  return SECRET_PREFIX + crypto.randomBytes(SECRET_BYTES).toString('base64');
}

export function isSigningSecret(s: string): boolean {
  return s.startsWith(SECRET_PREFIX) && Buffer.from(s.slice(SECRET_PREFIX.length), 'base64').length === SECRET_BYTES;
}

/** The three headers of one attempt; `timestampS` is the attempt's time in Unix seconds. */
export function signedHeaders(secret: string, id: string, timestampS: number, body: string): Record<string, string> {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const mac = crypto.createHmac('sha256', key).update(`${id}.${timestampS}.${body}`).digest('base64');
  key.fill(0);
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampS), 'webhook-signature': `v1,${mac}` };
}
