// Acceptance on a forty-fifth real application we did not write: ikiwiki 3.2020, a wiki compiler in
// Perl (Debian's ikiwiki): Markdown pages in a git repository compiled to static HTML, and one CGI
// (`ikiwiki.cgi?do=…`) for signing in, editing, creating, commenting and searching (Xapian's omega);
// a fresh copy of the seeded wiki built per start. Each flow is recorded here and now in Chromium,
// then synthesized, replay-validated, published and RUN with NEW arguments; results are checked
// against the wiki's repository (`git`) and the sources of the copy being served. What ikiwiki
// brings: one CGI address for every action (`do=` picks it), search hits as rows of an old-style
// `<table>` (omega's template, upper-case tags), tag pages whose entries are a link and a date each,
// comments under a post, a sign-in that needs the session its form page opened, forms that carry
// that session id (`sid`) and the revision they were read at (`rcsinfo`), and a page location
// chosen from a menu whose options are built from the new page's name. Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { fieldHolding, liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, IKIWIKI_USER, ikiwikiGit, ikiwikiSource } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.ikiwiki);
type Item = Record<string, unknown>;

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on ikiwiki (%s)', (backend) => {
  const live = liveApp(APPS.ikiwiki, backend, IKIWIKI_USER.username, IKIWIKI_USER.password);
  const { flow, hinted, bound } = live;
  const signIn = async (page: Page, base: string) => {
    await page.goto(`${base}/ikiwiki.cgi?do=signin`);
    await page.fill('#signin input[name="name"]', IKIWIKI_USER.username);
    await page.fill('#signin input[name="password"]', IKIWIKI_USER.password);
    await Promise.all([page.waitForNavigation(), page.click('#signin input[value="Login"]')]);
  };
  /** Records a flow from the front page, signed in through the sign-in form first when `login`. */
  const record = (name: string, steps: (page: Page, base: string) => Promise<void>, login = false) =>
    live.record(name, async (page, base) => {
      await refuseOtherHosts(page, base);
      if (login) await signIn(page, base);
      await page.goto(`${base}/`);
      await page.waitForSelector('#content');
      await steps(page, base);
    });
  const open = async (page: Page, what: string, url: RegExp) => {
    await Promise.all([page.waitForURL(url), page.click(what)]);
    await page.waitForSelector('#content, .searchquery');
  };
  /** A page as the wiki serves it once its rebuild after a save has written it (the CGI may answer first). */
  const rendered = (path: string, text: string) =>
    expect.poll(() => fetch(`${live.url}${path}`).then((r) => r.text()), { timeout: 10_000 }).toContain(text);
  /** The title a seeded page gives itself (its `[[!meta title]]`). */
  const titleOf = (file: string) => /\[\[!meta title="([^"]+)"\]\]/.exec(ikiwikiGit('show', `HEAD:${file}`).join('\n'))?.[1];
  /** The pages omega finds for `word` on the wiki served at `base`, as its own answer names them. */
  const hits = async (word: string) => {
    const html = await fetch(`${live.url}/ikiwiki.cgi?P=${encodeURIComponent(word)}`).then((r) => r.text());
    return [...html.matchAll(/<B><A HREF="[^"]*">([^<]+)<\/A><\/B>/g)].map((m) => m[1]!);
  };

  it('pages searched for a word, run with ANOTHER word: every hit omega answers', async () => {
    const har = await record('search', async (page) => {
      await page.fill('#searchbox', 'printer');
      await Promise.all([page.waitForURL(/ikiwiki\.cgi\?P=printer/), page.press('#searchbox', 'Enter')]);
      await page.waitForSelector('.searchquery');
    });
    const { result } = await flow('ik-search', har, hinted({ P: 'printer' }), bound({ P: 'badge' }));
    const items = result.items as Item[];
    const want = await hits('badge');
    expect(want.length).toBeGreaterThanOrEqual(2);
    expect(items).toHaveLength(want.length);
    fieldHolding(items, want);
    expect(JSON.stringify(items)).toContain('A lost badge is blocked');
    expect(JSON.stringify(items)).not.toContain('Kestrel');
  });

  it("a tag's pages, run on ANOTHER tag: each page's title, link and date", async () => {
    const har = await record('tag', async (page, base) => {
      await page.goto(`${base}/howto/vpn/`);
      await open(page, '.tags a:text-is("network")', /\/tags\/network\/$/);
      await page.waitForSelector('.archivepage');
    });
    const { result } = await flow('ik-tag', har, hinted({ tag: 'network' }), bound({ tag: 'hardware' }));
    const items = result.items as Item[];
    const files = ikiwikiGit('grep', '-l', '-E', '\\[\\[!tag [a-z ]*hardware', 'HEAD', '--', 'howto').map((f) => f.replace(/^HEAD:/, ''));
    expect(files).toHaveLength(3);
    expect(items).toHaveLength(3);
    fieldHolding(items, files.map(titleOf) as string[], true);
    expect(JSON.stringify(items)).toContain('2026-03-09 17:00');
    expect(JSON.stringify(items)).not.toContain('Connect to the VPN');
  });

  it('a guide read, run on ANOTHER guide: its title and own text', async () => {
    const har = await record('guide', async (page) => {
      await open(page, '#content a:text-is("How-to guides")', /\/howto\/$/);
      await open(page, '.map a:text-is("vpn")', /\/howto\/vpn\/$/);
    });
    const { result } = await flow('ik-guide', har, hinted({ page: 'vpn' }), bound({ page: 'printing' }));
    expect(result.title).toBe('Print on Heron');
    const text = JSON.stringify(result);
    expect(text).toContain('Heron jams on card stock: use the tray by the window instead.');
    expect(text).toContain('Colour printing needs a code from reception.');
    expect(text).not.toContain('WireGuard');
  });

  it('a post with its comments, run on ANOTHER post: its text and each comment with subject and author', async () => {
    const har = await record('post', async (page) => {
      await open(page, '#content a:text-is("News")', /\/news\/$/);
      await open(page, '.inlineheader a:text-is("The kitchen reopens")', /\/posts\/kitchen-reopens\/$/);
      await page.waitForSelector('#comments .comment');
    });
    const { result } = await flow('ik-post', har, hinted({ post: 'kitchen-reopens' }), bound({ post: 'fire-drill' }));
    const text = JSON.stringify(result);
    expect(text).toContain('The yearly fire drill is on Thursday at eleven.');
    expect(text).not.toContain('coffee machine');
    const comments = Object.values(result).find((v) => Array.isArray(v)) as Item[] | undefined;
    expect(comments).toHaveLength(2);
    fieldHolding(comments!, ['Lifts', 'Vests']);
    fieldHolding(comments!, ['The lifts are switched off during the drill.', 'Wardens wear the yellow vests.']);
    fieldHolding(comments!, ['chidi', 'bea']);
  });

  it('a new guide written after signing in, its location chosen from the menu, run with ANOTHER name and text', async () => {
    const har = await record(
      'create',
      async (page, base) => {
        await page.goto(`${base}/howto/`);
        await open(page, '.createlink a[href*="page=parking"]', /do=create/);
        await page.selectOption('select#page', 'howto/parking');
        await page.fill('#editcontent', 'Park in the basement; the gate opens with your door badge.');
        await page.fill('#editmessage', 'Start the parking guide');
        await open(page, 'input[value="Save Page"]', /\/howto\/parking\//);
      },
      true,
    );
    expect(ikiwikiSource(live.url, 'howto/parking')).toContain('basement');
    const text = 'Keys to the meeting rooms hang in the cabinet at reception.';
    await flow(
      'ik-create',
      har,
      hinted({
        page: 'parking',
        editcontent: 'Park in the basement; the gate opens with your door badge.',
        editmessage: 'Start the parking guide',
      }),
      bound({ page: 'keys', editcontent: text, editmessage: 'Start the keys guide' }),
    );
    // (Under the guides, where the recorded one went, not at the top of the wiki.)
    expect(ikiwikiSource(live.url, 'howto/keys')?.trim()).toBe(text);
    expect(ikiwikiSource(live.url, 'keys')).toBeNull();
    await rendered('/howto/keys/', 'cabinet at reception');
    await rendered('/recentchanges/', 'Start the keys guide');
  });

  it('a guide edited after signing in (its form carries the revision read), run twice on ANOTHER guide', async () => {
    const har = await record(
      'edit',
      async (page, base) => {
        await page.goto(`${base}/howto/vpn/`);
        await open(page, '.actions a:text-is("Edit")', /do=edit/);
        await page.fill('#editcontent', 'Connect to the VPN with the WireGuard client.');
        await page.fill('#editmessage', 'Shorter VPN guide');
        await open(page, 'input[value="Save Page"]', /\/howto\/vpn\//);
      },
      true,
    );
    expect(ikiwikiSource(live.url, 'howto/vpn')).toContain('with the WireGuard client');
    const body = hinted({
      page: 'howto/vpn',
      editcontent: 'Connect to the VPN with the WireGuard client.',
      editmessage: 'Shorter VPN guide',
    });
    await flow('ik-edit', har, body, bound({ page: 'howto/wifi', editcontent: 'Join Northwind-Staff.', editmessage: 'Shorter' }));
    expect(ikiwikiSource(live.url, 'howto/wifi')?.trim()).toBe('Join Northwind-Staff.');
    // (A second save of the same guide: read at the revision the first one made, so no merge. In
    // the next second: ikiwiki rebuilds a page when its source's mtime, in whole seconds, moved.)
    await new Promise((r) => setTimeout(r, 1100));
    const text = 'Join Northwind-Staff with your directory account.';
    await flow('ik-edit-again', har, body, bound({ page: 'howto/wifi', editcontent: text, editmessage: 'Name the account' }));
    expect(ikiwikiSource(live.url, 'howto/wifi')?.trim()).toBe(text);
    await rendered('/howto/wifi/', 'with your directory account');
  });

  it('a comment posted after signing in, run on ANOTHER post with ANOTHER subject and text', async () => {
    const har = await record(
      'comment',
      async (page, base) => {
        await page.goto(`${base}/posts/bike-racks/`);
        await open(page, '.addcomment a', /do=comment/);
        await page.fill('#subject', 'Covered?');
        await page.fill('#editcontent', 'Are the new racks under a roof?');
        await open(page, 'input[value="Post comment"]', /\/posts\/bike-racks\//);
      },
      true,
    );
    await rendered('/posts/bike-racks/', 'under a roof');
    await flow(
      'ik-comment',
      har,
      hinted({ page: 'posts/bike-racks', subject: 'Covered?', editcontent: 'Are the new racks under a roof?' }),
      bound({ page: 'posts/new-printer', subject: 'Toner', editcontent: 'Where is the spare toner kept?' }),
    );
    await rendered('/posts/new-printer/', 'Where is the spare toner kept?');
    const html = await fetch(`${live.url}/posts/new-printer/`).then((r) => r.text());
    expect(html).toContain('Where is the spare toner kept?');
    expect(html).toMatch(/comment-subject">\s*<a[^>]*>Toner<\/a>/);
    expect(html).toMatch(/href="\/ikiwiki\.cgi\?do=goto&amp;page=seed">seed<\/a>/);
  });
});
