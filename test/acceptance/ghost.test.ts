// Acceptance on an eleventh real application we did not write: Ghost 5 (npm; a Node.js publishing
// platform on SQLite, with its default theme "Source"; installed and seeded by
// scripts/acceptance-setup.sh). Each flow is recorded here and now with Playwright's recordHar in
// Chromium, then synthesized, replay-validated, published and RUN with NEW arguments; results are
// checked against Ghost's own Admin API. What Ghost brings: a public site of server-rendered
// Handlebars pages (post cards, a "See all" link, and pages past the second loaded by the theme's
// script from `<link rel="next">` as the reader scrolls), and an Ember admin app over a JSON API,
// signed in by a JSON POST that sets a session cookie, with a live search box and forms saved as JSON.
// Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, GHOST_OWNER, ghostApi } from '../helpers/real-apps.js';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.ghost);

type Post = { id: string; slug: string; title: string; html: string; published_at: string };

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Ghost (%s)', (backend) => {
  const live = liveApp(APPS.ghost, backend, GHOST_OWNER.email, GHOST_OWNER.password);
  const { flow } = live;
  const api = (path: string) => ghostApi(live.url, 'GET', path);
  /** Published posts, newest first (the order of the site's pages), by an Admin API filter. */
  const posts = async (filter = 'status:published'): Promise<Post[]> =>
    (await api(`/posts/?filter=${encodeURIComponent(filter)}&limit=all&formats=html&order=published_at%20desc`)).posts;
  /** Records a flow with every request to another host refused (the admin's fonts and news feeds). */
  const record = (name: string, steps: (page: Page, base: string) => Promise<void>) =>
    live.record(name, async (page, base) => {
      await refuseOtherHosts(page, base);
      await steps(page, base);
    });

  async function signIn(page: Page, base: string) {
    await page.goto(`${base}/ghost/`);
    await page.fill('input[name=identification]', GHOST_OWNER.email);
    await page.fill('input[name=password]', GHOST_OWNER.password);
    await Promise.all([page.waitForURL(/#\/(dashboard|site|posts)/), page.click('button[type=submit]')]);
  }
  const answered = (page: Page, method: string, url: RegExp) =>
    page.waitForResponse((r) => r.request().method() === method && url.test(r.url()));
  const text = (html: string) =>
    html
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();

  it('a post page reached from the home page: its title and text, for ANOTHER post', async () => {
    const all = await posts();
    const fence = all.find((p) => p.title === 'The Broken Fence')!;
    const other = all.find((p) => p.title === 'Orchard diary 7')!;
    const har = await record('post', async (page, base) => {
      await page.goto(`${base}/tag/grafting/`);
      await Promise.all([page.waitForURL(/the-broken-fence/), page.click('text=The Broken Fence')]);
    });
    const { result } = await flow('gh-post', har, { hints: { arguments: { post: fence.slug } } }, { arguments: { post: other.slug } });
    const out = JSON.stringify(result);
    expect(out).toContain(other.title);
    expect(out).toContain(text(other.html).slice(0, 40));
    expect(out).not.toContain('The Broken Fence');
  });

  it("a tag's posts, for ANOTHER tag", async () => {
    const har = await record('tag', async (page, base) => {
      await page.goto(`${base}/tag/cider/`);
    });
    const { result } = await flow('gh-tag', har, { hints: { arguments: { tag: 'cider' } } }, { arguments: { tag: 'pests' } });
    const truth = await posts('status:published+tag:pests');
    expect(truth.length).toBeGreaterThan(2);
    const items = (result.items ?? result) as Record<string, unknown>[];
    expect(items.map((i) => Object.values(i).find((v) => typeof v === 'string' && truth.some((p) => p.title === v)))).toEqual(
      truth.map((p) => p.title),
    );
  });

  it('every post over every page (the person followed "See all", then scrolled to the end)', async () => {
    const all = await posts();
    expect(all.length).toBeGreaterThan(24);
    const har = await record('pages', async (page, base) => {
      await page.goto(`${base}/`);
      await Promise.all([page.waitForURL(/\/page\/2\/?$/), page.click('text=See all')]);
      // (The theme fetches /page/3/ from <link rel="next"> when the end of the list comes into view.)
      await Promise.all([answered(page, 'GET', /\/page\/3\/?$/), page.mouse.wheel(0, 20_000)]);
    });
    const { result } = await flow('gh-pages', har, { hints: { result: [all[0]!.title] } }, {});
    const titles = JSON.stringify(result);
    for (const p of all) expect(titles).toContain(p.title);
  });

  it('members found by the admin search box, for a NEW query', async () => {
    const har = await record('members', async (page, base) => {
      await signIn(page, base);
      await page.goto(`${base}/ghost/#/members`);
      await page.waitForSelector('input[data-test-input=members-search]');
      await Promise.all([answered(page, 'GET', /members\/\?.*search=Clara/), page.fill('input[data-test-input=members-search]', 'Clara')]);
      await page.waitForTimeout(500);
    });
    // A member who joins after the recording: the page anchored its list at its own clock
    // (`created_at:<='…'`), which a run must read as the run's time, not the recording's.
    await new Promise((r) => setTimeout(r, 1100));
    const stamp = Date.now().toString(36);
    await ghostApi(live.url, 'POST', '/members/', { members: [{ email: `basil.${stamp}@orchard.test`, name: `Basil Newcomer ${stamp}` }] });
    const { result } = await flow(
      'gh-members',
      har,
      { hints: { arguments: { query: 'Clara' }, secrets: { account: live.secret } } },
      { arguments: { query: 'Basil' }, secret_bindings: { account: live.secret } },
    );
    const truth = (await api('/members/?search=Basil&limit=all')).members as { email: string; name: string }[];
    expect(truth.length).toBeGreaterThan(1);
    const out = JSON.stringify(result);
    for (const m of truth) expect(out).toContain(m.email);
    expect(out).toContain(`basil.${stamp}@orchard.test`);
    expect(out).not.toContain('Clara Member');
  });

  it('retitle ANOTHER post in the admin editor: the whole post is sent back with its own body and updated_at (Ghost refuses a stale one)', async () => {
    const all = await posts();
    const rec = all.find((p) => p.title.startsWith('Orchard diary 5'))!;
    const other = all.find((p) => p.title.startsWith('Orchard diary 9'))!;
    const stamp = Date.now().toString(36);
    const har = await record('edit-post', async (page, base) => {
      await signIn(page, base);
      await page.goto(`${base}/ghost/#/editor/post/${rec.id}`);
      const title = page.locator('[data-test-editor-title-input]');
      await title.waitFor();
      await title.fill(`Orchard diary 5 (${stamp})`);
      await Promise.all([answered(page, 'PUT', /\/posts\/[0-9a-f]+\//), page.click('button[data-test-button=publish-save]')]);
    });
    await flow(
      'gh-edit-post',
      har,
      {
        hints: {
          arguments: { post: rec.id, title: `Orchard diary 5 (${stamp})` },
          secrets: { account: live.secret },
          allow_side_effects: true,
        },
      },
      { arguments: { post: other.id, title: `Orchard diary 9 (${stamp})` }, secret_bindings: { account: live.secret } },
    );
    const after = (await api(`/posts/${other.id}/?formats=html`)).posts[0] as Post;
    expect(after.title).toBe(`Orchard diary 9 (${stamp})`);
    // Its own text, not the recorded post's.
    expect(text(after.html)).toBe(text(other.html));
    // (The recorded post got the validation replay's fresh title, with its own body too.)
    const mine = (await api(`/posts/${rec.id}/?formats=html`)).posts[0] as Post;
    expect(mine.title.startsWith(`Orchard diary 5 (${stamp})`)).toBe(true);
    expect(text(mine.html)).toBe(text(rec.html));
  });

  it('a NEW tag through the admin form (saved as JSON)', async () => {
    const stamp = Date.now().toString(36);
    const har = await record('new-tag', async (page, base) => {
      await signIn(page, base);
      await page.goto(`${base}/ghost/#/tags/new`);
      await page.fill('#tag-name', `Irrigation ${stamp}`);
      await page.fill('#tag-description', 'Pipes and pumps.');
      await Promise.all([answered(page, 'POST', /\/tags\/$/), page.click('button[data-test-button=save]')]);
      await page.waitForURL(/#\/tags\/irrigation/);
    });
    const name = `Mulching ${stamp}`;
    await flow(
      'gh-new-tag',
      har,
      { hints: { arguments: { name: `Irrigation ${stamp}`, description: 'Pipes and pumps.' }, secrets: { account: live.secret } } },
      { arguments: { name, description: 'Straw around the roots.' }, secret_bindings: { account: live.secret } },
    );
    const tags = (await api('/tags/?limit=all&filter=visibility:public')).tags as { name: string; description: string }[];
    expect(tags.find((t) => t.name === name)?.description).toBe('Straw around the roots.');
  });
});
