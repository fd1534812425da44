// Acceptance on a fourth real application we did not write: WordPress (Debian package, the local
// MariaDB; installed and seeded by scripts/acceptance-setup.sh). Flows recorded with Playwright's
// recordHar (test/fixtures/real/record.ts) are uploaded, synthesized, replay-validated, published,
// then RUN with NEW arguments; results are checked against WordPress's own database.
// Opt-in: ACCEPTANCE=1.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from '../helpers/harness.js';
import { APPS, appInstalled, rebaseHar, serveApp, wordpressFirstPosts } from '../helpers/real-apps.js';
import { loginSecret } from '../helpers/runs.js';
import { type Figure, liveApp, synthesizeAndRun } from '../helpers/acceptance.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.wordpress);
const FIX = path.join(__dirname, '../fixtures/real/wordpress');
const sql = (q: string) =>
  execFileSync('mysql', ['-h127.0.0.1', '-uroot', '-N', '-B', 'wordpress', '-e', q], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t'));

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on WordPress (%s)', (backend) => {
  let h: Harness;
  let wp: Awaited<ReturnType<typeof serveApp>>;
  const figures: Figure[] = [];
  beforeAll(async () => {
    wp = await serveApp(APPS.wordpress);
    h = await startHarness(backend);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await wp?.close();
    if (figures.length) console.log('[acceptance] wordpress figures', JSON.stringify(figures));
  });

  const flow = (name: string, body: Record<string, unknown>, runBody: Record<string, unknown>) =>
    synthesizeAndRun(
      h,
      figures,
      name,
      rebaseHar(fs.readFileSync(path.join(FIX, `${name}.har`), 'utf8'), APPS.wordpress.recordedPort, wp.port),
      body,
      runBody,
    );
  const published = (like: string) =>
    sql(
      `SELECT post_title FROM wp_posts WHERE post_type='post' AND post_status='publish' AND (post_title LIKE '%${like}%' OR post_content LIKE '%${like}%') ORDER BY post_date DESC`,
    ).map(([t]) => t);

  it('search results over every page (the person clicked "Older posts" once), for a NEW query', async () => {
    const { result } = await flow('wp-search', { hints: { arguments: { query: 'orchard' } } }, { arguments: { query: 'green' } });
    const truth = published('green');
    expect(truth.length).toBeGreaterThan(1);
    expect(result.items.map((i: any) => i.title)).toEqual(truth);
    expect(result.items[0].url).toMatch(/\?p=\d+$/);
  });

  it('a post page: its title and content, for ANOTHER post', async () => {
    const [[id, title, content]] = sql("SELECT ID, post_title, post_content FROM wp_posts WHERE post_title='Fig harvest notes'");
    const { result } = await flow('wp-post', { hints: { arguments: { post: 6 } } }, { arguments: { post: Number(id) } });
    expect(result).toEqual({ title, content });
  });

  it("the admin's posts table behind the login form", async () => {
    const secret = await loginSecret(h, 'admin', 'wp-admin-pass-1');
    const { result } = await flow('wp-admin-posts', { hints: { secrets: { account: secret } } }, { secret_bindings: { account: secret } });
    const { must, may } = wordpressFirstPosts(['publish', 'draft', 'future', 'private', 'pending']);
    // The checkbox column and the cells' hidden quick-edit data are not values.
    expect(Object.keys(result.items[0])).not.toContain('select_all');
    // The first page: every post newer than the 20th, and the rest among those tied with it.
    const got = result.items.map((i: any) => [new URL(i.title_url).searchParams.get('post'), i.title]);
    expect(got).toHaveLength(Math.min(20, may.length));
    for (const p of got) expect(may).toContainEqual(p);
    for (const p of must) expect(got).toContainEqual(p);
  });

  it('Tools → Export (a GET form answered with an XML attachment): the run saves the file, which holds every post', async () => {
    const secret = await loginSecret(h, 'admin', 'wp-admin-pass-1');
    const { result } = await flow('wp-export', { hints: { secrets: { account: secret } } }, { secret_bindings: { account: secret } });
    expect(result).toMatchObject({ file_id: expect.any(String) });
    const dl = await h.api('GET', `/v1beta/files/${result.file_id}/download`);
    const xml = dl.status === 307 ? await (await fetch(dl.headers.get('location')!)).text() : dl.text;
    for (const [t] of sql("SELECT post_title FROM wp_posts WHERE post_type='post' AND post_status='publish'")) expect(xml).toContain(t);
  });

  it('add a category through the admin form (nonce, admin-ajax): the run creates a NEW one', async () => {
    const secret = await loginSecret(h, 'admin', 'wp-admin-pass-1');
    const name = `Citrus ${Date.now()}`;
    await flow(
      'wp-add-category',
      {
        hints: {
          arguments: { name: 'Stone fruit', description: 'Fruit with a pit' },
          secrets: { account: secret },
          allow_side_effects: true,
        },
      },
      { arguments: { name, description: 'Lemons and limes' }, secret_bindings: { account: secret } },
    );
    expect(
      sql(
        `SELECT tt.description FROM wp_terms t JOIN wp_term_taxonomy tt USING (term_id) WHERE t.name='${name}' AND tt.taxonomy='category'`,
      ),
    ).toEqual([['Lemons and limes']]);
  });
});

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])(
  'synthesis on WordPress, recorded live (%s)',
  (backend) => {
    const live = liveApp(APPS.wordpress, backend, 'admin', 'wp-admin-pass-1');
    /** A new published post (straight into WordPress's table): its id. */
    const newPost = (title: string): number => {
      const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
      const [[id]] = sql(
        `INSERT INTO wp_posts (post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt, post_status, comment_status, ping_status, post_name, to_ping, pinged, post_modified, post_modified_gmt, post_content_filtered, post_parent, guid, menu_order, post_type, comment_count) VALUES (1, NOW(), UTC_TIMESTAMP(), 'About ${title}', '${title}', '', 'publish', 'open', 'open', '${slug}', '', '', NOW(), UTC_TIMESTAMP(), '', 0, '', 0, 'post', 0); SELECT LAST_INSERT_ID();`,
      );
      return Number(id);
    };
    const status = (id: number) => sql(`SELECT post_status FROM wp_posts WHERE ID=${id}`)[0]?.[0];

    it("a post moved to the trash from the posts list (its row's own link, with a nonce for that post): run on ANOTHER post named by its title", async () => {
      const stamp = Date.now();
      const [a, b, c] = [`Graft the apple stock ${stamp}`, `Thin the peach fruit ${stamp}`, `Check the hive ${stamp}`].map((t) => ({
        t,
        id: newPost(t),
      }));
      const har = await live.recordSignedIn(
        'trash',
        { path: '/wp-login.php', user: '#user_login', password: '#user_pass', submit: '#wp-submit' },
        async (page, base) => {
          await page.goto(`${base}/wp-admin/edit.php`);
          const row = page.locator('#the-list tr', { has: page.locator('a.row-title', { hasText: a.t }) });
          await row.hover();
          await Promise.all([page.waitForURL(/trashed=1/), row.locator('.row-actions .trash a').click()]);
        },
      );
      expect(status(a.id)).toBe('trash');
      await live.flow('wp-trash', har, live.hinted({ post: a.t }, { allow_side_effects: true }), live.bound({ post: b.t }));
      expect(status(b.id)).toBe('trash');
      expect(status(c.id)).toBe('publish');
    });

    it("a category deleted from the categories list (its row's link, whose nonce the page's script posts to admin-ajax after a confirm): run on ANOTHER category by its name", async () => {
      const stamp = Date.now();
      const names = [`Stone fruit ${stamp}`, `Citrus ${stamp}`, `Berries ${stamp}`];
      for (const n of names) {
        const slug = n.toLowerCase().replace(/[^a-z0-9]+/g, '-');
        sql(
          `INSERT INTO wp_terms (name, slug, term_group) VALUES ('${n}', '${slug}', 0); INSERT INTO wp_term_taxonomy (term_id, taxonomy, description, parent, count) VALUES (LAST_INSERT_ID(), 'category', '', 0, 0);`,
        );
      }
      const category = (n: string) =>
        sql(`SELECT t.term_id FROM wp_terms t JOIN wp_term_taxonomy tt USING (term_id) WHERE t.name='${n}' AND tt.taxonomy='category'`);
      const [a, b, c] = names as [string, string, string];
      const har = await live.recordSignedIn(
        'delete-category',
        { path: '/wp-login.php', user: '#user_login', password: '#user_pass', submit: '#wp-submit' },
        async (page, base) => {
          await page.goto(`${base}/wp-admin/edit-tags.php?taxonomy=category`);
          const row = page.locator('#the-list tr', { has: page.locator('a.row-title', { hasText: a }) });
          await row.hover();
          page.once('dialog', (d) => d.accept());
          const gone = page.waitForResponse((r) => r.url().includes('admin-ajax.php') && r.request().method() === 'POST');
          await row.locator('.row-actions .delete a').click();
          await gone;
          await expect.poll(() => row.count()).toBe(0);
        },
      );
      expect(category(a)).toEqual([]);
      await live.flow('wp-delete-category', har, live.hinted({ category: a }, { allow_side_effects: true }), live.bound({ category: b }));
      expect(category(b)).toEqual([]);
      expect(category(c)).toHaveLength(1);
    });

    it("the site's title and tagline changed in Settings → General (every other field sent as the form holds it), run with ANOTHER title and tagline", async () => {
      const option = (name: string) => sql(`SELECT option_value FROM wp_options WHERE option_name='${name}'`)[0]?.[0];
      const before = { blogname: option('blogname')!, blogdescription: option('blogdescription') ?? '' };
      const others = ['admin_email', 'date_format', 'time_format', 'start_of_week', 'users_can_register', 'default_role'];
      const kept = others.map(option);
      const set = (name: string, v: string) =>
        sql(`UPDATE wp_options SET option_value='${v.replace(/'/g, "''")}' WHERE option_name='${name}'`);
      try {
        const har = await live.recordSignedIn(
          'settings',
          { path: '/wp-login.php', user: '#user_login', password: '#user_pass', submit: '#wp-submit' },
          async (page, base) => {
            await page.goto(`${base}/wp-admin/options-general.php`);
            await page.fill('#blogname', 'Orchard Journal');
            await page.fill('#blogdescription', 'Notes from the rows');
            await Promise.all([page.waitForURL(/settings-updated=true/), page.click('#submit')]);
          },
        );
        expect(option('blogname')).toBe('Orchard Journal');
        const stamp = Date.now();
        await live.flow(
          'wp-settings',
          har,
          live.hinted({ title: 'Orchard Journal', tagline: 'Notes from the rows' }, { allow_side_effects: true }),
          live.bound({ title: `Cider Notes ${stamp}`, tagline: 'Pressed weekly' }),
        );
        expect([option('blogname'), option('blogdescription')]).toEqual([`Cider Notes ${stamp}`, 'Pressed weekly']);
        // (The form's other fields went back as they were: the admin's e-mail, the date format…)
        expect(others.map(option)).toEqual(kept);
      } finally {
        set('blogname', before.blogname);
        set('blogdescription', before.blogdescription);
      }
    });
  },
);
