// A task's life with a real browser on the demo site. The whole loop as a person does it: create
// a task, start its manual session, sign in (pasted secrets) and search through the live view's
// WebSocket protocol, complete → the task becomes ready with schemas → a task-based run with a NEW
// query returns the right result_json → delete. And the failure path: abandoning the session fails
// the task with failure_info; retry without a recording returns it to not_ready.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { openChromium } from '../src/browser/chromium.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { loginSecret } from './helpers/runs.js';
import { wsDriver } from './helpers/live-view.js';
import { startDemoSite, type DemoSite } from '../examples/demo-site/server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
    const start = await h.api('POST', `/v1beta/tasks/${t.id}/start-manual-session`, {
      use_proxy: false,
      cookies: [{ name: 'pref', value: 'dark' }],
    });
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
    const failed = await until(
      () => h.api('GET', `/v1beta/tasks/${t.id}`),
      (r) => r.json.current_state !== 'waiting_for_manual_completion',
    );
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

  it('fails with a helpful category when the recording holds nothing to build from, and retry re-synthesizes', async () => {
    const t = await newTask();
    const start = await h.api('POST', `/v1beta/tasks/${t.id}/start-manual-session`);
    await sleep(500);
    expect((await h.api('POST', `/v1beta/capture_sessions/${start.json.session_id}/complete`)).status).toBe(202);
    const failed = await until(
      () => h.api('GET', `/v1beta/tasks/${t.id}`),
      (r) => r.json.current_state !== 'waiting_for_manual_completion',
      30_000,
    );
    expect(failed.json.current_state).toBe('failed');
    expect(failed.json.failure_info.category).toBe('no_target_found');
    expect(failed.json.failure_info.message).toMatch(/record the task again/);
    expect(failed.json.input_schema).toBeNull();
    // Retry re-synthesizes from the same (completed) recording: still nothing to build from.
    const retried = await h.api('POST', `/v1beta/tasks/${t.id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.json).toMatchObject({ current_state: 'failed', failure_info: { category: 'no_target_found' } });
    expect(Date.parse(retried.json.updated_at)).toBeGreaterThan(Date.parse(failed.json.updated_at));
  }, 60_000);

  it('moves a waiting task on in the background, without anyone reading it', async () => {
    const t = await newTask();
    const start = await h.api('POST', `/v1beta/tasks/${t.id}/start-manual-session`);
    await h.api('POST', `/v1beta/capture_sessions/${start.json.session_id}/abandon`);
    // The sweeper settles it; read the row directly so the read itself does not do the work.
    const row = await until(
      () =>
        h.services.db.selectFrom('tasks').select(['current_state', 'failure_category']).where('id', '=', t.id).executeTakeFirstOrThrow(),
      (r) => r.current_state === 'failed',
    );
    expect(row).toEqual({ current_state: 'failed', failure_category: 'session_abandoned' });
  });

  it('validates the manual-session body and keeps other users out', async () => {
    const t = await newTask();
    const bad = await h.api('POST', `/v1beta/tasks/${t.id}/start-manual-session`, {
      use_proxy: 'yes',
      cookies: [{ value: 'x' }],
      extra: 1,
    });
    expect(bad.status).toBe(422);
    expect(bad.json.detail.map((d: any) => d.loc.join('.'))).toEqual(
      expect.arrayContaining(['body.use_proxy', 'body.cookies.0.name', 'body.extra']),
    );
    const other = await h.newUser('intruder');
    expect((await h.api('POST', `/v1beta/tasks/${t.id}/start-manual-session`, undefined, other.key)).status).toBe(404);
    expect((await h.api('GET', `/v1beta/tasks/${t.id}`)).json.current_state).toBe('not_ready');
  });
});

describe('task lifecycle through the live view (sqlite)', () => {
  let site: DemoSite;
  let h: Harness;
  let browser: Browser;
  let ref: Page; // reference rendering at the session's viewport, for coordinates only
  let person: Awaited<ReturnType<typeof wsDriver>>;
  let alice: string;

  beforeAll(async () => {
    site = await startDemoSite();
    h = await startHarness('sqlite', { CAPTURE_WARM_CONTEXTS: '0' });
    browser = await openChromium();
    ref = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    alice = await loginSecret(h, 'alice', 'wonderland');
  });
  afterAll(async () => {
    person?.ws.close();
    await browser?.close();
    await h?.close();
    await site?.close();
  });

  const at = (u: string) => expect.poll(() => person.url(), { timeout: 10_000 }).toBe(u);

  it('creates a task, records it in a manual session, becomes ready and runs with new arguments', async () => {
    const t = (
      await h.api('POST', '/v1beta/tasks', {
        display_name: 'Shop search',
        task: 'Sign in and search the shop; return the matching items',
        website: `${site.url}/login`,
      })
    ).json;
    expect(t.current_state).toBe('not_ready');
    const notReady = await h.api('POST', '/v1beta/runs', { task_id: t.id, arguments: { q: 'beta' } });
    expect(notReady.status).toBe(409);

    const m = await h.api('POST', `/v1beta/tasks/${t.id}/start-manual-session`);
    expect(m.status, m.text).toBe(200);
    person = await wsDriver(m.json.iframe_url, ref);
    const { click, press } = person;
    await at(`${site.url}/login`);
    await ref.goto(`${site.url}/login`);
    const paste = async (field: string) =>
      expect((await h.api('POST', `/v1beta/capture_sessions/${m.json.session_id}/paste`, { field, secret_id: alice })).status).toBe(204);
    await click('#username');
    await paste('username');
    await click('#password');
    await paste('password');
    await press('Enter');
    await at(`${site.url}/items`);
    await ref.fill('#username', 'alice');
    await ref.fill('#password', 'wonderland');
    await ref.press('#password', 'Enter');
    await ref.waitForURL('**/items');

    person.navigate(`${site.url}/search`);
    await at(`${site.url}/search`);
    await ref.goto(`${site.url}/search`);
    await sleep(300);
    await click('#q');
    person.text('gamma');
    await press('Enter');
    await ref.fill('#q', 'gamma');
    await ref.press('#q', 'Enter');
    await ref.waitForSelector('#status[data-state=done]');
    await sleep(900);
    expect((await h.api('POST', `/v1beta/capture_sessions/${m.json.session_id}/complete`)).status).toBe(202);

    // The task follows its session: waiting until the connector is synthesized, then ready.
    const ready = await expect
      .poll(async () => (await h.api('GET', `/v1beta/tasks/${t.id}`)).json, { timeout: 60_000, interval: 250 })
      .toMatchObject({ current_state: 'ready' })
      .then(async () => (await h.api('GET', `/v1beta/tasks/${t.id}`)).json);
    expect(ready.failure_info).toBeUndefined();
    expect(JSON.parse(ready.input_schema).properties).toHaveProperty('q');
    expect(JSON.parse(ready.output_schema).type).toBe('object');
    expect(ready.required_secrets).toEqual([{ name: 'account', type: 'login', requires_totp: false }]);

    const run = await h.api('POST', '/v1beta/runs', { task_id: t.id, arguments: { q: 'epsilon' }, secret_bindings: { account: alice } });
    expect(run.status, run.text).toBe(200);
    expect(run.json).toMatchObject({ task_id: t.id, arguments: { q: 'epsilon' }, success: true, secret_bindings: { account: alice } });
    expect(run.json.finished_at).not.toBeNull();
    const result = JSON.parse(run.json.result_json);
    // The person looked at the first page of 5 only (no "Load more"): so does the connector.
    expect(result.items.map((i: any) => i.id)).toEqual([5, 10, 15, 20, 25]);
    expect(result.items.every((i: any) => i.name.startsWith('Epsilon '))).toBe(true);

    // Underneath it is an ordinary run of the task's connector.
    const connector = (await h.api('GET', '/v1beta/connectors')).json.data.find((c: any) => c.purpose === t.task);
    expect(connector).toBeDefined();
    const runs = (await h.api('GET', `/v1beta/runs?connector_id=${connector.id}`)).json.data;
    expect(runs.map((r: any) => r.id)).toEqual([run.json.id]);
    expect(runs[0].result.items).toHaveLength(5);

    // Task-based run rules: a missing binding is the runs API's 422; both ids → 422; another user → 404.
    const unbound = await h.api('POST', '/v1beta/runs', { task_id: t.id, arguments: { q: 'beta' } });
    expect(unbound.status).toBe(422);
    expect(unbound.json.detail[0].loc).toEqual(['body', 'secret_bindings', 'account']);
    const both = await h.api('POST', '/v1beta/runs', { task_id: t.id, connector_id: connector.id });
    expect(both.status).toBe(422);
    expect(both.json.detail[0].loc).toEqual(['body', 'task_id']);
    const badArgs = await h.api('POST', '/v1beta/runs', { task_id: t.id, arguments: { q: 5 }, secret_bindings: { account: alice } });
    expect(badArgs.status).toBe(422);
    expect(badArgs.json.detail[0].loc).toEqual(['body', 'arguments', 'q']);
    const other = await h.newUser('other');
    expect((await h.api('POST', '/v1beta/runs', { task_id: t.id, secret_bindings: { account: alice } }, other.key)).status).toBe(404);

    expect((await h.api('DELETE', `/v1beta/tasks/${t.id}`)).json).toEqual({ id: t.id, deleted: true });
    // Its runs stay readable through the connector family; the connector can't run any more.
    expect((await h.api('GET', `/v1beta/runs/${run.json.id}`)).json.status).toBe('success');
    expect((await h.api('POST', '/v1beta/runs', { task_id: t.id, secret_bindings: { account: alice } })).status).toBe(404);
  }, 120_000);
});
