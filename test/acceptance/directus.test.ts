// Acceptance on an eighth real application we did not write, and the first single-page app:
// Directus 10 (npm; a Vue admin app over its JSON REST API, on the local PostgreSQL; installed and
// seeded by scripts/acceptance-setup.sh). Each flow is recorded here and now with Playwright's
// recordHar in Chromium, then synthesized, replay-validated, published and RUN with NEW arguments;
// results are checked against Directus's own API. What Directus brings: a JSON sign-in that sets a
// session cookie, dozens of background XHRs around every screen (settings, permissions, presets,
// notifications, counts), search typed into a live filter box, and items read, changed (PATCH) and
// created (POST) as JSON.
// Opt-in: ACCEPTANCE=1.
import crypto from 'node:crypto';
import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, DIRECTUS_ADMIN, directusApi, directusForgetViews, directusToken } from '../helpers/real-apps.js';
import { liveApp } from '../helpers/acceptance.js';
import { run } from '../helpers/runs.js';
import { synthesizeFrom, uploadBytes } from '../helpers/synth.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.directus);
const { email: EMAIL, password: PASSWORD } = DIRECTUS_ADMIN;

type Book = { id: number; title: string; author: string; year: number; in_stock: boolean; summary: string };

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Directus (%s)', (backend) => {
  const live = liveApp(APPS.directus, backend, EMAIL, PASSWORD);
  const { record, flow } = live;
  const api = (method: string, path: string) => directusApi(live.url, method, path);
  /** The books, by `query` (Directus's query string). */
  const books = (query = ''): Promise<Book[]> => api('GET', `/items/books?limit=-1&sort[]=id&${query}`);
  // The app remembers the last search of the list (a saved view): every flow starts from none.
  beforeEach(() => directusForgetViews(live.url));

  async function login(page: Page, base: string) {
    await page.goto(`${base}/admin/login`);
    await page.fill('input[type=email]', EMAIL);
    await page.fill('input[type=password]', PASSWORD);
    await Promise.all([page.waitForURL(/\/admin\/(?!login)/), page.click('button[type=submit]')]);
  }
  const answered = (page: Page, method: string, url: RegExp) =>
    page.waitForResponse((r) => r.request().method() === method && url.test(r.url()));
  const saveButton = 'header button:has(i[data-icon="check"])';

  it('search typed into the live filter box: every hit, for a NEW query', async () => {
    const har = await record('search', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/admin/content/books`);
      await page.waitForSelector('text=The Broken Fence');
      await page.click('.search-input');
      await Promise.all([answered(page, 'GET', /items\/books\?.*limit=25.*search=Clara/), page.fill('.search-input input', 'Clara')]);
    });
    const { result } = await flow(
      'dx-search',
      har,
      { hints: { arguments: { query: 'Clara' }, secrets: { account: live.secret } } },
      { arguments: { query: 'Basil' }, secret_bindings: { account: live.secret } },
    );
    const truth = await books('search=Basil');
    expect(truth.length).toBeGreaterThan(1);
    // The app's own answer (its columns: title, author, year, in stock, id), for the new query.
    expect(result.data).toEqual(truth.map(({ summary: _, ...b }) => b));
  });

  it('the collection over every page (the person went to page 2 of the table)', async () => {
    const all = await books();
    expect(all.length).toBeGreaterThan(25); // (each run of the create flow adds one)
    const har = await record('pages', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/admin/content/books`);
      await page.waitForSelector('text=The Broken Fence');
      await Promise.all([answered(page, 'GET', /items\/books\?.*limit=25.*page=2/), page.click('.pagination button:has-text("2")')]);
    });
    const { result } = await flow(
      'dx-pages',
      har,
      { hints: { result: [all[0]!.title], secrets: { account: live.secret } } },
      { secret_bindings: { account: live.secret } },
    );
    expect(result.items.map((b: Book) => b.title)).toEqual(all.map((b) => b.title));
  });

  it('an item: its fields, for ANOTHER item', async () => {
    const [fence] = await books('filter[title][_eq]=The Broken Fence');
    const [other] = await books('filter[title][_eq]=Orchard Notes volume 7');
    const har = await record('item', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/admin/content/books`);
      await Promise.all([answered(page, 'GET', /items\/books\/\d+/), page.click('text=The Broken Fence')]);
    });
    const { result } = await flow(
      'dx-item',
      har,
      { hints: { arguments: { book: fence!.id }, secrets: { account: live.secret } } },
      { arguments: { book: other!.id }, secret_bindings: { account: live.secret } },
    );
    expect(result).toEqual({ data: other });
  });

  it("change ANOTHER item's year (a PATCH of the changed field only)", async () => {
    const [rec] = await books('filter[title][_eq]=Orchard Notes volume 9');
    const [other] = await books('filter[title][_eq]=Orchard Notes volume 14');
    const har = await record('edit', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/admin/content/books/${rec!.id}`);
      await page.fill('input[type=number]', String(rec!.year + 1));
      await Promise.all([answered(page, 'PATCH', /items\/books\/\d+/), page.click(saveButton)]);
    });
    const year = 1900 + (Date.now() % 100);
    await flow(
      'dx-edit',
      har,
      { hints: { arguments: { book: rec!.id, year: rec!.year + 1 }, secrets: { account: live.secret }, allow_side_effects: true } },
      { arguments: { book: other!.id, year }, secret_bindings: { account: live.secret } },
    );
    expect(await books(`filter[id][_eq]=${other!.id}`)).toEqual([{ ...other, year }]);
  });

  it("the book clicked in the list by its title: change ANOTHER book's year, named by ITS title, on the list's SECOND page", async () => {
    // (The person never types an id: the PATCH's id is read from the list the page loaded, from
    // the record whose title the run names, not from the clicked record's place in the list. The
    // list shows 25 books a page, sorted by id; volume 28 is the 29th book: page 2.)
    const [rec] = await books('filter[title][_eq]=Orchard Notes volume 5');
    const [other] = await books('filter[title][_eq]=Orchard Notes volume 28');
    expect((await books()).findIndex((b) => b.id === other!.id)).toBeGreaterThanOrEqual(25);
    const har = await record('pick-edit', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/admin/content/books`);
      await page.waitForSelector('text=The Broken Fence');
      await Promise.all([answered(page, 'GET', /items\/books\/\d+/), page.getByText('Orchard Notes volume 5', { exact: true }).click()]);
      await page.fill('input[type=number]', String(rec!.year + 1));
      await Promise.all([answered(page, 'PATCH', /items\/books\/\d+/), page.click(saveButton)]);
    });
    const year = 1800 + (Date.now() % 100);
    const { def } = await flow(
      'dx-pick-edit',
      har,
      {
        hints: {
          arguments: { title: 'Orchard Notes volume 5', year: rec!.year + 1 },
          secrets: { account: live.secret },
          allow_side_effects: true,
        },
      },
      { arguments: { title: 'Orchard Notes volume 28', year }, secret_bindings: { account: live.secret } },
    );
    expect(JSON.stringify(def)).toContain('"where":{"title":"{{args.title}}"}');
    expect(JSON.stringify(def)).toContain('"until_found":true');
    expect(await books(`filter[id][_eq]=${other!.id}`)).toEqual([{ ...other, year }]);
    // The recorded book has the year its replay gave it, no other.
    expect((await books(`filter[id][_eq]=${rec!.id}`))[0]!.year).toBe(rec!.year + 1);
  });

  it('create a NEW item (a JSON POST)', async () => {
    const har = await record('create', async (page, base) => {
      await login(page, base);
      await page.goto(`${base}/admin/content/books/+`);
      const text = page.locator('input[type=text]');
      await text.nth(0).fill('Grafting for Beginners');
      await text.nth(1).fill('Ada Orchard');
      await page.fill('input[type=number]', '2019');
      await page.fill('textarea', 'How to graft apple trees');
      await Promise.all([answered(page, 'POST', /items\/books/), page.click(saveButton)]);
    });
    const title = `Mulching Plums ${Date.now()}`;
    const { result } = await flow(
      'dx-create',
      har,
      {
        hints: {
          arguments: { title: 'Grafting for Beginners', author: 'Ada Orchard', year: 2019, summary: 'How to graft apple trees' },
          secrets: { account: live.secret },
          allow_side_effects: true,
        },
      },
      { arguments: { title, author: 'Basil Pruner', year: 2022, summary: 'Plums want mulch' }, secret_bindings: { account: live.secret } },
    );
    expect(await books(`filter[title][_eq]=${encodeURIComponent(title)}`)).toMatchObject([
      { author: 'Basil Pruner', year: 2022, summary: 'Plums want mulch' },
    ]);
    expect(JSON.stringify(result)).toContain(title);
  });
  it("upload a file to the file library (chosen in the page's file chooser): run with ANOTHER file, byte for byte", async () => {
    const scan = Buffer.concat([Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1'), crypto.randomBytes(20_000)]);
    const har = await live.recordCaptured('upload', async (page, base, choose) => {
      await login(page, base);
      await page.goto(`${base}/admin/files`);
      await page.waitForSelector('text=File Library');
      await page.locator('header [data-icon=add] >> visible=true').first().click();
      await choose(page, () => page.locator('.v-dialog [data-icon=file_upload], [data-icon=file_upload]').first().click(), [
        { name: 'orchard-survey.pdf', mimeType: 'application/pdf', buffer: scan },
      ]);
      await answered(page, 'POST', /\/files$/);
    });
    const before = (await api('GET', '/files?limit=-1&fields=id')).length;
    // (The secret names the account; the file is the caller's: an argument of format file-id.)
    const c = await synthesizeFrom(live.h, har, {
      purpose: 'upload a file to the file library',
      hints: { secrets: { account: live.secret }, allow_side_effects: true },
    });
    expect(c.status, c.text).toBe(200);
    const fileArg = Object.entries<any>(c.json.input_schema.properties).find(([, p]) => p.format === 'file-id')?.[0];
    expect(fileArg).toBeTruthy();
    const def = (await live.h.api('GET', `/v1beta/connectors/${c.json.id}/definition`)).json.definition;
    // Validated by uploading the very file the person chose.
    expect(def.meta.validation).toMatchObject({ replayed: true });
    expect((await api('GET', '/files?limit=-1&fields=id')).length).toBe(before + 1);

    const photo = Buffer.concat([Buffer.from('%PDF-1.7\n'), crypto.randomBytes(30_000)]);
    const fileId = await uploadBytes(live.h, 'pear-grafting.pdf', photo, 'application/pdf');
    const out = await run(live.h, {
      connector_id: c.json.id,
      arguments: { [fileArg!]: fileId },
      secret_bindings: { account: live.secret },
    });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    const [made] = await api('GET', '/files?sort[]=-uploaded_on&limit=1');
    expect(made).toMatchObject({ filename_download: 'pear-grafting.pdf', type: 'application/pdf', filesize: String(photo.length) });
    expect(JSON.stringify(out.result)).toContain(made.id);
    // The bytes Directus stored are the caller's.
    const token = await directusToken(live.url);
    const stored = Buffer.from(
      await (await fetch(`${live.url}/assets/${made.id}`, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer(),
    );
    expect(stored.equals(photo)).toBe(true);
  });
});
