// Acceptance on a forty-third real application we did not write: cgit, a repository browser written
// in C (Debian's cgit, served by Apache's mod_cgi over gitweb's three seeded repositories: the same
// commits in other markup). Each flow is recorded here and now in Chromium, then synthesized,
// replay-validated, published and RUN with NEW arguments; results are checked against `git` itself.
// What cgit brings: addresses that are paths (`/atlas.git/tree/src`, `/atlas.git/log/?ofs=50`),
// headed tables whose subject cells carry branch and tag badges, a log paged 50 commits at a time
// by a "[next]" link, a search form in the tab bar, and a commit's header as <th> labels with a
// second value in a third cell (the date beside the author). No sign-in. Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { fieldHolding, liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, gitwebGit } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.cgit);

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on cgit (%s)', (backend) => {
  const live = liveApp(APPS.cgit, backend, 'nobody', 'no-password');
  const { flow } = live;
  /** Records a flow from the repository index, with every request to another host refused. */
  const record = (name: string, steps: (page: Page) => Promise<void>) =>
    live.record(name, async (page, base) => {
      await refuseOtherHosts(page, base);
      await page.goto(`${base}/`);
      await page.waitForSelector('table.list');
      await steps(page);
    });
  const hinted = (args: Record<string, unknown>) => ({ hints: { arguments: args } });
  const bound = (args: Record<string, unknown>) => ({ arguments: args });
  /** Opens a repository's log from the index. */
  const openLog = async (page: Page, repo: string) => {
    await Promise.all([page.waitForURL(new RegExp(`/${repo}/$`)), page.click(`table.list a[href="/${repo}/"] >> nth=0`)]);
    await Promise.all([page.waitForURL(/\/log\/$/), page.click('table.tabs a:text-is("log")')]);
  };
  type Item = Record<string, unknown>;

  it('repositories searched, run with ANOTHER word: the matching repository with its description and owner', async () => {
    const har = await record('index', async (page) => {
      await page.fill('input[name="q"]', 'tiles');
      await Promise.all([page.waitForURL(/q=tiles/), page.press('input[name="q"]', 'Enter')]);
      await page.waitForSelector('table.list');
    });
    const { result } = await flow('cg-index', har, hinted({ q: 'tiles' }), bound({ q: 'status' }));
    const items = result.items as Item[];
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ name: 'beacon.git', description: 'Uptime beacon agent with a tiny status API', owner: 'Lee Park' });
  });

  it("a repository's log over every page, run on ANOTHER repository: every commit with its author", async () => {
    const har = await record('log', async (page) => {
      await openLog(page, 'atlas.git');
      await Promise.all([page.waitForURL(/ofs=50/), page.click('ul.pager a:text-is("[next]")')]);
      await page.waitForSelector('table.list');
    });
    const { result } = await flow('cg-log', har, hinted({ repo: 'atlas.git' }), bound({ repo: 'beacon.git' }));
    const items = result.items as Item[];
    expect(items).toHaveLength(25);
    fieldHolding(items, gitwebGit('beacon', 'log', '--format=%s'));
    fieldHolding(items, gitwebGit('beacon', 'log', '--format=%an'));
    const { result: atlas } = await flow('cg-log-atlas', har, hinted({ repo: 'atlas.git' }), bound({ repo: 'atlas.git' }));
    expect(atlas.items as Item[]).toHaveLength(130);
    // (The newest commit's subject without its HEAD and branch badges; a tagged one without its tag.)
    fieldHolding(atlas.items as Item[], gitwebGit('atlas', 'log', '--format=%s'));
  });

  it("the log searched for a word of the messages, run with ANOTHER word: git's own hits", async () => {
    const har = await record('search', async (page) => {
      await openLog(page, 'atlas.git');
      await page.selectOption('select[name="qt"]', 'grep');
      await page.fill('input.txt[name="q"]', 'antimeridian');
      await Promise.all([page.waitForURL(/q=antimeridian/), page.press('input.txt[name="q"]', 'Enter')]);
      await page.waitForSelector('table.list');
    });
    const { result } = await flow('cg-search', har, hinted({ q: 'antimeridian' }), bound({ q: 'retina' }));
    const want = gitwebGit('atlas', 'log', '--format=%s', '-i', '--grep=retina');
    expect(result.items as Item[]).toHaveLength(want.length);
    fieldHolding(result.items as Item[], want);
  });

  it('a commit opened from the log, run on ANOTHER commit: author and date, committer, ids and message', async () => {
    const [, , third] = gitwebGit('atlas', 'log', '--format=%H');
    const har = await record('commit', async (page) => {
      await openLog(page, 'atlas.git');
      await Promise.all([page.waitForURL(/commit\/\?id=/), page.click(`table.list a[href$="id=${third}"]:not(.deco) >> nth=0`)]);
      await page.waitForSelector('table.commit-info');
    });
    const other = gitwebGit('atlas', 'log', '--format=%H', '--skip=40', '-1')[0]!;
    const [subject, author, email, date, committer, parent] = gitwebGit(
      'atlas',
      'show',
      '-s',
      '--format=%s%n%an%n%ae%n%ad%n%cn%n%P',
      '--date=format:%Y-%m-%d %H:%M:%S',
      other,
    );
    const { result } = await flow('cg-commit', har, hinted({ id: third }), bound({ id: other }));
    expect(result).toMatchObject({
      author: `${author} <${email}>`,
      commit: expect.stringContaining(other),
      parent: expect.stringContaining(parent!),
    });
    expect(String(result.author_detail)).toContain(date!);
    expect(String(result.committer)).toContain(committer!);
    // (The subject on its line over the message: no "tests" field from its colon.)
    expect(result.summary).toBe(subject);
    expect(String(result.content)).toMatch(/^Change \d+ of atlas: /);
    expect(JSON.stringify(result)).not.toContain(third);
  });

  it('a directory of the tree, run on ANOTHER directory: its entries by name', async () => {
    const har = await record('tree', async (page) => {
      await Promise.all([page.waitForURL(/atlas\.git\/$/), page.click('table.list a[href="/atlas.git/"] >> nth=0')]);
      await Promise.all([page.waitForURL(/\/tree\/$/), page.click('table.tabs a:text-is("tree")')]);
      await Promise.all([page.waitForURL(/\/tree\/src$/), page.click('table.list a:text-is("src")')]);
      await page.waitForSelector('table.list');
    });
    const { result } = await flow('cg-tree', har, hinted({ path: 'src' }), bound({ path: 'docs' }));
    const items = result.items as Item[];
    const names = gitwebGit('atlas', 'ls-tree', '--name-only', 'HEAD', 'docs/').map((n) => n.replace(/^docs\//, ''));
    expect(items).toHaveLength(names.length);
    fieldHolding(items, names);
  });
});
