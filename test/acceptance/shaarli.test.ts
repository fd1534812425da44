// Acceptance on a twenty-third real application we did not write: Shaarli 0.12, a bookmark manager
// (Debian's shaarli, PHP without a database; its seeded data restored on every start). Each flow
// is recorded here and now in Chromium, then synthesized, replay-validated, published and RUN with
// NEW arguments; results are checked through Shaarli's REST API. What Shaarli brings: bookmarks as
// cards (no table), a login form and every admin form with a one-time `token` from the page, a new
// bookmark made in two steps (its URL, then the edit form that URL opens), and delete links that
// carry the token in their query. Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, SHAARLI_USER, shaarliApi } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.shaarli);
type Link = { id: number; url: string; title: string; description: string; tags: string[] };

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Shaarli (%s)', (backend) => {
  const live = liveApp(APPS.shaarli, backend, SHAARLI_USER.username, SHAARLI_USER.password);
  const { flow } = live;
  const links = async (): Promise<Link[]> => shaarliApi(live.url, '/links?limit=all');
  const byTitle = async (title: string) => (await links()).find((l) => l.title === title);
  const hinted = (args: Record<string, unknown>) => ({ hints: { arguments: args, secrets: { account: live.secret } } });
  const bound = (args: Record<string, unknown>) => ({ arguments: args, secret_bindings: { account: live.secret } });
  /** Records a flow from the home page, signed in through the login form first when `signIn`. */
  const record = (name: string, steps: (page: Page, base: string) => Promise<void>, signIn = true) =>
    live.record(name, async (page, base) => {
      await refuseOtherHosts(page, base);
      if (signIn) {
        await page.goto(`${base}/login`);
        await page.fill('input[name=login]:visible', SHAARLI_USER.username);
        await page.fill('input[name=password]:visible', SHAARLI_USER.password);
        await Promise.all([page.waitForNavigation(), page.click('input[type=submit][value=Login]:visible')]);
      } else await page.goto(`${base}/`);
      await page.waitForSelector('text=Quince jelly');
      await steps(page, base);
    });

  it('the bookmarks a search finds, run with ANOTHER search', async () => {
    const har = await record(
      'search',
      async (page) => {
        // (The search box sits in a header the page folds away at this width: its form, submitted.)
        await page.locator('#searchform_value').evaluate((e: HTMLInputElement) => {
          e.value = 'quince';
        });
        await Promise.all([
          page.waitForNavigation(),
          page.locator('#searchform_value').evaluate((e: HTMLInputElement) => e.form!.submit()),
        ]);
        await page.waitForSelector('text=Simmer whole quinces');
      },
      false,
    );
    const { result } = await flow('sh-search', har, { hints: { arguments: { query: 'quince' } } }, { arguments: { query: 'cider' } });
    // (Recorded with one hit: still a list of hits, each a record.)
    expect(result.items).toHaveLength(1);
    const text = JSON.stringify(result.items[0]);
    expect(text).toContain('Pressing cider at home');
    expect(text).toContain('Mill, press, ferment');
    expect(JSON.stringify(result)).not.toContain('Quince jelly');
  });

  it('a bookmark added (its URL, then the form it opens), run with ANOTHER bookmark', async () => {
    const har = await record('add', async (page, base) => {
      await page.goto(`${base}/admin/add-shaare`);
      await page.fill('#shaare', 'https://orchard.example/walnut-blight');
      await Promise.all([page.waitForNavigation(), page.click('input[value="Add link"]')]);
      await page.fill('#lf_title', 'Walnut blight');
      await page.fill('#lf_description', 'Copper spray before the buds open.');
      await page.fill('#lf_tags', 'walnuts');
      await Promise.all([page.waitForNavigation(), page.click('#button-save-edit')]);
    });
    expect(await byTitle('Walnut blight')).toBeDefined();
    await flow(
      'sh-add',
      har,
      hinted({
        url: 'https://orchard.example/walnut-blight',
        title: 'Walnut blight',
        description: 'Copper spray before the buds open.',
        tags: 'walnuts',
      }),
      bound({
        url: 'https://orchard.example/medlar-harvest',
        title: 'Medlar harvest',
        description: 'Pick after the first frost.',
        tags: 'medlars',
      }),
    );
    expect(await byTitle('Medlar harvest')).toMatchObject({
      url: 'https://orchard.example/medlar-harvest',
      description: 'Pick after the first frost.',
      tags: ['medlars'],
    });
  });

  it("a bookmark's title edited, run on ANOTHER bookmark", async () => {
    const quince = (await byTitle('Quince jelly'))!;
    const plums = (await byTitle('Plum moth and other pests'))!;
    const har = await record('edit', async (page, base) => {
      await page.goto(`${base}/admin/shaare/${quince.id}`);
      await page.fill('#lf_title', 'Quince jelly and paste');
      await Promise.all([page.waitForNavigation(), page.click('#button-save-edit')]);
    });
    await flow(
      'sh-edit',
      har,
      hinted({ id: String(quince.id), title: 'Quince jelly and paste' }),
      bound({ id: plums.id, title: 'Plum moth traps' }),
    );
    const now = await links();
    expect(now.find((l) => l.id === plums.id)).toMatchObject({
      title: 'Plum moth traps',
      url: plums.url,
      description: plums.description,
      tags: plums.tags,
    });
    expect(now.find((l) => l.id === quince.id)?.title).toBe('Quince jelly and paste');
  });

  it('a bookmark deleted from its card, run on ANOTHER bookmark', async () => {
    const bees = (await byTitle('Bees in the orchard'))!;
    const pears = (await byTitle('Pear varieties for a small orchard'))!;
    const har = await record('delete', async (page) => {
      page.once('dialog', (d) => void d.accept());
      await Promise.all([page.waitForNavigation(), page.click(`a[href*="/admin/shaare/delete?id=${bees.id}&"] >> nth=0`)]);
    });
    expect(await byTitle('Bees in the orchard')).toBeUndefined();
    await flow('sh-delete', har, hinted({ id: String(bees.id) }), bound({ id: pears.id }));
    const titles = (await links()).map((l) => l.title);
    expect(titles).not.toContain('Pear varieties for a small orchard');
    expect(titles).toContain('Pressing cider at home');
  });
});
