// Issue 9, finding 11 (API conformance): SessionCookie.domain is optional. A session created
// with cookies without a domain and without start_url succeeds; the cookies are host-only for
// the first site the session navigates to and reach it on that very first request (real
// Chromium, the demo site, navigation through the live view's WebSocket protocol).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startDemoSite, type DemoSite } from '../examples/demo-site/server.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { wsViewer } from './helpers/live-view.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

const S = '/v1beta/capture_sessions';

describe.each(await backends())('SessionCookie without domain (%s)', (backend) => {
  let h: Harness;
  let site: DemoSite;
  beforeAll(async () => {
    site = await startDemoSite();
    h = await startHarness(backend, { CAPTURE_MAX_SESSIONS: '2', CAPTURE_WARM_CONTEXTS: '1' });
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });

  it('is accepted without start_url and set, host-only, for the first site navigated to', async () => {
    const s = await h.api('POST', S, {
      cookies: [
        { name: 'pref', value: 'dark' },
        { name: 'lang', value: 'de', domain: null, path: null, secure: false, http_only: true },
      ],
    });
    expect(s.status, s.text).toBe(200);
    const v = await wsViewer(s.json.iframe_url);
    const shown = (u: string) =>
      expect.poll(() => v.msgs.some((m) => typeof m.url === 'string' && m.url.startsWith(u)), { timeout: 20_000 }).toBe(true);
    v.send({ t: 'navigate', url: `${site.url}/login?first=1` });
    await shown(`${site.url}/login`);
    // Another host (same server): the cookies were host-only, they do not go there.
    const other = `http://localhost:${site.port}`;
    v.send({ t: 'navigate', url: `${other}/login?second=1` });
    await shown(`${other}/login`);
    v.ws.close();

    expect((await h.api('POST', `${S}/${s.json.id}/complete`)).status).toBe(202);
    await expect.poll(async () => (await h.api('GET', `${S}/${s.json.id}`)).json.state, { timeout: 20_000 }).toBe('completed');
    const log = (await h.api('GET', `${S}/${s.json.id}/recording`)).json.log;
    const cookieOf = (url: string) => {
      const e = log.entries.find((x: any) => x.request.url === url);
      expect(e, url).toBeDefined();
      return e.request.headers.find((x: any) => x.name.toLowerCase() === 'cookie')?.value ?? '';
    };
    const first = cookieOf(`${site.url}/login?first=1`);
    expect(first).toContain('pref=dark');
    expect(first).toContain('lang=de');
    expect(cookieOf(`${other}/login?second=1`)).not.toContain('pref=dark');
    expect(log._capture.initial_cookies).toEqual([
      { name: 'pref', domain: null, path: null },
      { name: 'lang', domain: null, path: null },
    ]);
  });

  it('the task-based start-manual-session accepts cookies without domain too', async () => {
    const t = await h.api('POST', '/v1beta/tasks', { display_name: 'look', task: 'look around', website: site.url });
    expect(t.status, t.text).toBe(200);
    const m = await h.api('POST', `/v1beta/tasks/${t.json.id}/start-manual-session`, { cookies: [{ name: 'pref', value: 'dark' }] });
    expect(m.status, m.text).toBe(200);
    expect(m.json).toMatchObject({ session_id: expect.any(String), iframe_url: expect.any(String) });
    expect((await h.api('DELETE', `/v1beta/tasks/${t.json.id}`)).status).toBeLessThan(300);
  });
});
