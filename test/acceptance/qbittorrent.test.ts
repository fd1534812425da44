// Acceptance on a fourteenth real application we did not write: qBittorrent 4.5 (Debian's
// qbittorrent-nox, a BitTorrent client; seeded by scripts/acceptance-setup.sh with four complete
// torrents made from local files and one magnet link, nothing leaving loopback). Each flow is
// recorded here and now in Chromium, signed in through its login form, then synthesized,
// replay-validated, published and RUN with NEW arguments; results are checked against qBittorrent's
// own Web API. What qBittorrent brings: a MooTools web UI over a REST API of form posts (a magnet
// link sent as multipart from a dialog in an iframe; every preference sent at once as one JSON
// document inside a form field), a cache-busting query key without a value on every GET, a torrent
// list that is an incremental sync whose records are keyed by info-hash, and a details pane that
// fetches the torrent's properties beside a bare array of piece states. Opt-in: ACCEPTANCE=1.
import crypto from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, QBITTORRENT_USER, qbittorrentApi } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.qbittorrent);
type Torrent = { hash: string; name: string; state: string; comment?: string };
const infoHash = (name: string) => crypto.createHash('sha1').update(name).digest('hex');
const magnet = (name: string) => `magnet:?xt=urn:btih:${infoHash(name)}&dn=${encodeURIComponent(name)}`;

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on qBittorrent (%s)', (backend) => {
  const live = liveApp(APPS.qbittorrent, backend, QBITTORRENT_USER.username, QBITTORRENT_USER.password);
  const { flow } = live;
  const api = (path: string, form?: Record<string, string>) => qbittorrentApi(live.url, path, form);
  const torrents = async (): Promise<Torrent[]> => api('/torrents/info');
  const byName = async (name: string) => (await torrents()).find((t) => t.name === name)!;
  /** The torrent named `name` once the API lists it (qBittorrent answers an add before it lists the torrent): up to 5 s. */
  const listed = async (name: string) => {
    let t = await byName(name);
    for (let i = 0; i < 50 && !t; i++) t = await new Promise((r) => setTimeout(r, 100)).then(() => byName(name));
    return t;
  };
  /** A paused torrent of a new magnet link, listed by the API. */
  const addMagnet = async (name: string) => {
    await api('/torrents/add', { urls: magnet(name), paused: 'true' });
    await listed(name);
    return infoHash(name);
  };
  /** Records a flow after signing in through the login form, with every request to another host refused. */
  const record = (name: string, steps: (page: Page, base: string) => Promise<void>) =>
    live.record(name, async (page, base) => {
      await refuseOtherHosts(page, base);
      await page.goto(base);
      await page.fill('#username', QBITTORRENT_USER.username);
      await page.fill('#password', QBITTORRENT_USER.password);
      await page.click('#login');
      await page.waitForSelector('#torrentsTableDiv tr.torrentsTableContextMenuTarget');
      await steps(page, base);
    });
  const apiCall = (page: Page, path: string) => page.waitForResponse((r) => r.url().includes(`/api/v2/${path}`) && r.status() === 200);
  const row = (name: string) => `#torrentsTableDiv tr:has-text(${JSON.stringify(name)})`;

  it("a torrent's details in the General tab, for ANOTHER torrent", async () => {
    const survey = await byName('Orchard Survey 2026');
    const walnut = await byName('Walnut Harvest');
    const har = await record('details', async (page) => {
      await Promise.all([apiCall(page, 'torrents/properties'), page.click(row('Orchard Survey 2026'))]);
    });
    const { result } = await flow(
      'qb-details',
      har,
      { hints: { arguments: { torrent: survey.hash }, secrets: { account: live.secret } } },
      { arguments: { torrent: walnut.hash }, secret_bindings: { account: live.secret } },
    );
    const text = JSON.stringify(result);
    expect(text).toContain('"Walnut Harvest, made for the acceptance suite"');
    expect(text).not.toContain('Orchard Survey');
  });

  it('every torrent the transfer list shows, including one added after the recording', async () => {
    const har = await record('list', async () => {});
    const added = `Plum Almanac ${crypto.randomBytes(3).toString('hex')}`;
    await addMagnet(added);
    const { result } = await flow(
      'qb-list',
      har,
      { hints: { result: ['Orchard Survey 2026', 'Walnut Harvest'], secrets: { account: live.secret } } },
      { arguments: {}, secret_bindings: { account: live.secret } },
    );
    // (The sync answer keys its records by info-hash: a key the recording never saw fits the schema.)
    const listed = (result.torrents ?? result) as Record<string, Torrent>;
    for (const t of await torrents()) expect(listed[t.hash]?.name).toBe(t.name);
    expect(listed[infoHash(added)]?.name).toBe(added);
  });

  it('a torrent renamed from its context menu, run on ANOTHER torrent with ANOTHER name', async () => {
    const first = `Quince Notes ${crypto.randomBytes(3).toString('hex')}`;
    const second = `Medlar Notes ${crypto.randomBytes(3).toString('hex')}`;
    const [h1, h2] = [await addMagnet(first), await addMagnet(second)];
    const har = await record('rename', async (page) => {
      await page.click(row(first), { button: 'right' });
      await page.click('#torrentsTableMenu a[href="#rename"]');
      const dialog = page.frameLocator('iframe[src*="rename.html"]');
      await dialog.locator('#rename').fill(`${first} (read)`);
      await Promise.all([apiCall(page, 'torrents/rename'), dialog.locator('#renameButton').click()]);
    });
    await flow(
      'qb-rename',
      har,
      { hints: { arguments: { torrent: h1, name: `${first} (read)` }, secrets: { account: live.secret }, allow_side_effects: true } },
      { arguments: { torrent: h2, name: `${second} (kept)` }, secret_bindings: { account: live.secret } },
    );
    const [t] = (await api(`/torrents/info?hashes=${h2}`)) as Torrent[];
    expect(t!.name).toBe(`${second} (kept)`);
  });

  it('a torrent resumed from its context menu, named by its NAME (its hash is a key of the sync answer), run on ANOTHER torrent', async () => {
    await api('/torrents/pause', { hashes: 'all' });
    try {
      const har = await record('resume', async (page) => {
        await page.click(row('Apple Atlas'), { button: 'right' });
        await Promise.all([apiCall(page, 'torrents/resume'), page.click('#torrentsTableMenu a:has-text("Resume")')]);
      });
      const { def } = await flow(
        'qb-resume',
        har,
        { hints: { arguments: { torrent: 'Apple Atlas' }, secrets: { account: live.secret }, allow_side_effects: true } },
        { arguments: { torrent: 'Beekeeping Basics' }, secret_bindings: { account: live.secret } },
      );
      // (Read from the sync answer by the name: the recorded hash is in no request of the plan.)
      const sent = def.steps.map((st: any) => [st.url, st.query ?? null, st.body ?? null]);
      expect(JSON.stringify(sent)).not.toContain((await byName('Apple Atlas')).hash);
      const paused = async (name: string) => (await byName(name)).state.startsWith('paused');
      for (let i = 0; i < 50 && (await paused('Beekeeping Basics')); i++) await new Promise((r) => setTimeout(r, 100));
      expect(await paused('Beekeeping Basics')).toBe(false);
      expect(await paused('Walnut Harvest')).toBe(true);
    } finally {
      await api('/torrents/pause', { hashes: 'all' });
    }
  });

  it('a magnet link added through the Download-from-URLs dialog, run with ANOTHER link', async () => {
    const first = `Cider Press ${crypto.randomBytes(3).toString('hex')}`;
    const second = `Hazel Coppice ${crypto.randomBytes(3).toString('hex')}`;
    const har = await record('add', async (page) => {
      await page.click('#downloadButton');
      const dialog = page.frameLocator('iframe[src*="download.html"]');
      await dialog.locator('#urls').fill(magnet(first));
      await Promise.all([apiCall(page, 'torrents/add'), dialog.locator('#submitButton').click()]);
    });
    await flow(
      'qb-add',
      har,
      { hints: { arguments: { link: magnet(first) }, secrets: { account: live.secret }, allow_side_effects: true } },
      { arguments: { link: magnet(second) }, secret_bindings: { account: live.secret } },
    );
    expect((await listed(second))?.hash).toBe(infoHash(second));
  });

  it('the maximum number of connections set in the Options dialog, run with ANOTHER number', async () => {
    await api('/app/setPreferences', { json: JSON.stringify({ max_connec: 200 }) });
    const har = await record('prefs', async (page) => {
      await page.click('#preferencesButton');
      await page.click('#PrefConnectionLink');
      await page.waitForFunction(() => (document.querySelector('#max_connec_value') as HTMLInputElement | null)?.value === '200');
      await page.fill('#max_connec_value', '321');
      await Promise.all([apiCall(page, 'app/setPreferences'), page.click('input[value=Save]')]);
    });
    await flow(
      'qb-prefs',
      har,
      { hints: { arguments: { connections: 321 }, secrets: { account: live.secret }, allow_side_effects: true } },
      { arguments: { connections: 654 }, secret_bindings: { account: live.secret } },
    );
    expect((await api('/app/preferences')).max_connec).toBe(654);
  });
});
