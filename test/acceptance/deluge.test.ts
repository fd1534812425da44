// Acceptance on a thirty-second real application we did not write: Deluge 2.0 (Debian's deluged and
// deluge-web; installed and seeded by scripts/acceptance-setup.sh with four complete torrents made
// from local files, seeding, nothing leaving loopback). Each flow is recorded here and now in
// Chromium, signed in through the web UI's password box, then synthesized, replay-validated,
// published and RUN with NEW arguments; results are checked against Deluge's own JSON-RPC. What
// Deluge brings: an ExtJS web UI whose every call is a POST of `{"method": …, "params": […]}` to one
// endpoint, a password-only sign-in (`auth.login` with the password as its one parameter) whose
// session is a cookie, and a torrent list (`web.update_ui`) that keys each torrent's record by its
// info-hash and holds no hash field: a torrent the person picks by its NAME is addressed by a key
// they never read. Opt-in: ACCEPTANCE=1.
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, DELUGE_PASSWORD, delugeRpc } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.deluge);
type Status = { name: string; state: string; total_size: number; max_download_speed: number };

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Deluge (%s)', (backend) => {
  // (Deluge has no user name: the login secret's username is never sent.)
  const live = liveApp(APPS.deluge, backend, 'deluge', DELUGE_PASSWORD);
  const { flow } = live;
  const rpc = (method: string, params?: unknown[]) => delugeRpc(live.url, method, params);
  const torrents = async (): Promise<Record<string, Status>> =>
    (await rpc('web.update_ui', [['name', 'state', 'total_size', 'max_download_speed'], {}])).torrents;
  const hashOf = async (name: string) => Object.entries(await torrents()).find(([, t]) => t.name === name)![0];
  const call = (page: Page, method: string) =>
    page.waitForResponse(
      (r) => r.url().endsWith('/json') && r.status() === 200 && r.request().postData()?.includes(`"${method}"`) === true,
    );
  const row = (name: string) => `.x-grid3-row:has-text(${JSON.stringify(name)})`;
  /** Records a flow after signing in through the password box, with the torrent list loaded. */
  const record = (name: string, steps: (page: Page) => Promise<void>) =>
    live.record(name, async (page, base) => {
      await page.goto(base);
      await page.fill('input[type=password]', DELUGE_PASSWORD);
      await page.keyboard.press('Enter');
      await page.waitForSelector(row('Orchard Survey 2026'));
      await steps(page);
    });

  it('every torrent the web UI lists, with its state', async () => {
    const har = await record('list', async () => {});
    const { result } = await flow(
      'dl-list',
      har,
      { hints: { result: ['Orchard Survey 2026', 'Pruning Guide'], secrets: { account: live.secret } } },
      { arguments: {}, secret_bindings: { account: live.secret } },
    );
    const text = JSON.stringify(result);
    for (const [hash, t] of Object.entries(await torrents())) {
      expect(text).toContain(JSON.stringify(t.name));
      expect(text).toContain(hash);
    }
  });

  it("a torrent's Details tab, the torrent named by its NAME, for ANOTHER torrent", async () => {
    const har = await record('details', async (page) => {
      await page.click(row('Orchard Survey 2026'));
      await Promise.all([call(page, 'web.get_torrent_status'), page.click('.x-tab-strip-text:text-is("Details")')]);
    });
    const { result, def } = await flow(
      'dl-details',
      har,
      { hints: { arguments: { torrent: 'Orchard Survey 2026' }, secrets: { account: live.secret } } },
      { arguments: { torrent: 'Pruning Guide' }, secret_bindings: { account: live.secret } },
    );
    // (Its password-only sign-in is a secret slot: the typed password is nowhere in the plan.)
    expect(JSON.stringify(def)).not.toContain(DELUGE_PASSWORD);
    expect(JSON.stringify(def.login)).toContain('{{secrets.account.password}}');
    // (The hash is read from the list by the name; the recorded one is in no request of the plan.)
    expect(JSON.stringify(def.steps.map((s: any) => s.body ?? null))).not.toContain(await hashOf('Orchard Survey 2026'));
    const guide = (await torrents())[await hashOf('Pruning Guide')]!;
    const text = JSON.stringify(result);
    expect(text).toContain('"Pruning Guide, made for the acceptance suite"');
    expect(text).toContain(String(guide.total_size));
    expect(text).not.toContain('Orchard Survey');
  });

  it('a download speed limit chosen from the context menu, run on ANOTHER torrent named by its name with ANOTHER limit', async () => {
    const har = await record('speed', async (page) => {
      await page.click(row('Pruning Guide'), { button: 'right' });
      await page.hover('.x-menu-item:has-text("Options")');
      await page.hover('.x-menu-item:has-text("D/L Speed Limit")');
      await Promise.all([call(page, 'core.set_torrent_options'), page.click('.x-menu-item:has-text("30 KiB/s")')]);
    });
    await flow(
      'dl-speed',
      har,
      {
        hints: { arguments: { torrent: 'Pruning Guide', speed: 30 }, secrets: { account: live.secret }, allow_side_effects: true },
      },
      { arguments: { torrent: 'Orchard Survey 2026', speed: 80 }, secret_bindings: { account: live.secret } },
    );
    const all = await torrents();
    expect(all[await hashOf('Orchard Survey 2026')]!.max_download_speed).toBe(80);
    expect(all[await hashOf('Pruning Guide')]!.max_download_speed).toBe(30);
    expect(all[await hashOf('Cider Recipes')]!.max_download_speed).toBe(-1);
  });

  it('a magnet link added through the Add dialog, run with ANOTHER link', async () => {
    const magnet = (hash: string, name: string) => `magnet:?xt=urn:btih:${hash}&dn=${encodeURIComponent(name)}`;
    const [first, second] = [randomBytes(20).toString('hex'), randomBytes(20).toString('hex')];
    const har = await record('magnet', async (page) => {
      await page.click('button:has-text("Add")');
      await page.click('.x-window:has-text("Add Torrents") button:has-text("Url")');
      await page.fill('#url', magnet(first, 'Quince Notes'));
      await Promise.all([call(page, 'web.get_magnet_info'), page.click('.x-window:has(#url) button:has-text("Add")')]);
      await Promise.all([
        call(page, 'web.add_torrents'),
        page.click('.x-window:has-text("Add Torrents") .x-panel-btns button:has-text("Add")'),
      ]);
    });
    // (The replay adds the recorded link again. Deluge 2.0.3 on Python 3.11 never answers a
    // duplicate add — its error log raises — so the recorded torrent goes first.)
    await rpc('core.remove_torrent', [first, false]);
    await flow(
      'dl-magnet',
      har,
      { hints: { arguments: { link: magnet(first, 'Quince Notes') }, secrets: { account: live.secret }, allow_side_effects: true } },
      { arguments: { link: magnet(second, 'Medlar Notes') }, secret_bindings: { account: live.secret } },
    );
    const all = await torrents();
    expect(all[second]?.name).toBe('Medlar Notes');
  });

  it('the global connection limit set in the Preferences dialog, run with ANOTHER number', async () => {
    const har = await record('prefs', async (page) => {
      await page.click('button:has-text("Preferences")');
      await page.click('.x-window .x-list-body dl:has-text("Bandwidth")');
      await page.fill('input[name=max_connections_global]', '250');
      await Promise.all([call(page, 'core.set_config'), page.click('.x-window:has-text("Preferences") button:has-text("OK")')]);
    });
    await flow(
      'dl-prefs',
      har,
      { hints: { arguments: { connections: 250 }, secrets: { account: live.secret }, allow_side_effects: true } },
      { arguments: { connections: 321 }, secret_bindings: { account: live.secret } },
    );
    expect(await rpc('core.get_config_value', ['max_connections_global'])).toBe(321);
    expect(await rpc('core.get_config_value', ['max_upload_slots_global'])).toBe(4);
  });

  it('a torrent paused from its context menu, run on ANOTHER torrent named by its name', async () => {
    const har = await record('pause', async (page) => {
      await page.click(row('Grafting Handbook'), { button: 'right' });
      await Promise.all([call(page, 'core.pause_torrent'), page.click('.x-menu-item:has-text("Pause")')]);
    });
    await flow(
      'dl-pause',
      har,
      { hints: { arguments: { torrent: 'Grafting Handbook' }, secrets: { account: live.secret }, allow_side_effects: true } },
      { arguments: { torrent: 'Cider Recipes' }, secret_bindings: { account: live.secret } },
    );
    // (libtorrent pauses a torrent a moment after Deluge answers.)
    let all = await torrents();
    for (let i = 0; i < 50 && all[await hashOf('Cider Recipes')]!.state !== 'Paused'; i++)
      all = await new Promise((r) => setTimeout(r, 100)).then(torrents);
    expect(all[await hashOf('Cider Recipes')]!.state).toBe('Paused');
    expect(all[await hashOf('Grafting Handbook')]!.state).toBe('Paused');
    expect(all[await hashOf('Orchard Survey 2026')]!.state).toBe('Seeding');
    expect(all[await hashOf('Pruning Guide')]!.state).toBe('Seeding');
  });
});
