// Issue 9, finding 9 (capture side): one user holding every capture slot locked everyone out.
// With real capture sessions (a real Chromium): a user's parallel creates stop at
// CAPTURE_MAX_SESSIONS_PER_USER with a 429 that says so, another user still gets a session, a
// released session gives the quota back, and the process-wide CAPTURE_MAX_SESSIONS still holds.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { backends, startHarness, type Harness } from './helpers/harness.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });
const S = '/v1beta/capture_sessions';

describe.each(await backends())('capture sessions: per-user quota (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend, { CAPTURE_MAX_SESSIONS: '4', CAPTURE_WARM_CONTEXTS: '1' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("one user can't take every slot; another user still gets a session", async () => {
    expect(h.config.captureMaxSessionsPerUser).toBe(2); // the default: half of CAPTURE_MAX_SESSIONS
    const b = await h.newUser('second');
    const c = await h.newUser('third');
    // Four creates at once (the attack): two get a browser, two are told the per-user limit.
    const tries = await Promise.all(Array.from({ length: 4 }, () => h.api('POST', S, {})));
    const ok = tries.filter((r) => r.status === 200);
    const refused = tries.filter((r) => r.status === 429);
    expect([ok.length, refused.length]).toEqual([2, 2]);
    for (const r of refused) {
      expect(r.headers.get('retry-after')).toBe('5');
      expect(r.json).toEqual({ detail: expect.stringMatching(/per-user limit is 2 \(CAPTURE_MAX_SESSIONS_PER_USER\)/) });
    }
    // Another user is not locked out.
    const b1 = await h.api('POST', S, {}, b.key);
    expect(b1.status, b1.text).toBe(200);
    expect(b1.json.state).toBe('active');
    // Giving a session back gives the quota back.
    expect((await h.api('POST', `${S}/${ok[0].json.id}/abandon`)).status).toBe(200);
    const again = await h.api('POST', S, {});
    expect(again.status, again.text).toBe(200);
    // The process-wide limit still applies (A 2 + B 2 = 4): a third user gets the global 429.
    const b2 = await h.api('POST', S, {}, b.key);
    expect(b2.status, b2.text).toBe(200);
    const c1 = await h.api('POST', S, {}, c.key);
    expect(c1.status).toBe(429);
    expect(c1.json.detail).toMatch(/maximum 4/);
    for (const [id, key] of [
      [ok[1].json.id, h.key],
      [again.json.id, h.key],
      [b1.json.id, b.key],
      [b2.json.id, b.key],
    ]) {
      expect((await h.api('POST', `${S}/${id}/abandon`, undefined, key)).status).toBe(200);
    }
  });

  it('completing a session gives its quota back once the recording is written', async () => {
    const u = await h.newUser('completer');
    const s1 = await h.api('POST', S, {}, u.key);
    const s2 = await h.api('POST', S, {}, u.key);
    expect([s1.status, s2.status]).toEqual([200, 200]);
    expect((await h.api('POST', S, {}, u.key)).status).toBe(429);
    expect((await h.api('POST', `${S}/${s1.json.id}/complete`, undefined, u.key)).status).toBe(202);
    await expect
      .poll(async () => (await h.api('GET', `${S}/${s1.json.id}`, undefined, u.key)).json.state, { timeout: 30_000 })
      .toBe('completed');
    const s3 = await h.api('POST', S, {}, u.key);
    expect(s3.status, s3.text).toBe(200);
    for (const s of [s2, s3]) await h.api('POST', `${S}/${s.json.id}/abandon`, undefined, u.key);
  });
});
