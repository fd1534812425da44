// Acceptance on a twentieth real application we did not write: Apache Tomcat 10.1's Manager and Host
// Manager (Debian's tomcat10-admin; a fresh CATALINA_BASE per run with three applications of our
// own). Each flow is recorded here and now in Chromium, signed in through HTTP Basic auth, then
// synthesized, replay-validated, published and RUN with NEW arguments; results are checked against
// Tomcat's own text interfaces. What Tomcat brings: a server-rendered Java app whose every link and
// form action carries a CSRF nonce the server minted for that page (a request without a nonce from
// one of the last pages it served is refused with 403), session ids rewritten into URL paths
// (`;jsessionid=…`), and a classic table of rows spanning two lines. Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, TOMCAT_USER, tomcatApps, tomcatText } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.tomcat);

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Tomcat (%s)', (backend) => {
  // (Signed in through the browser's Basic dialog: the recording shows no Authorization header, and
  // the connector answers the challenge with the hinted login, basic_auth.)
  const live = liveApp(APPS.tomcat, backend, TOMCAT_USER.username, TOMCAT_USER.password, { httpCredentials: TOMCAT_USER });
  const { flow } = live;
  const text = (path: string) => tomcatText(live.url, path);
  const apps = () => tomcatApps(live.url);
  const login = () => ({ secrets: { account: live.secret } });
  const bound = () => ({ secret_bindings: { account: live.secret } });
  /** Records a flow from the Manager's (or Host Manager's) page, with other hosts refused. */
  const record = (name: string, steps: (page: Page) => Promise<void>, start = '/manager/html') =>
    live.record(name, async (page, base) => {
      await refuseOtherHosts(page, base);
      await page.goto(`${base}${start}`);
      await page.waitForSelector('text=Message:');
      await steps(page);
    });
  /** Submits the form of `app`'s row whose button is `button`, and waits for the page it answers. */
  const rowAction = async (page: Page, app: string, button: string) => {
    await Promise.all([
      page.waitForURL(/\/manager\/html\//),
      page.click(`form[action*="path=/${app}&"] input[value="${button}"], form[action*="path=%2F${app}&"] input[value="${button}"]`),
    ]);
    await page.waitForSelector('text=Message:');
  };

  beforeEach(async () => {
    // Every application of ours runs when a flow starts.
    for (const app of ['orchard', 'pantry', 'cellar']) await text(`/manager/text/start?path=/${app}`);
  });

  it('the applications list, read while ANOTHER state holds: a stopped application shows stopped', async () => {
    const har = await record('list', async (page) => {
      await page.waitForSelector('text=Pantry Stock');
    });
    expect(await text('/manager/text/stop?path=/cellar')).toMatch(/^OK/);
    const { result } = await flow('tc-list', har, { hints: login() }, bound());
    const items = Object.values(result).find(Array.isArray) as Record<string, unknown>[];
    expect(items.map((i) => i.display_name).sort()).toEqual(
      [
        'Cellar Book',
        'Orchard Co-op',
        'Orchard Ledger',
        'Pantry Stock',
        'Tomcat Host Manager Application',
        'Tomcat Manager Application',
      ].sort(),
    );
    // The list is read at run time: the cellar stopped after the recording is not running now.
    expect(items.find((i) => i.display_name === 'Cellar Book')).toMatchObject({ path: '/cellar', running: 'false', sessions: 0 });
    expect(items.find((i) => i.display_name === 'Pantry Stock')).toMatchObject({ path: '/pantry', running: 'true' });
  });

  it('an application stopped from its row, run on ANOTHER application', async () => {
    const har = await record('stop', (page) => rowAction(page, 'orchard', 'Stop'));
    await text('/manager/text/start?path=/orchard');
    await flow('tc-stop', har, { hints: { arguments: { path: '/orchard' }, ...login() } }, { arguments: { path: '/pantry' }, ...bound() });
    const now = await apps();
    expect(now['/pantry']?.running).toBe(false);
    expect(now['/cellar']?.running).toBe(true);
  });

  it('a stopped application started from its row, run on ANOTHER stopped application', async () => {
    for (const app of ['orchard', 'pantry']) await text(`/manager/text/stop?path=/${app}`);
    const har = await record('start', (page) => rowAction(page, 'orchard', 'Start'));
    expect((await apps())['/orchard']?.running).toBe(true);
    await flow('tc-start', har, { hints: { arguments: { path: '/orchard' }, ...login() } }, { arguments: { path: '/pantry' }, ...bound() });
    expect((await apps())['/pantry']?.running).toBe(true);
  });

  it("an application's sessions expired from its row, run on ANOTHER application", async () => {
    const visit = async (app: string, n: number) => {
      for (let i = 0; i < n; i++) await fetch(`${live.url}/${app}/visit.jsp`);
    };
    await visit('orchard', 2);
    await visit('pantry', 3);
    await visit('cellar', 1);
    expect((await apps())['/pantry']?.sessions).toBe(3);
    const har = await record('expire', async (page) => {
      await page.fill('form[action*="expire"][action*="path=/orchard&"] input[name="idle"]', '0');
      await rowAction(page, 'orchard', 'Expire sessions');
    });
    const { result } = await flow(
      'tc-expire',
      har,
      { hints: { arguments: { path: '/orchard', idle: '0' }, ...login() } },
      { arguments: { path: '/pantry', idle: 0 }, ...bound() },
    );
    const now = await apps();
    expect(now['/pantry']?.sessions).toBe(0);
    expect(now['/cellar']?.sessions).toBe(1);
    expect(JSON.stringify(result)).toContain('/pantry');
  });

  it('a directory on the server deployed at a context path, run with ANOTHER directory and path', async () => {
    const har = await record('deploy', async (page) => {
      await page.fill('#deployPath', '/plum');
      await page.fill('#deployWar', '/var/lib/cs-acceptance/tomcat/wars/plum');
      await Promise.all([page.waitForURL(/\/deploy/), page.click('input[value="Deploy"]')]);
      await page.waitForSelector('text=Message:');
    });
    expect((await apps())['/plum']?.running).toBe(true);
    const { result } = await flow(
      'tc-deploy',
      har,
      { hints: { arguments: { path: '/plum', directory: '/var/lib/cs-acceptance/tomcat/wars/plum' }, ...login() } },
      { arguments: { path: '/quince', directory: '/var/lib/cs-acceptance/tomcat/wars/quince' }, ...bound() },
    );
    expect((await apps())['/quince']?.running).toBe(true);
    expect(await (await fetch(`${live.url}/quince/`)).text()).toContain('Quince Press');
    expect(JSON.stringify(result)).toContain('/quince');
  });

  it('a virtual host added in the Host Manager, run with ANOTHER host name and alias', async () => {
    const har = await record(
      'host',
      async (page) => {
        await page.fill('input[name="name"]', 'pears.example');
        await page.fill('input[name="aliases"]', 'www.pears.example');
        await Promise.all([page.waitForURL(/\/add/), page.click('input[value="Add"]')]);
        await page.waitForSelector('text=Message:');
      },
      '/host-manager/html',
    );
    expect(await text('/host-manager/text/list')).toContain('pears.example');
    await flow(
      'tc-host',
      har,
      { hints: { arguments: { host: 'pears.example', alias: 'www.pears.example' }, ...login() } },
      { arguments: { host: 'quinces.example', alias: 'www.quinces.example' }, ...bound() },
    );
    const hosts = await text('/host-manager/text/list');
    expect(hosts).toMatch(/\[quinces\.example\]:\[www\.quinces\.example\]/);
  });
});
