// Acceptance on a twenty-second real application we did not write: Monit 5.33's web interface
// (Debian's monit; a fresh monitrc per run watching a file, two directories, a program and the
// system). Each flow is recorded here and now in Chromium, signed in through HTTP Basic auth, then
// synthesized, replay-validated, published and RUN with NEW arguments; results are checked against
// Monit's XML status. What Monit brings: a C program's own web server, one table per kind of
// service on its home page (all with the same id), a service's page at its name (`/pantry`), and
// actions posted with a `securitytoken` that must equal the cookie the page set. Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, MONIT_USER, monitAction, monitServices } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.monit);

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Monit (%s)', (backend) => {
  // (Signed in through the browser's Basic dialog: the connector answers the challenge, basic_auth.)
  const live = liveApp(APPS.monit, backend, MONIT_USER.username, MONIT_USER.password, { httpCredentials: MONIT_USER });
  const { flow, hinted, bound } = live;
  const services = () => monitServices(live.url);
  /** Records a flow from Monit's home page, with every request to another host refused. */
  const record = (name: string, steps: (page: Page) => Promise<void>) =>
    live.record(name, async (page, base) => {
      await refuseOtherHosts(page, base);
      await page.goto(`${base}/`);
      await page.waitForSelector('text=Monit Service Manager');
      await steps(page);
    });
  const open = async (page: Page, service: string) => {
    await Promise.all([page.waitForURL(new RegExp(`/${service}$`)), page.click(`a[href='${service}']`)]);
    await page.waitForSelector('#status-table');
  };

  beforeEach(async () => {
    for (const s of ['pantry', 'cellar', 'orchard-ledger']) await monitAction(live.url, s, 'monitor');
  });

  it('the directories on the home page, read while ANOTHER state holds: a directory no longer monitored says so', async () => {
    const har = await record('home', async () => {});
    await monitAction(live.url, 'cellar', 'unmonitor');
    const { result } = await flow('mn-home', har, hinted({}, { result: ['cellar', 'pantry'] }), bound({}));
    const items = result.items as Record<string, string>[];
    expect(items.map((i) => i.directory).sort()).toEqual(['cellar', 'pantry']);
    expect(items.find((i) => i.directory === 'cellar')!.status).toMatch(/not monitored/i);
    expect(items.find((i) => i.directory === 'pantry')!.status).toBe('OK');
  });

  it("a service's page, for ANOTHER service", async () => {
    const har = await record('service', (page) => open(page, 'pantry'));
    const { result } = await flow('mn-service', har, hinted({ service: 'pantry' }), bound({ service: 'cellar' }));
    const text = JSON.stringify(result);
    expect(text).toContain('/cellar');
    expect(text).not.toContain('/pantry');
    expect(text).toMatch(/"Monitored"/);
  });

  it("a service's monitoring disabled from its page, run on ANOTHER service", async () => {
    const har = await record('unmonitor', async (page) => {
      await open(page, 'pantry');
      await Promise.all([page.waitForLoadState('load'), page.click("input[value='Disable monitoring']")]);
    });
    await monitAction(live.url, 'pantry', 'monitor');
    await flow('mn-unmonitor', har, hinted({ service: 'pantry' }), bound({ service: 'orchard-ledger' }));
    let now = await services();
    for (let i = 0; i < 50 && now['orchard-ledger']?.monitored; i++) {
      await new Promise((r) => setTimeout(r, 200));
      now = await services();
    }
    expect(now['orchard-ledger']?.monitored).toBe(false);
    expect(now.cellar?.monitored).toBe(true);
  });

  it("a service's monitoring enabled again from its page, run on ANOTHER service", async () => {
    for (const s of ['pantry', 'cellar']) await monitAction(live.url, s, 'unmonitor');
    const har = await record('monitor', async (page) => {
      await open(page, 'pantry');
      await Promise.all([page.waitForLoadState('load'), page.click("input[value='Enable monitoring']")]);
    });
    await flow('mn-monitor', har, hinted({ service: 'pantry' }), bound({ service: 'cellar' }));
    let now = await services();
    for (let i = 0; i < 50 && !now.cellar?.monitored; i++) {
      await new Promise((r) => setTimeout(r, 200));
      now = await services();
    }
    expect(now.cellar?.monitored).toBe(true);
  });
});
