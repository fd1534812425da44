// Acceptance on a forty-fourth real application we did not write: Gitit 0.15, a wiki in Haskell
// (Debian's gitit, its own Happstack server) whose pages are Markdown files in a git repository; a
// fresh copy of the seeded wiki per start. Each flow is recorded here and now in Chromium, then
// synthesized, replay-validated, published and RUN with NEW arguments; results are checked against
// the wiki's repository (`git`) and the wiki's own raw sources (`/_showraw`). What Gitit brings:
// page names in the address path (`/_history/Billing`, `/_category/Payments`), lists that are
// plain `<ul>`s of links with text between them (search hits with their matching lines, a page's
// revisions, an author's activity), a category page whose own navigation is a second list of
// links, a sign-in form with a session cookie, and an edit form that carries the revision it was
// read at (`sha1`, different for every page and every save). Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { fieldHolding, liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, GITIT_USER, gititGit, gititRaw } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.gitit);
type Item = Record<string, unknown>;

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Gitit (%s)', (backend) => {
  const live = liveApp(APPS.gitit, backend, GITIT_USER.username, GITIT_USER.password);
  const { flow, hinted, bound } = live;
  const signIn = async (page: Page, base: string) => {
    await page.goto(`${base}/_login`);
    await page.fill('#loginForm input[name="username"]', GITIT_USER.username);
    await page.fill('#loginForm input[name="password"]', GITIT_USER.password);
    await Promise.all([page.waitForNavigation(), page.click('#loginForm input[type="submit"]')]);
  };
  /** Records a flow from the front page, signed in through the login form first when `login`. */
  const record = (name: string, steps: (page: Page, base: string) => Promise<void>, login = false) =>
    live.record(name, async (page, base) => {
      await refuseOtherHosts(page, base);
      if (login) await signIn(page, base);
      await page.goto(`${base}/`);
      await page.waitForSelector('#content h1.pageTitle');
      await steps(page, base);
    });
  const open = async (page: Page, what: string, url: RegExp) => {
    await Promise.all([page.waitForURL(url), page.click(what)]);
    await page.waitForSelector('#content');
  };
  /** Pages whose source has every one of `words` (gitit's search: whole words, any case). */
  const pagesWith = (word: string) =>
    gititGit('grep', '-i', '-l', '-w', word, 'HEAD')
      .map((f) => f.replace(/^HEAD:/, '').replace(/\.page$/, ''))
      .sort();
  const withText = (items: Item[], text: string) => items.filter((i) => JSON.stringify(i).includes(text));

  it('pages searched for a word, run with ANOTHER word: every page that has it', async () => {
    const har = await record('search', async (page) => {
      await page.fill('#searchform input[name="patterns"]', 'payments');
      await open(page, '#searchform input[type="submit"]', /_search\?patterns=payments/);
      await page.waitForSelector('#content ol li');
    });
    const { result } = await flow('gt-search', har, hinted({ patterns: 'payments' }), bound({ patterns: 'dashboard' }));
    const items = result.items as Item[];
    const want = pagesWith('dashboard');
    expect(want).toHaveLength(8);
    expect(items).toHaveLength(want.length);
    fieldHolding(items, want, true);
    // (Each hit keeps the lines that matched.)
    expect(withText(items, 'check its dashboard')).toHaveLength(8);
    const { result: one } = await flow('gt-search-one', har, hinted({ patterns: 'payments' }), bound({ patterns: 'invoices' }));
    expect(one.items as Item[]).toHaveLength(1);
    expect(JSON.stringify(one.items)).toContain('Billing');
  });

  it("a page's history, run on ANOTHER page: every revision, newest first, with its author and message", async () => {
    const har = await record('history', async (page, base) => {
      await page.goto(`${base}/_index`);
      await open(page, '#content ul.index a:text-is("Billing")', /\/Billing$/);
      await open(page, 'ul.tabs a:text-is("history")', /_history\/Billing/);
      await page.waitForSelector('ul.history li');
    });
    const { result } = await flow('gt-history', har, hinted({ page: 'Billing' }), bound({ page: 'Rota' }));
    const items = result.items as Item[];
    const subjects = gititGit('log', '--format=%s', '--', 'Rota.page');
    expect(subjects).toHaveLength(30);
    expect(items).toHaveLength(30);
    fieldHolding(items, subjects);
    fieldHolding(items, gititGit('log', '--format=%an', '--', 'Rota.page'));
    expect(JSON.stringify(items)).not.toContain('Billing');
  });

  it("an author's recent activity, run for ANOTHER author: each of their changes with its page", async () => {
    const har = await record('activity', async (page, base) => {
      await page.goto(`${base}/_history/Billing`);
      await open(page, 'ul.history span.author a:text-is("Ada Moreno") >> nth=0', /forUser=Ada/);
      await page.waitForSelector('ul.history li');
    });
    const { result } = await flow('gt-activity', har, hinted({ forUser: 'Ada Moreno' }), bound({ forUser: 'Chidi Okafor' }));
    const items = result.items as Item[];
    const subjects = gititGit('log', '--format=%s', '--author=Chidi Okafor');
    expect(items).toHaveLength(subjects.length);
    fieldHolding(items, subjects);
    expect(JSON.stringify(items)).not.toContain('Ada Moreno');
    // (Each change names the page it changed.)
    expect(withText(items, 'Rota').length).toBe(subjects.filter((s) => s.startsWith('Rota')).length);
  });

  it("a category's pages, run on ANOTHER category: its pages, not the page's category navigation", async () => {
    const har = await record('category', async (page) => {
      await open(page, '.sitenav a:text-is("Categories")', /_categories/);
      await open(page, '#content a:text-is("Payments")', /_category\/Payments/);
      await page.waitForSelector('#content ul li');
    });
    const { result } = await flow('gt-category', har, hinted({ category: 'Payments' }), bound({ category: 'Service' }));
    const items = result.items as Item[];
    const want = pagesWith('Service').filter((p) => p !== 'Front Page' && p !== 'Help' && !p.startsWith('Gitit'));
    expect(want).toHaveLength(8);
    expect(items).toHaveLength(8);
    fieldHolding(items, want, true);
  });

  it('a page read, run on ANOTHER page: its own text', async () => {
    const har = await record('page', async (page, base) => {
      await page.goto(`${base}/_index`);
      await open(page, '#content ul.index a:text-is("Billing")', /\/Billing$/);
      await page.waitForSelector('#wikipage');
    });
    const { result } = await flow('gt-page', har, hinted({ page: 'Billing' }), bound({ page: 'Scheduler' }));
    // (Its title is the page's heading above the text, not the text's first section heading.)
    expect(result.title).toBe('Scheduler');
    const text = JSON.stringify(result);
    expect(text).toContain('Scheduler runs the recurring jobs. It belongs to the jobs team.');
    expect(text).toContain('Page the jobs on-call when Scheduler has failed twice in ten minutes.');
    expect(text).not.toContain('invoices');
  });

  it('a new page written after signing in, run with ANOTHER name, text and message', async () => {
    const har = await record(
      'create',
      async (page, base) => {
        await page.goto(`${base}/_edit/Deploy%20Checklist`);
        await page.fill('#editedText', 'Tag the release, then deploy the canary first.');
        await page.fill('#logMsg', 'Start the deploy checklist');
        await open(page, '#editform input[name="update"]', /\/Deploy%20Checklist$/);
      },
      true,
    );
    expect(await gititRaw(live.url, 'Deploy Checklist')).toContain('canary');
    const text = 'Drain the queue before the migration runs.';
    const { result } = await flow(
      'gt-create',
      har,
      hinted({
        page: 'Deploy Checklist',
        editedText: 'Tag the release, then deploy the canary first.',
        logMsg: 'Start the deploy checklist',
      }),
      bound({ page: 'Migration Notes', editedText: text, logMsg: 'Notes for the migration' }),
    );
    expect((await gititRaw(live.url, 'Migration Notes'))?.trim()).toBe(text);
    // (The answer is the page the save landed on, not the sidebar every page shares.)
    expect(result).toEqual({ title: 'Migration Notes', content: text });
    const history = await fetch(`${live.url}/_history/Migration%20Notes`).then((r) => r.text());
    expect(history).toContain('Notes for the migration');
    expect(history).toContain('seed');
  });

  it('a page edited after signing in (its form carries the revision read), run on ANOTHER page', async () => {
    const har = await record(
      'edit',
      async (page, base) => {
        await page.goto(`${base}/Gateway`);
        await open(page, 'ul.tabs a:text-is("edit")', /_edit\/Gateway/);
        await page.fill('#editedText', 'Gateway routes every public request through two regions.');
        await page.fill('#logMsg', 'Two regions');
        await open(page, '#editform input[name="update"]', /\/Gateway$/);
      },
      true,
    );
    expect(await gititRaw(live.url, 'Gateway')).toContain('two regions');
    const text = 'Mailer sends receipts, password resets and weekly digests.';
    await flow(
      'gt-edit',
      har,
      hinted({ page: 'Gateway', editedText: 'Gateway routes every public request through two regions.', logMsg: 'Two regions' }),
      bound({ page: 'Mailer', editedText: text, logMsg: 'Weekly digests' }),
    );
    // (Saved as a new revision of Mailer, not merged against Gateway's: the revision is Mailer's own.)
    expect((await gititRaw(live.url, 'Mailer'))?.trim()).toBe(text);
    expect(await fetch(`${live.url}/_history/Mailer`).then((r) => r.text())).toContain('Weekly digests');
  });
});
