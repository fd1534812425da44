// Acceptance on a fortieth real application we did not write: HAProxy 2.6's statistics page
// (Debian's haproxy: the load balancer serves it itself; a fresh process per run with two backends
// of its own). Each flow is recorded here and now in Chromium, signed in through HTTP Basic auth,
// then synthesized, replay-validated, published and RUN with NEW arguments; results are checked
// against HAProxy's own CSV export. What HAProxy brings: one table per proxy whose header is two
// rows (column groups — Queue, Sessions, Server — spanning their columns, a rowspan corner over
// the servers' names), a hover tooltip in most cells (a table of details, hidden by the page's own
// stylesheet), rows that join three empty columns into one cell, and an admin form under each
// backend that posts the checked servers and an action, then redirects to a status code whose page
// says what happened in a box with an `[X]` to remove it. Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, HAPROXY_USER, haproxyAction, haproxyStates } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.haproxy);

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on HAProxy (%s)', (backend) => {
  // (Signed in through the browser's Basic dialog: the connector answers the challenge, basic_auth.)
  const live = liveApp(APPS.haproxy, backend, HAPROXY_USER.username, HAPROXY_USER.password, { httpCredentials: HAPROXY_USER });
  const { flow, hinted, bound } = live;
  /** Records a flow from the statistics page, with every request to another host refused. */
  const record = (name: string, steps: (page: Page) => Promise<void>) =>
    live.record(name, async (page, base) => {
      await refuseOtherHosts(page, base);
      await page.goto(`${base}/`);
      await page.waitForSelector('a.px');
      await steps(page);
    });
  type Server = Record<string, unknown>;

  beforeEach(async () => {
    await haproxyAction(live.url, 'be_shop', ['shop-a', 'shop-b', 'shop-c'], 'ready');
  });

  it("the page read plainly: the shop's servers by name, each column named by its group, a state set since", async () => {
    const har = await record('stats', async () => {});
    await haproxyAction(live.url, 'be_shop', ['shop-c'], 'maint');
    const { result } = await flow('hp-stats', har, hinted({}, { result: ['shop-b'] }), bound({}));
    const items = result.items as Server[];
    expect(items.map((s) => s.name)).toEqual(['shop-a', 'shop-b', 'shop-c']);
    // (The status as the page prints it: how long it has held, then the state — "4s MAINT".)
    expect(items.find((s) => s.name === 'shop-c')!.server_status).toMatch(/\bMAINT$/);
    expect(items.find((s) => s.name === 'shop-a')!.server_status).toBe('no check');
    expect(items.find((s) => s.name === 'shop-b')!.server_wght).toBe('20/20');
    expect(items[0]).toHaveProperty('sessions_total');
    // (The hover tooltips' details are no values: not "IPv4: 127.0.0.1:9, id: 1" beside a name.)
    expect(JSON.stringify(result)).not.toContain('IPv4');
  });

  it('the page scoped to one backend, run with ANOTHER scope: only its servers', async () => {
    const har = await record('scope', async (page) => {
      await page.fill('input[name=scope]', 'be_api');
      await Promise.all([page.waitForURL(/scope=be_api/), page.press('input[name=scope]', 'Enter')]);
      await page.waitForSelector('a.px');
    });
    const { result } = await flow('hp-scope', har, hinted({ scope: 'be_api' }, { result: ['api-2'] }), bound({ scope: 'be_shop' }));
    const names = (result.items as Server[]).map((s) => s.name);
    expect(names).toEqual(['shop-a', 'shop-b', 'shop-c']);
  });

  it("a server drained through the backend's admin form, run to put ANOTHER server in maintenance", async () => {
    const har = await record('action', async (page) => {
      await page.check('input[name=s][value=shop-b]');
      const form = page.locator('form', { has: page.locator('input[name=s][value=shop-b]') });
      await form.locator('select[name=action]').selectOption('drain');
      await Promise.all([page.waitForURL(/st=DONE/), form.locator('input[type=submit]').click()]);
    });
    expect((await haproxyStates(live.url))['be_shop/shop-b']).toBe('DRAIN');
    await haproxyAction(live.url, 'be_shop', ['shop-b'], 'ready');
    const { result } = await flow(
      'hp-action',
      har,
      hinted({ server: 'shop-b', action: 'drain' }),
      bound({ server: 'shop-c', action: 'maint' }),
    );
    expect(result.message).toBe('Action processed successfully.');
    const states = await haproxyStates(live.url);
    expect(states['be_shop/shop-c']).toBe('MAINT');
    expect(states['be_shop/shop-a']).toBe('no check');
    // (A run on a server the backend doesn't have: HAProxy's own words say it was not processed.)
    const { result: refused } = await flow(
      'hp-action-unknown',
      har,
      hinted({ server: 'shop-b', action: 'drain' }),
      bound({ server: 'shop-z', action: 'maint' }),
    );
    expect(refused.message).toMatch(/^Action not processed because of invalid parameters/);
  });
});
