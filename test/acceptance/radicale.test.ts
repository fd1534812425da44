// Acceptance on a sixteenth real application we did not write: Radicale 3 (Debian's radicale, a
// CalDAV/CardDAV server; seeded by scripts/acceptance-setup.sh with a user and three collections).
// Each flow is recorded here and now in Chromium, signed in through its web UI, then synthesized,
// replay-validated, published and RUN with NEW arguments; results are checked with a PROPFIND of
// our own. What Radicale brings: a sign-in that hands the user and password to XHR's `open` (the
// HAR shows them in the request URL), WebDAV methods (PROPFIND to list, PROPPATCH to edit) with XML
// bodies, and XML answers (a multistatus of one `response` per collection). Opt-in: ACCEPTANCE=1.
import crypto from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, RADICALE_USER, radicaleCollections } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.radicale);

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Radicale (%s)', (backend) => {
  const live = liveApp(APPS.radicale, backend, RADICALE_USER.username, RADICALE_USER.password);
  const { flow } = live;
  const basic = `Basic ${Buffer.from(`${RADICALE_USER.username}:${RADICALE_USER.password}`).toString('base64')}`;
  const dav = (method: string, path: string, body?: string) =>
    fetch(`${live.url}${path}`, { method, headers: { authorization: basic, 'content-type': 'application/xml' }, body });
  /** Records a flow after signing in through the web UI, with every request to another host refused. */
  const record = (name: string, steps: (page: Page, base: string) => Promise<void>) =>
    live.record(name, async (page, base) => {
      await refuseOtherHosts(page, base);
      await page.goto(`${base}/.web/`);
      await page.fill('#loginscene input[data-name=user]', RADICALE_USER.username);
      await page.fill('#loginscene input[data-name=password]', RADICALE_USER.password);
      await page.click('#loginscene button[type=submit]');
      await page.waitForSelector('#collectionsscene article:not(.hidden) >> text=Growers');
      await steps(page, base);
    });
  const article = (page: Page, title: string) => page.locator('#collectionsscene article:not(.hidden)', { hasText: title });

  it('every collection the web UI lists (an XML multistatus), including one made after the recording', async () => {
    const seen = await radicaleCollections(live.url);
    const har = await record('list', async () => {});
    const id = `orchard-${crypto.randomBytes(3).toString('hex')}`;
    const made = await dav(
      'MKCOL',
      `/seed/${id}/`,
      '<?xml version="1.0"?><mkcol xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><set><prop><resourcetype><collection/><C:calendar/></resourcetype>' +
        `<displayname>Quince Days ${id}</displayname></prop></set></mkcol>`,
    );
    expect(made.status).toBe(201);
    const { result, def } = await flow(
      'rd-list',
      har,
      { hints: { result: [seen.harvest!.displayname, seen.growers!.description], secrets: { account: live.secret } } },
      { arguments: {}, secret_bindings: { account: live.secret } },
    );
    const text = JSON.stringify(def);
    expect(text).not.toContain(RADICALE_USER.password);
    expect(text).not.toContain(basic.slice(6));
    const items = result.items as { href: string; displayname: string | null }[];
    for (const [c, v] of Object.entries(await radicaleCollections(live.url)))
      expect(items.find((i) => i.href === `/seed/${c}/`)?.displayname).toBe(v.displayname);
    expect(items.map((i) => i.displayname)).toContain(`Quince Days ${id}`);
    expect((await dav('DELETE', `/seed/${id}/`)).status).toBe(200);
  });

  it("a calendar's title and description edited in the web UI (a PROPPATCH), run on ANOTHER calendar with NEW text", async () => {
    const stamp = crypto.randomBytes(3).toString('hex');
    const har = await record('edit', async (page) => {
      await article(page, 'Harvest Calendar').locator('a[data-name=edit]').click();
      const form = page.locator('#editcollectionscene');
      await form.locator('input[data-name=displayname]').fill(`Harvest Calendar ${stamp}`);
      await form.locator('input[data-name=description]').fill(`Picking days (${stamp})`);
      await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'PROPPATCH' && r.status() === 207),
        form.locator('button[data-name=submit]').click(),
      ]);
    });
    const before = await radicaleCollections(live.url);
    await flow(
      'rd-edit',
      har,
      {
        hints: {
          arguments: { collection: 'harvest', title: `Harvest Calendar ${stamp}`, description: `Picking days (${stamp})` },
          secrets: { account: live.secret },
          allow_side_effects: true,
        },
      },
      {
        arguments: { collection: 'pruning', title: `Pruning ${stamp}`, description: `Row by row (${stamp})` },
        secret_bindings: { account: live.secret },
      },
    );
    const after = await radicaleCollections(live.url);
    expect(after.pruning).toEqual({ displayname: `Pruning ${stamp}`, description: `Row by row (${stamp})` });
    expect(after.growers).toEqual(before.growers);
    // (Back as seeded, for the next run of the suite.)
    const patch = (id: string, name: string, description: string) =>
      dav(
        'PROPPATCH',
        `/seed/${id}/`,
        '<?xml version="1.0"?><propertyupdate xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><set><prop>' +
          `<displayname>${name}</displayname><C:calendar-description>${description}</C:calendar-description></prop></set></propertyupdate>`,
      );
    expect((await patch('harvest', 'Harvest Calendar', 'Picking days for apples and pears')).status).toBe(207);
    expect((await patch('pruning', 'Pruning Schedule', 'When to prune which row')).status).toBe(207);
  });

  it('a calendar created in the web UI (a MKCOL to a path the page names with a new UUID), run with a NEW title', async () => {
    const stamp = crypto.randomBytes(3).toString('hex');
    const before = await radicaleCollections(live.url);
    const har = await record('create', async (page) => {
      await page.click('#collectionsscene a[data-name=new]');
      const form = page.locator('#createcollectionscene');
      await form.locator('input[data-name=displayname]').fill(`Cider Days ${stamp}`);
      await form.locator('input[data-name=description]').fill(`Pressing and bottling (${stamp})`);
      await form.locator('select[data-name=type]').selectOption('CALENDAR');
      await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'MKCOL' && r.status() === 201),
        form.locator('button[data-name=submit]').click(),
      ]);
    });
    const { def } = await flow(
      'rd-create',
      har,
      {
        hints: {
          arguments: { title: `Cider Days ${stamp}`, description: `Pressing and bottling (${stamp})` },
          secrets: { account: live.secret },
          allow_side_effects: true,
        },
      },
      { arguments: { title: `Perry Days ${stamp}`, description: `Pears this time (${stamp})` }, secret_bindings: { account: live.secret } },
    );
    expect(JSON.stringify(def)).toContain('{{run.uuid}}');
    const after = await radicaleCollections(live.url);
    const made = Object.entries(after).filter(([id]) => !(id in before));
    // (The recording's, the synthesis replay's and the run's: three collections, each with its own id.)
    expect(made.map(([, c]) => c.displayname)).toContain(`Perry Days ${stamp}`);
    expect(made.find(([, c]) => c.displayname === `Perry Days ${stamp}`)![1].description).toBe(`Pears this time (${stamp})`);
    for (const [id] of made) expect((await dav('DELETE', `/seed/${id}/`)).status).toBe(200);
  });
});
