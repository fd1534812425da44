// Acceptance on a twenty-fifth real application we did not write: Zabbix 6.0's frontend (Debian's
// zabbix-frontend-php over PostgreSQL; a fresh database per run made from the seed). Each flow is
// recorded here and now in Chromium, signing in through the login form, then synthesized,
// replay-validated, published and RUN with NEW arguments; results are checked through Zabbix's own
// JSON-RPC API. What Zabbix brings: lists whose rows hide tables of their own (hint boxes), filter
// forms, actions sent by JavaScript that builds a form with the session's `sid`, a modal edit form
// posted by AJAX that answers JSON, multiselect fields filled from a typeahead. Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, ZABBIX_USER, zabbixApi } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.zabbix);

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Zabbix (%s)', (backend) => {
  const live = liveApp(APPS.zabbix, backend, ZABBIX_USER.username, ZABBIX_USER.password);
  const { flow, bound } = live;
  const api = (method: string, params: unknown) => zabbixApi(live.url, method, params);
  const hostNamed = async (host: string) =>
    (await api('host.get', { filter: { host }, selectGroups: ['name'], selectInterfaces: ['ip'] }))[0];
  const hinted = (args: Record<string, unknown>) => ({ hints: { arguments: args, secrets: { account: live.secret } } });
  /** Records a flow after signing in through the login form, with every request to another host refused. */
  const record = (name: string, steps: (page: Page, base: string) => Promise<void>) =>
    live.record(name, async (p, base) => {
      await refuseOtherHosts(p, base);
      await p.goto(`${base}/index.php`);
      await p.fill('#name', ZABBIX_USER.username);
      await p.fill('#password', ZABBIX_USER.password);
      await Promise.all([p.waitForNavigation(), p.click('#enter')]);
      await steps(p, base);
    });
  /** Types `text` into a multiselect (its typeahead listens to keys) and picks the first suggestion. */
  const pick = async (p: Page, input: string, text: string) => {
    await p.locator(input).pressSequentially(text, { delay: 20 });
    await p.locator('.multiselect-suggest li[data-id]:not(.suggest-new)').first().click();
  };

  it('the hosts a name filter finds, run with ANOTHER name', async () => {
    const har = await record('hosts', async (p, base) => {
      await p.goto(`${base}/zabbix.php?action=host.list`);
      await p.fill('#filter_host', 'press');
      await Promise.all([p.waitForNavigation(), p.click('button[name=filter_set]')]);
      await p.waitForSelector('text=Pear press 1');
    });
    const { result } = await flow('zb-hosts', har, hinted({ name: 'press' }), bound({ name: 'cold' }));
    const text = JSON.stringify(result);
    expect(text).toContain('Cold store north');
    expect(text).toContain('Cold store south');
    expect(text).toContain('10.20.1.21');
    expect(text).not.toContain('Pear press 1');
    const items = Object.values(result).find(Array.isArray) as unknown[];
    expect(items).toHaveLength(2);
  });

  it('a host disabled from the list (a form JavaScript builds with the sid), run on ANOTHER host', async () => {
    const cellar = await hostNamed('cider-cellar');
    const dryer = await hostNamed('quince-dryer');
    const har = await record('disable', async (p, base) => {
      // (The list keeps the last filter in the user's profile: reset to see every host.)
      await p.goto(`${base}/zabbix.php?action=host.list&filter_rst=1`);
      p.once('dialog', (d) => void d.accept());
      const row = p.locator('tr', { has: p.locator('a', { hasText: 'Cider cellar' }) });
      // (Its link asks first, then posts a form it builds with the sid; the list comes back with a message.)
      await row.locator('a.link-action', { hasText: 'Enabled' }).click();
      await p.waitForSelector('text=Host disabled');
    });
    expect((await hostNamed('cider-cellar')).status).toBe('1');
    await flow('zb-disable', har, hinted({ hostid: cellar.hostid }), bound({ hostid: Number(dryer.hostid) }));
    expect((await hostNamed('quince-dryer')).status).toBe('1');
    expect((await hostNamed('pear-press-01')).status).toBe('0');
  });

  it("a host disabled from the list, named by its NAME (the id is in its row's link), run on ANOTHER host named by its name", async () => {
    // (No id is typed or hinted: the POST's `hostids[0]` is read from the row the name names.)
    const south = await hostNamed('cold-store-south');
    const har = await record('disable-by-name', async (p, base) => {
      await p.goto(`${base}/zabbix.php?action=host.list&filter_rst=1`);
      p.once('dialog', (d) => void d.accept());
      const row = p.locator('tr', { has: p.locator('a', { hasText: 'Cold store north' }) });
      await row.locator('a.link-action', { hasText: /^Enabled$/ }).click();
      await p.waitForSelector('text=Host disabled');
    });
    expect((await hostNamed('cold-store-north')).status).toBe('1');
    const { def } = await flow('zb-disable-by-name', har, hinted({ host: 'Cold store north' }), bound({ host: south.name }));
    expect(JSON.stringify(def)).toContain('"where":{"name":"{{args.host}}"}');
    expect((await hostNamed('cold-store-south')).status).toBe('1');
    expect((await hostNamed('apple-press-02')).status).toBe('0');
  });

  it('a host created in the modal form (its group from a typeahead, an agent interface), run with ANOTHER host and group', async () => {
    const har = await record('create', async (p, base) => {
      await p.goto(`${base}/zabbix.php?action=host.list`);
      await p.click('text=Create host');
      await p.fill('#host', 'plum-press-03');
      await p.fill('#visiblename', 'Plum press 3');
      await pick(p, '#groups__ms', 'Presses');
      await p.locator('#host-form button:has-text("Add")').first().click();
      await p.click('.menu-popup a:has-text("Agent")');
      await p.fill('#interfaces_1_ip', '10.20.0.14');
      await p.click('.overlay-dialogue-footer button:has-text("Add")');
      await p.waitForSelector('text=Host added');
    });
    expect(await hostNamed('plum-press-03')).toBeDefined();
    await flow(
      'zb-create',
      har,
      hinted({ host: 'plum-press-03', name: 'Plum press 3', ip: '10.20.0.14', group: 'Presses' }),
      bound({ host: 'walnut-huller-04', name: 'Walnut huller 4', ip: '10.20.0.15', group: 'Cellars' }),
    );
    // (The group typed into the typeahead is an argument: the run looks it up, and sends its id.)
    expect(await hostNamed('walnut-huller-04')).toMatchObject({
      name: 'Walnut huller 4',
      groups: [{ name: 'Orchard/Cellars' }],
      interfaces: [{ ip: '10.20.0.15' }],
    });
  });

  it('a user created with a password and a role, run with ANOTHER user and password', async () => {
    const har = await record('user', async (p, base) => {
      await p.goto(`${base}/zabbix.php?action=user.edit`);
      await p.fill('#username', 'grader');
      await p.fill('#name', 'Gail');
      await pick(p, '#user_groups__ms', 'Orchard');
      await p.fill('#password1', 'Grade-pass-9');
      await p.fill('#password2', 'Grade-pass-9');
      await p.click('#tab_permissionsTab');
      await pick(p, '#roleid_ms', 'User');
      await Promise.all([p.waitForNavigation(), p.click('#add')]);
      await p.waitForSelector('text=User added');
    });
    expect((await api('user.get', { filter: { username: 'grader' } }))[0]).toBeDefined();
    const { def } = await flow(
      'zb-user',
      har,
      hinted({ username: 'grader', name: 'Gail', password: 'Grade-pass-9' }),
      bound({ username: 'sorter', name: 'Sam', password: 'Sort-pass-4' }),
    );
    expect((await api('user.get', { filter: { username: 'sorter' } }))[0]).toMatchObject({ name: 'Sam', roleid: '1' });
    // The new user signs in with the password the run was given; it is in no text of the connector.
    const login = await fetch(`${live.url}/api_jsonrpc.php`, {
      method: 'POST',
      headers: { 'content-type': 'application/json-rpc' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'user.login', params: { username: 'sorter', password: 'Sort-pass-4' }, id: 1 }),
    });
    expect(((await login.json()) as { result?: string }).result).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(def)).not.toContain('Grade-pass-9');
  });
});
