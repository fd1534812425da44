// Acceptance on a twenty-ninth real application we did not write: Tiny Tiny RSS 21 (Debian's
// tt-rss, PHP over PostgreSQL; a fresh database per run from the seed). Each flow is recorded here
// and now in Chromium, signing in through its form, then synthesized, replay-validated, published
// and RUN with NEW arguments; results are checked in its database. What tt-rss brings: a Dojo
// single-page UI whose every call is a form-encoded POST to one backend.php (`op` and `method`
// name it) answered in JSON, carrying a `csrf_token` the page wrote into an inline script; dialogs
// whose forms arrive as HTML inside JSON; and prompts (window.prompt) for new names. Opt-in:
// ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, TTRSS_USER, ttrssRows } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.ttrss);

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on tt-rss (%s)', (backend) => {
  const live = liveApp(APPS.ttrss, backend, TTRSS_USER.username, TTRSS_USER.password);
  const { flow, bound } = live;
  const rows = (sql: string) => ttrssRows(Number(new URL(live.url).port), sql);
  const hinted = (args: Record<string, unknown>) => ({ hints: { arguments: args, secrets: { account: live.secret } } });
  /** Records a flow after signing in through the login form, with every request to another host refused. */
  const record = (name: string, steps: (page: Page, base: string) => Promise<void>) =>
    live.record(name, async (p, base) => {
      await refuseOtherHosts(p, base);
      await p.goto(`${base}/`);
      await p.fill('input[name=login]', TTRSS_USER.username);
      await p.fill('input[name=password]', TTRSS_USER.password);
      await Promise.all([p.waitForNavigation(), p.press('input[name=password]', 'Enter')]);
      await p.waitForSelector('text=All articles');
      await steps(p, base);
    });

  it('the articles a search finds, run with ANOTHER search', async () => {
    const har = await record('search', async (p) => {
      await p.click('text=All articles');
      await p.waitForSelector('[data-article-id="1"]');
      await p.keyboard.press('/');
      await p.fill('.dijitDialog input[name=query]', 'apple');
      await p.keyboard.press('Enter');
      await p.waitForSelector('text=Search results: apple');
    });
    const { result } = await flow('tt-search', har, hinted({ query: 'apple' }), bound({ query: 'pears' }));
    const text = JSON.stringify(result);
    for (const t of ['Pruning pears in late winter', 'Pressing perry from pears']) expect(text).toContain(t);
    expect(text).not.toContain('Apple scab');
  });

  it('an article starred, run on ANOTHER article', async () => {
    const har = await record('star', async (p) => {
      await p.click('text=All articles');
      await p.waitForSelector('[data-article-id="10"]');
      await Promise.all([
        p.waitForResponse((r) => r.url().includes('backend.php') && (r.request().postData() ?? '').includes('mark')),
        p.click('.marked-10'),
      ]);
    });
    const marked = (id: number) => rows(`SELECT marked FROM ttrss_user_entries WHERE ref_id = ${id}`)[0]?.[0];
    expect(marked(10)).toBe('t');
    await flow('tt-star', har, hinted({ article: 10 }), bound({ article: 3 }));
    expect(marked(3)).toBe('t');
    expect(marked(4)).toBe('f');
  });

  it('a label created (its name asked by a prompt), run with ANOTHER name', async () => {
    const har = await record('label', async (p, base) => {
      await p.goto(`${base}/prefs.php`);
      await p.click('.dijitTab:has-text("Labels")');
      p.once('dialog', (d) => d.accept('Try this'));
      await Promise.all([
        p.waitForResponse((r) => r.url().includes('backend.php') && (r.request().postData() ?? '').includes('Try')),
        p.click('.dijitButton:has-text("Create label"), button:has-text("Create label")'),
      ]);
    });
    const labels = () => rows('SELECT caption FROM ttrss_labels2 ORDER BY id').map((r) => r[0]);
    expect(labels()).toEqual(['Try this']);
    await flow('tt-label', har, hinted({ caption: 'Try this' }), bound({ caption: 'Read later' }));
    expect(labels()).toEqual(['Try this', 'Read later']);
  });

  it("a feed renamed in its dialog, run on ANOTHER feed: the feed's other settings stay its own", async () => {
    const har = await record('rename', async (p, base) => {
      await p.goto(`${base}/prefs.php`);
      await p.click('.dijitTab:has-text("Feeds")');
      await p.click('.dijitTreeRow:has-text("Orchards") .dijitTreeExpando');
      await p.click('.dijitTreeLabel:has-text("Apple Journal")');
      await p.waitForSelector('.dijitDialog input[name=title]');
      await p.fill('.dijitDialog input[name=title]', 'Apple Growers Journal');
      await Promise.all([
        p.waitForResponse((r) => r.url().includes('backend.php') && (r.request().postData() ?? '').includes('editSave')),
        p.click('.dijitDialog .dijitButton:has-text("Save"), .dijitDialog button:has-text("Save")'),
      ]);
    });
    const feed = (id: number) => rows(`SELECT title, feed_url, cat_id FROM ttrss_feeds WHERE id = ${id}`)[0];
    expect(feed(2)?.[0]).toBe('Apple Growers Journal');
    await flow('tt-rename', har, hinted({ feed: 2, title: 'Apple Growers Journal' }), bound({ feed: 3, title: 'Cellar Notes' }));
    expect(feed(3)).toEqual(['Cellar Notes', 'http://feeds.cellar.test/cider.xml', '2']);
    expect(feed(2)).toEqual(['Apple Growers Journal', 'http://feeds.orchard.test/apples.xml', '1']);
  });
});
