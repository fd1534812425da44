// Acceptance on a fifteenth real application we did not write: Verdaccio 6 (a private npm registry
// from the npm registry; seeded by scripts/acceptance-setup.sh with a user and six packages, one
// scoped and one with two versions; no uplinks). Each flow is recorded here and now in Chromium,
// signed in through its login dialog, then synthesized, replay-validated, published and RUN with
// NEW arguments; results are checked against its own API. What Verdaccio brings: a React web UI
// whose JSON sign-in answers with a token that every later call sends as `Authorization: Bearer`,
// a search term in the URL path (`/-/verdaccio/data/search/grader`, typed into a debounced
// autocomplete), a scoped package name whose `/` is part of one argument, and package metadata
// keyed by versions and dates. Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, VERDACCIO_USER, verdaccioApi } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.verdaccio);

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Verdaccio (%s)', (backend) => {
  const live = liveApp(APPS.verdaccio, backend, VERDACCIO_USER.username, VERDACCIO_USER.password);
  const { flow } = live;
  const data = (path: string) => verdaccioApi(live.url, path);
  const call = (page: Page, path: string) =>
    page.waitForResponse((r) => r.url().includes(`/-/verdaccio/data/${path}`) && r.status() === 200);
  /** Records a flow after signing in through the login dialog, with every request to another host refused. */
  const record = (name: string, steps: (page: Page, base: string) => Promise<void>) =>
    live.record(name, async (page, base) => {
      await refuseOtherHosts(page, base);
      await page.goto(base);
      await page.click('[data-testid="header--button-login"]');
      await page.fill('#login--dialog-username', VERDACCIO_USER.username);
      await page.fill('#login--dialog-password', VERDACCIO_USER.password);
      await Promise.all([call(page, 'packages'), page.click('[data-testid="login-dialog-form-login-button"]')]);
      await steps(page, base);
    });
  /** Types into the header's search box as a person does (its autocomplete waits for a pause). */
  const search = async (page: Page, text: string) => {
    const box = page.locator('#search-header-suggest');
    await box.click();
    await Promise.all([call(page, `search/${text}`), box.pressSequentially(text, { delay: 60 })]);
  };

  it('packages found by the search box, for a NEW search term', async () => {
    const har = await record('search', async (page) => {
      await search(page, 'grader');
      await page.waitForSelector('text=Grades apples by size and colour');
    });
    const { result } = await flow(
      'vd-search',
      har,
      { hints: { arguments: { query: 'grader' }, secrets: { account: live.secret } } },
      { arguments: { query: 'pears' }, secret_bindings: { account: live.secret } },
    );
    const text = JSON.stringify(result);
    expect(text).toContain('"pear-tools"');
    expect(text).toContain('Ripeness tables for pears');
    expect(text).not.toContain('apple-grader');
  });

  it("a package's page opened from the search, for ANOTHER package (scoped: its name holds a /)", async () => {
    const har = await record('package', async (page) => {
      await search(page, 'grader');
      await page.waitForSelector('text=Grades apples by size and colour');
      await Promise.all([call(page, 'sidebar/apple-grader'), page.keyboard.press('ArrowDown').then(() => page.keyboard.press('Enter'))]);
      await page.waitForSelector('text=apple-grader');
    });
    const { result } = await flow(
      'vd-package',
      har,
      { hints: { arguments: { package: 'apple-grader' }, secrets: { account: live.secret } } },
      { arguments: { package: '@orchard/pruning' }, secret_bindings: { account: live.secret } },
    );
    const text = JSON.stringify(result);
    expect(text).toContain('Pruning calendars for apple and pear trees');
    expect(text).toContain('"2.0.0"');
    expect(text).not.toContain('Grades apples');
  });

  it('every package on the home page, as the registry lists them now', async () => {
    const har = await record('list', async (page) => {
      await page.waitForSelector('text=cider-calc');
    });
    const { result } = await flow(
      'vd-list',
      har,
      { hints: { result: ['cider-calc', 'Grades apples by size and colour'], secrets: { account: live.secret } } },
      { arguments: {}, secret_bindings: { account: live.secret } },
    );
    const text = JSON.stringify(result);
    const all = (await data('/packages')) as { name: string; version: string }[];
    expect(all.length).toBe(5);
    for (const p of all) expect(text).toContain(JSON.stringify(p.name));
    expect(text).toContain('"1.1.0"'); // (orchard-utils' latest version)
  });
});
