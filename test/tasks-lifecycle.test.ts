// A task's life with a real browser on the demo site: a manual session is a real capture
// session; abandoning it fails the task with failure_info; retry without a recording returns it
// to not_ready; deleting a task abandons its session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { startDemoSite, type DemoSite } from '../examples/demo-site/server.js';

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.each(await backends())('task lifecycle (%s)', (backend) => {
  let h: Harness;
  let site: DemoSite;
  beforeAll(async () => {
    site = await startDemoSite();
    h = await startHarness(backend);
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });

  const newTask = async () =>
    (await h.api('POST', '/v1beta/tasks', { display_name: 'Search', task: 'Search the demo shop', website: `${site.url}/login` })).json;

  it('fails on an abandoned session, retries back to not_ready, and starts again', async () => {
    const t = await newTask();
    const start = await h.api('POST', `/v1beta/tasks/${t.id}/start-manual-session`, { use_proxy: false, cookies: [{ name: 'pref', value: 'dark' }] });
    expect(start.status, start.text).toBe(200);
    expect(start.json.iframe_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/live\//);
    const sessionId = start.json.session_id;
    // The manual session is a capture session of the caller's, opened on the task's website.
    const cs = await h.api('GET', `/v1beta/capture_sessions/${sessionId}`);
    expect(cs.json.state).toBe('active');
    expect((await h.api('GET', `/v1beta/tasks/${t.id}`)).json.current_state).toBe('waiting_for_manual_completion');

    const again = await h.api('POST', `/v1beta/tasks/${t.id}/start-manual-session`);
    expect(again.status).toBe(409);
    expect(again.json.detail).toContain(sessionId);

    expect((await h.api('POST', `/v1beta/capture_sessions/${sessionId}/abandon`)).status).toBe(200);
    const failed = await until(() => h.api('GET', `/v1beta/tasks/${t.id}`), (r) => r.json.current_state !== 'waiting_for_manual_completion');
    expect(failed.json).toMatchObject({ current_state: 'failed', failure_info: { category: 'session_abandoned' } });
    expect(failed.json.failure_info.message).toMatch(/new manual session/);

    const retried = await h.api('POST', `/v1beta/tasks/${t.id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.json.current_state).toBe('not_ready');
    expect(retried.json.failure_info).toBeUndefined();

    const restart = await h.api('POST', `/v1beta/tasks/${t.id}/start-manual-session`, null);
    expect(restart.status, restart.text).toBe(200);
    expect(restart.json.session_id).not.toBe(sessionId);
    expect((await h.api('DELETE', `/v1beta/tasks/${t.id}`)).json).toEqual({ id: t.id, deleted: true });
    // Deleting the task ended its manual session.
    expect((await h.api('GET', `/v1beta/capture_sessions/${restart.json.session_id}`)).json.state).toBe('abandoned');
  });

  it('moves a waiting task on in the background, without anyone reading it', async () => {
    const t = await newTask();
    const start = await h.api('POST', `/v1beta/tasks/${t.id}/start-manual-session`);
    await h.api('POST', `/v1beta/capture_sessions/${start.json.session_id}/abandon`);
    // The sweeper settles it; read the row directly so the read itself does not do the work.
    const row = await until(
      () => h.services.db.selectFrom('tasks').select(['current_state', 'failure_category']).where('id', '=', t.id).executeTakeFirstOrThrow(),
      (r) => r.current_state === 'failed',
    );
    expect(row).toEqual({ current_state: 'failed', failure_category: 'session_abandoned' });
  });

  it('validates the manual-session body and keeps other users out', async () => {
    const t = await newTask();
    const bad = await h.api('POST', `/v1beta/tasks/${t.id}/start-manual-session`, { use_proxy: 'yes', cookies: [{ value: 'x' }], extra: 1 });
    expect(bad.status).toBe(422);
    expect(bad.json.detail.map((d: any) => d.loc.join('.'))).toEqual(expect.arrayContaining(['body.use_proxy', 'body.cookies.0.name', 'body.extra']));
    const other = await h.newUser('intruder');
    expect((await h.api('POST', `/v1beta/tasks/${t.id}/start-manual-session`, undefined, other.key)).status).toBe(404);
    expect((await h.api('GET', `/v1beta/tasks/${t.id}`)).json.current_state).toBe('not_ready');
  });
});
