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
import { run } from '../helpers/runs.js';
import { synthesizeFrom, uploadBytes } from '../helpers/synth.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.shaarli);
type Link = { id: number; url: string; title: string; description: string; tags: string[] };

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Shaarli (%s)', (backend) => {
  const live = liveApp(APPS.shaarli, backend, SHAARLI_USER.username, SHAARLI_USER.password);
  const { flow, bound } = live;
  const links = async (): Promise<Link[]> => shaarliApi(live.url, '/links?limit=all');
  const byTitle = async (title: string) => (await links()).find((l) => l.title === title);
  const hinted = (args: Record<string, unknown>) => ({ hints: { arguments: args, secrets: { account: live.secret } } });
  const signIn = async (page: Page, base: string) => {
    await page.goto(`${base}/login`);
    await page.fill('input[name=login]:visible', SHAARLI_USER.username);
    await page.fill('input[name=password]:visible', SHAARLI_USER.password);
    await Promise.all([page.waitForNavigation(), page.click('input[type=submit][value=Login]:visible')]);
  };
  /** Records a flow from the home page, signed in through the login form first when `signIn`. */
  const record = (name: string, steps: (page: Page, base: string) => Promise<void>, login = true) =>
    live.record(name, async (page, base) => {
      await refuseOtherHosts(page, base);
      if (login) await signIn(page, base);
      else await page.goto(`${base}/`);
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

  it("bookmarks imported from a file chosen in the page's file chooser (the form answered by a redirect), run with ANOTHER file", async () => {
    const bookmarks = (links: [string, string, string][]) =>
      Buffer.from(
        `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">\n<TITLE>Bookmarks</TITLE>\n<H1>Bookmarks</H1>\n<DL><p>\n${links
          .map(([u, t, d]) => `<DT><A HREF="${u}" ADD_DATE="1764000000" PRIVATE="0" TAGS="">${t}</A>\n<DD>${d}\n`)
          .join('')}</DL><p>\n`,
      );
    const first = bookmarks([['https://orchard.example/medlar', 'Medlar bletting', 'Let medlars soften on straw.']]);
    const har = await live.recordCaptured('import', async (page, base, choose) => {
      await refuseOtherHosts(page, base);
      await signIn(page, base);
      await page.goto(`${base}/admin/import`);
      await page.fill('#default_tags', 'imported');
      await choose(page, () => page.click('input[name=filetoupload]'), [{ name: 'medlar.html', mimeType: 'text/html', buffer: first }]);
      await Promise.all([page.waitForNavigation(), page.click('input[name=import_file]')]);
      await page.waitForSelector('text=successfully processed');
    });
    expect(await byTitle('Medlar bletting')).toMatchObject({ tags: ['imported'] });
    const c = await synthesizeFrom(live.h, har, {
      purpose: 'import bookmarks from a file',
      hints: { arguments: { default_tags: 'imported' }, secrets: { account: live.secret }, allow_side_effects: true },
    });
    expect(c.status, c.text).toBe(200);
    expect(c.json.input_schema.properties.filetoupload).toMatchObject({ format: 'file-id' });
    const def = (await live.h.api('GET', `/v1beta/connectors/${c.json.id}/definition`)).json.definition;
    // Validated by importing the very file the person chose (its bookmark is there: skipped).
    expect(def.meta.validation).toMatchObject({ replayed: true });

    const next = bookmarks([
      ['https://orchard.example/cider-apples', 'Cider apple varieties', 'Bittersweets and sharps.'],
      ['https://orchard.example/scion-wood', 'Storing scion wood', 'Wrap in damp paper, keep cold.'],
    ]);
    const out = await run(live.h, {
      connector_id: c.json.id,
      arguments: { default_tags: 'cider', filetoupload: await uploadBytes(live.h, 'cider.html', next, 'text/html') },
      secret_bindings: { account: live.secret },
    });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(await byTitle('Cider apple varieties')).toMatchObject({ url: 'https://orchard.example/cider-apples', tags: ['cider'] });
    expect(await byTitle('Storing scion wood')).toMatchObject({ tags: ['cider'] });
    // What Shaarli said about the import (the form's page again, under its message).
    expect(out.result).toEqual({
      message: expect.stringMatching(/^File cider\.html \(\d+ bytes\) was successfully processed.*2 bookmarks imported/),
    });
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
