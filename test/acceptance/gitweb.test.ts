// Acceptance on a forty-second real application we did not write: gitweb, git's own CGI repository
// browser (Debian's git, served by Apache's mod_cgi over three seeded bare repositories with fixed
// authors and dates). Each flow is recorded here and now in Chromium, then synthesized,
// replay-validated, published and RUN with NEW arguments; results are checked against `git` itself
// on the same repositories. What gitweb brings: tables without header rows whose last column is
// each row's "commit | commitdiff | tree" links, addresses whose parameters are separated by `;`
// (`?p=atlas.git;a=commit;h=…`), a log paged 100 commits at a time by "next" links, long
// descriptions cut short on the page (the whole text in the link's `title`), and a commit read as
// label/value rows. No sign-in. Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { fieldHolding, liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, gitwebGit } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.gitweb);

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on gitweb (%s)', (backend) => {
  const live = liveApp(APPS.gitweb, backend, 'nobody', 'no-password');
  const { flow } = live;
  /** Records a flow from the projects page, with every request to another host refused. */
  const record = (name: string, steps: (page: Page) => Promise<void>) =>
    live.record(name, async (page, base) => {
      await refuseOtherHosts(page, base);
      await page.goto(`${base}/`);
      await page.waitForSelector('table.project_list');
      await steps(page);
    });
  const hinted = (args: Record<string, unknown>, more: Record<string, unknown> = {}) => ({ hints: { arguments: args, ...more } });
  const bound = (args: Record<string, unknown>) => ({ arguments: args });
  /** Opens a project's summary from the projects table. */
  const openProject = async (page: Page, project: string) => {
    await Promise.all([page.waitForURL(/a=summary/), page.click(`table.project_list a.list[href*="p=${project};a=summary"] >> nth=0`)]);
  };
  type Item = Record<string, unknown>;
  const values = (items: Item[]) => items.map((i) => Object.values(i).map(String));

  it('projects searched by a word of their description, run with ANOTHER word: the matching projects, whole descriptions', async () => {
    const har = await record('projects', async (page) => {
      await page.fill('input[name="s"]', 'tiles');
      await Promise.all([page.waitForURL(/s=tiles/), page.click('input[type="submit"][value="Search"]')]);
      await page.waitForSelector('table.project_list');
    });
    const { result } = await flow('gw-projects', har, hinted({ s: 'tiles' }), bound({ s: 'status' }));
    const items = result.items as Item[];
    expect(items).toHaveLength(1);
    const text = JSON.stringify(items[0]);
    expect(text).toContain('beacon.git');
    expect(text).toContain('Lee Park');
    // (The page cuts the description short; the link's title holds it whole.)
    expect(text).toContain('Uptime beacon agent with a tiny status API');
    const { result: dark } = await flow('gw-projects-dark', har, hinted({ s: 'tiles' }), bound({ s: 'dark' }));
    expect(JSON.stringify(dark.items)).toContain('cobalt.git');
    expect(dark.items as Item[]).toHaveLength(1);
  });

  it("a project's log over every page, run on ANOTHER project: every commit, newest first, with its author", async () => {
    const har = await record('shortlog', async (page) => {
      await openProject(page, 'atlas.git');
      await Promise.all([page.waitForURL(/a=shortlog/), page.click('div.page_nav a:text-is("shortlog")')]);
      await Promise.all([page.waitForURL(/pg=1/), page.click('a[accesskey="n"]')]);
      await page.waitForSelector('table.shortlog');
    });
    const { result } = await flow('gw-shortlog', har, hinted({ p: 'atlas.git' }), bound({ p: 'beacon.git' }));
    const items = result.items as Item[];
    const subjects = gitwebGit('beacon', 'log', '--format=%s');
    expect(items).toHaveLength(subjects.length);
    fieldHolding(items, subjects);
    fieldHolding(items, gitwebGit('beacon', 'log', '--format=%an'));
    // (And the recorded project, over both of its pages.)
    const { result: atlas } = await flow('gw-shortlog-atlas', har, hinted({ p: 'atlas.git' }), bound({ p: 'atlas.git' }));
    expect(atlas.items as Item[]).toHaveLength(130);
    fieldHolding(atlas.items as Item[], gitwebGit('atlas', 'log', '--format=%s'));
  });

  it("commits searched for a word of their messages, run with ANOTHER word: git's own hits", async () => {
    const har = await record('search', async (page) => {
      await openProject(page, 'atlas.git');
      await page.selectOption('select[name="st"]', 'commit');
      await page.fill('div.search input[name="s"]', 'antimeridian');
      await Promise.all([page.waitForURL(/a=search/), page.press('div.search input[name="s"]', 'Enter')]);
      await page.waitForSelector('table.commit_search');
    });
    const { result } = await flow('gw-search', har, hinted({ s: 'antimeridian' }), bound({ s: 'retina' }));
    const items = result.items as Item[];
    const want = gitwebGit('atlas', 'log', '--format=%s', '-i', '--grep=retina');
    expect(want.length).toBeGreaterThan(3);
    expect(items).toHaveLength(want.length);
    fieldHolding(items, want);
    expect(values(items).flat().join(' ')).not.toContain('antimeridian');
  });

  it('a commit opened from the log, run on ANOTHER commit: its author, committer, dates and message', async () => {
    const [, , third] = gitwebGit('atlas', 'log', '--format=%H');
    const har = await record('commit', async (page) => {
      await openProject(page, 'atlas.git');
      await Promise.all([page.waitForURL(/a=shortlog/), page.click('div.page_nav a:text-is("shortlog")')]);
      await Promise.all([page.waitForURL(/a=commit;h=/), page.click(`table.shortlog a.subject[href$="h=${third}"]`)]);
      await page.waitForSelector('div.page_body');
    });
    const other = gitwebGit('atlas', 'log', '--format=%H', '--skip=40', '-1')[0]!;
    const [subject, author, email, date, committer, parent] = gitwebGit(
      'atlas',
      'show',
      '-s',
      '--format=%s%n%an%n%ae%n%ad%n%cn%n%P',
      '--date=format:%-d %b %Y %H:%M:%S',
      other,
    );
    const { result } = await flow('gw-commit', har, hinted({ h: third }), bound({ h: other }));
    // (The header's rows by their labels, a blank label continuing the row above; the message.)
    expect(result).toMatchObject({ author: `${author} <${email}>`, commit: other, parent, committer: expect.stringContaining(committer!) });
    expect(result.author_detail).toContain(date!);
    expect(String(result.content)).toContain(subject!);
    expect(JSON.stringify(result)).not.toContain(third);
  });

  it('a directory of the tree, run on ANOTHER directory: its entries by name', async () => {
    const har = await record('tree', async (page) => {
      await openProject(page, 'atlas.git');
      await Promise.all([page.waitForURL(/a=tree/), page.click('div.page_nav a:text-is("tree")')]);
      await Promise.all([page.waitForURL(/f=src/), page.click('table.tree td.list a:text-is("src")')]);
      await page.waitForSelector('table.tree');
    });
    const { result } = await flow('gw-tree', har, hinted({ f: 'src' }), bound({ f: 'docs' }));
    // (The listing's first row is its parent, "..", as on the page.)
    const [parent, ...items] = result.items as Item[];
    expect(parent!.name).toBe('..');
    const names = gitwebGit('atlas', 'ls-tree', '--name-only', 'HEAD', 'docs/').map((n) => n.replace(/^docs\//, ''));
    expect(items).toHaveLength(names.length);
    fieldHolding(items, names);
  });
});
