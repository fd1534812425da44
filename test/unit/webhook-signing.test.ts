// Webhook signatures are Standard Webhooks signatures (checked with the reference library), and
// retry delays are exponential with full jitter under a cap.
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { backoffMs } from '../../src/modules/webhooks/dispatcher.js';
import { isSigningSecret, newSigningSecret, signedHeaders } from '../../src/modules/webhooks/signing.js';

describe('webhook signing', () => {
  it('produces headers the standardwebhooks library verifies, and only with the right secret and body', () => {
    const secret = newSigningSecret();
    expect(isSigningSecret(secret)).toBe(true);
    const body = JSON.stringify({ type: 'run.completed', timestamp: new Date().toISOString(), data: { id: 'r1', note: 'ünïcode ✓' } });
    const headers = signedHeaders(secret, 'evt_1', Math.floor(Date.now() / 1000), body);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    // The library's own signature is ours.
    expect(new Webhook(secret).sign('evt_1', new Date(Number(headers['webhook-timestamp']) * 1000), body)).toBe(
      headers['webhook-signature'],
    );
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'evt_2' })).toThrow();
  });

  it('backs off exponentially with full jitter, capped', () => {
    expect(backoffMs(1, 1000, 60_000, () => 0.999)).toBe(999);
    expect(backoffMs(3, 1000, 60_000, () => 0.999)).toBe(3996);
    expect(backoffMs(3, 1000, 60_000, () => 0)).toBe(0);
    expect(backoffMs(30, 1000, 60_000, () => 0.5)).toBe(30_000);
    expect(backoffMs(1000, 1000, 60_000, () => 0.5)).toBe(30_000);
    for (let n = 1; n < 12; n++) {
      const d = backoffMs(n, 50, 10_000);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThan(Math.min(10_000, 50 * 2 ** (n - 1)));
    }
  });
});
