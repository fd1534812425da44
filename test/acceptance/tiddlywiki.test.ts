// Acceptance on a thirty-first real application we did not write: TiddlyWiki 5.4 (npm `tiddlywiki`,
// its Node.js server over a fresh copy of a seeded wiki per run, behind HTTP Basic auth). Each flow
// is recorded here and now in Chromium, then synthesized, replay-validated, published and RUN with
// NEW arguments; results are checked against the tiddlers the server holds. What TiddlyWiki brings:
// a single-page app that gets every tiddler inside its first page (a JSON store in a script tag) and
// saves by JSON PUT and DELETE to a URL whose last segment is the tiddler's title; editing saves
// drafts ("Draft of 'New Tiddler' by seed") and the story list as it goes, so the request that
// matters is one among many that echo what was typed. Opt-in: ACCEPTANCE=1.
import crypto from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, TIDDLYWIKI_USER, tiddler } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.tiddlywiki);

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on TiddlyWiki (%s)', (backend) => {
  // (Signed in through the browser's Basic dialog: the connector answers the challenge, basic_auth.)
  const live = liveApp(APPS.tiddlywiki, backend, TIDDLYWIKI_USER.username, TIDDLYWIKI_USER.password, {
    httpCredentials: TIDDLYWIKI_USER,
  });
  const { flow, bound } = live;
  const hinted = (args: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
    hints: { arguments: args, secrets: { account: live.secret }, allow_side_effects: true, ...more },
  });
  /** Records a flow from the wiki's page, with every request to another host refused. */
  const record = (name: string, steps: (page: Page) => Promise<void>) =>
    live.record(name, async (page, base) => {
      await refuseOtherHosts(page, base);
      await page.goto(`${base}/`);
      await page.waitForSelector('.tc-story-river');
      await steps(page);
    });
  /** Waits for the server to hold the tiddler's save (the page syncs a moment after "done"). */
  const saved = (page: Page, title: string, method = 'PUT') =>
    page.waitForResponse(
      (r) => r.request().method() === method && decodeURIComponent(new URL(r.url()).pathname).endsWith(`/tiddlers/${title}`),
      { timeout: 15_000 },
    );
  /** Opens a tiddler from the sidebar's search. */
  const open = async (page: Page, title: string) => {
    await page.locator('.tc-sidebar-search input[type=search]').fill(title.split(' ')[0]!);
    await page.locator('.tc-search-results a', { hasText: title }).first().click();
    await page.waitForSelector(`.tc-tiddler-view-frame[data-tiddler-title="${title}"]`);
  };
  const editor = (page: Page) => page.locator('.tc-tiddler-edit-frame').first();

  it('a tiddler created with a title, a text and a tag, run with NEW ones', async () => {
    const stamp = crypto.randomBytes(3).toString('hex');
    const title = `Pear Rust ${stamp}`;
    const har = await record('create', async (page) => {
      await page.click('button[aria-label="new tiddler"]');
      const ed = editor(page);
      await ed.locator('input.tc-titlebar').fill(title);
      await ed.frameLocator('iframe').first().locator('textarea').fill(`Orange spots on pear leaves (${stamp}).`);
      await ed.locator('input[placeholder="tag name"]').fill('Diseases');
      await ed.locator('input[placeholder="tag name"]').press('Enter');
      await Promise.all([saved(page, title), ed.locator('button[aria-label="Confirm changes to this tiddler"]').click()]);
    });
    const made = `Plum Pox ${stamp}`;
    await flow(
      'tw-create',
      har,
      hinted({ title, text: `Orange spots on pear leaves (${stamp}).`, tag: 'Diseases' }),
      bound({ title: made, text: `Rings on plum leaves (${stamp}).`, tag: 'Quarantine' }),
    );
    const t = await tiddler(live.url, made);
    expect(t?.text).toBe(`Rings on plum leaves (${stamp}).`);
    expect(t?.tags).toBe('Quarantine');
    // No draft of it stays behind.
    expect(await tiddler(live.url, `Draft of '${made}' by seed`)).toBeNull();
  });

  it('a tiddler deleted after its confirmation, run on ANOTHER tiddler', async () => {
    const har = await record('delete', async (page) => {
      page.on('dialog', (d) => void d.accept());
      await open(page, 'Apple Scab');
      const frame = page.locator('.tc-tiddler-view-frame[data-tiddler-title="Apple Scab"]');
      await frame.locator('button[aria-label="Edit this tiddler"]').click();
      await Promise.all([saved(page, 'Apple Scab', 'DELETE'), editor(page).locator('button[aria-label="Delete this tiddler"]').click()]);
    });
    expect(await tiddler(live.url, 'Apple Scab')).toBeNull();
    expect(await tiddler(live.url, 'Winter Pruning')).not.toBeNull();
    await flow('tw-delete', har, hinted({ title: 'Apple Scab' }), bound({ title: 'Winter Pruning' }));
    expect(await tiddler(live.url, 'Winter Pruning')).toBeNull();
    expect(await tiddler(live.url, 'Bramley Seedling')).not.toBeNull();
  });
});
