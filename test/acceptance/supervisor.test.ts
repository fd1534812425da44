// Acceptance on a forty-first real application we did not write: Supervisor 4.2's web interface
// (Debian's supervisor: supervisord serves it itself; a fresh daemon per run with programs that only
// sleep or print a line). Each flow is recorded here and now in Chromium, signed in through HTTP
// Basic auth, then synthesized, replay-validated, published and RUN with NEW arguments; results are
// checked against supervisord's own XML-RPC interface. What Supervisor brings: a table of processes
// whose last column is a list of action links, some hidden by the external stylesheet; actions that
// are plain GET links (`index.html?processname=…&action=stop`) answered by a 301 to the status page
// carrying the outcome in a `message` parameter; names that hold a colon (`webs:web-a`); and a tail
// page per process that opens in a new window. Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, SUPERVISOR_USER, supervisorAction, supervisorStates } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.supervisor);

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Supervisor (%s)', (backend) => {
  // (Signed in through the browser's Basic dialog: the connector answers the challenge, basic_auth.)
  const live = liveApp(APPS.supervisor, backend, SUPERVISOR_USER.username, SUPERVISOR_USER.password, {
    httpCredentials: SUPERVISOR_USER,
  });
  const { flow, hinted, bound } = live;
  /** Records a flow from the status page, with every request to another host refused. */
  const record = (name: string, steps: (page: Page) => Promise<void>) =>
    live.record(name, async (page, base) => {
      await refuseOtherHosts(page, base);
      await page.goto(`${base}/`);
      await page.waitForSelector('td.status');
      await steps(page);
    });
  /** Clicks a link of a process's row and waits for the status page that says what happened. */
  const act = async (page: Page, process: string, action: string) => {
    const row = page.locator('tbody tr', { has: page.locator(`td a[href^="tail.html"]`, { hasText: new RegExp(`^${process}$`) }) });
    await Promise.all([page.waitForURL(/message=/), row.locator(`a[name="${action}"]`).click()]);
  };
  type Proc = Record<string, unknown>;

  beforeEach(async () => {
    // (The same states before every flow: the autostarted five running, backup and reindex stopped.)
    const states = await supervisorStates(live.url);
    for (const [name, state] of Object.entries(states)) {
      const want = name === 'backup' || name === 'reindex' ? 'STOPPED' : 'RUNNING';
      if (state !== want) await supervisorAction(live.url, name, want === 'RUNNING' ? 'start' : 'stop');
    }
  });

  it('the status page read plainly: every process by name with its state and description, a state changed since', async () => {
    const har = await record('status', async () => {});
    await supervisorAction(live.url, 'worker', 'stop');
    const { result } = await flow('sv-status', har, hinted({}, { result: ['webs:web-b'] }), bound({}));
    const items = result.items as Proc[];
    expect(items.map((p) => p.name)).toEqual(['backup', 'mailer', 'reindex', 'webs:web-a', 'webs:web-b', 'worker']);
    const byName = Object.fromEntries(items.map((p) => [p.name, p]));
    expect(byName.worker!.state).toBe('stopped');
    expect(byName['webs:web-a']!.state).toBe('running');
    expect(byName['webs:web-a']!.description).toMatch(/^pid \d+, uptime \d+:\d\d:\d\d$/);
    expect(byName.backup!.description).toBe('Not started');
    // (The column of each row's action links — Start, Stop, Clear Log, Tail — is no data.)
    expect(Object.keys(items[0]!).sort()).toEqual(['description', 'name', 'name_url', 'state']);
  });

  it('a process stopped from its row, run to stop ANOTHER process: the page says so, and the daemon agrees', async () => {
    const har = await record('stop', async (page) => act(page, 'webs:web-b', 'Stop'));
    expect((await supervisorStates(live.url))['webs:web-b']).toBe('STOPPED');
    await supervisorAction(live.url, 'webs:web-b', 'start');
    const { result } = await flow('sv-stop', har, hinted({ processname: 'webs:web-b' }), bound({ processname: 'mailer' }));
    expect(result.message).toBe('Process mailer stopped');
    const states = await supervisorStates(live.url);
    expect(states.mailer).toBe('STOPPED');
    expect(states['webs:web-b']).toBe('RUNNING');
    // (Run on a process that is not running: supervisord's own words for the fault.)
    const { result: again } = await flow('sv-stop-again', har, hinted({ processname: 'webs:web-b' }), bound({ processname: 'mailer' }));
    expect(again.message).toMatch(/NOT_RUNNING: mailer/);
  });

  it('a stopped process started from its row, run to start ANOTHER one', async () => {
    const har = await record('start', async (page) => act(page, 'backup', 'Start'));
    expect((await supervisorStates(live.url)).backup).toBe('RUNNING');
    const { result } = await flow('sv-start', har, hinted({ processname: 'backup' }), bound({ processname: 'reindex' }));
    expect(result.message).toBe('Process reindex started');
    expect((await supervisorStates(live.url)).reindex).toBe('RUNNING');
  });

  it("a process's log tail opened in its new window, run on ANOTHER process: that process's own output", async () => {
    const har = await record('tail', async (page) => {
      const [popup] = await Promise.all([page.waitForEvent('popup'), page.click('a[href="tail.html?processname=worker"]')]);
      await popup.waitForSelector('pre');
    });
    const { result } = await flow('sv-tail', har, hinted({ processname: 'worker' }), bound({ processname: 'mailer' }));
    const text = JSON.stringify(result);
    expect(text).toContain('mailer ready: relay localhost, 12 messages waiting');
    expect(text).not.toContain('worker started');
  });
});
