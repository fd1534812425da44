// Acceptance on a twelfth real application we did not write: Transmission 3 (Debian's
// transmission-daemon, a BitTorrent daemon; installed and seeded by scripts/acceptance-setup.sh
// with four complete torrents made from local files and one magnet link, nothing leaving
// loopback). Each flow is recorded here and now in Chromium, signed in through the browser's HTTP
// Basic dialog (Playwright httpCredentials), then synthesized, replay-validated, published and RUN
// with NEW arguments; results are checked against the daemon's own RPC. What Transmission brings:
// a jQuery web UI whose every call is a POST of `{"method": …, "arguments": …}` to one JSON-RPC
// endpoint (reads and writes told apart only by the method's name), HTTP Basic credentials on every
// request, and an anti-forgery X-Transmission-Session-Id that the first call receives in a 409
// answer and every later call must send. Opt-in: ACCEPTANCE=1.
import crypto from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, TRANSMISSION_USER, transmissionRpc } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.transmission);
type Torrent = { id: number; name: string; hashString: string };
const magnet = (name: string) =>
  `magnet:?xt=urn:btih:${crypto.createHash('sha1').update(name).digest('hex')}&dn=${encodeURIComponent(name)}`;

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Transmission (%s)', (backend) => {
  const live = liveApp(APPS.transmission, backend, TRANSMISSION_USER.username, TRANSMISSION_USER.password, {
    httpCredentials: TRANSMISSION_USER,
  });
  const { flow } = live;
  const rpc = (method: string, args?: Record<string, unknown>) => transmissionRpc(live.url, method, args);
  const torrents = async (): Promise<Torrent[]> => (await rpc('torrent-get', { fields: ['id', 'name', 'hashString'] })).torrents;
  const byName = async (name: string) => (await torrents()).find((t) => t.name === name)!;
  const rpcCall = (page: Page, method: string) =>
    page.waitForResponse(
      (r) => r.url().endsWith('/transmission/rpc') && r.status() === 200 && r.request().postData()?.includes(`"${method}"`) === true,
    );
  const open = async (page: Page, base: string) => {
    await page.goto(`${base}/transmission/web/`);
    await page.waitForSelector('#torrent_list li');
  };

  it("a torrent's details in the inspector, for ANOTHER torrent", async () => {
    const survey = await byName('Orchard Survey 2026');
    const guide = await byName('Pruning Guide');
    const har = await live.record('tr-details', async (page, base) => {
      await open(page, base);
      await page.click('#torrent_list li:has-text("Orchard Survey 2026")');
      await Promise.all([rpcCall(page, 'torrent-get'), page.click('#toolbar-inspector')]);
    });
    const { result, def } = await flow(
      'tr-details',
      har,
      { hints: { arguments: { torrent: survey.id }, secrets: { account: live.secret } } },
      { arguments: { torrent: guide.id }, secret_bindings: { account: live.secret } },
    );
    expect(JSON.stringify(def)).not.toContain(
      Buffer.from(`${TRANSMISSION_USER.username}:${TRANSMISSION_USER.password}`).toString('base64'),
    );
    const got = result.arguments.torrents;
    expect(got).toHaveLength(1);
    expect(got[0].id).toBe(guide.id);
    expect(got[0].fileStats).toHaveLength(2); // its two files
  });

  it("a torrent's details in the inspector, for ANOTHER torrent named by ITS name (the id is read from the list)", async () => {
    const guide = await byName('Pruning Guide');
    const har = await live.record('tr-details-by-name', async (page, base) => {
      await open(page, base);
      await page.click('#torrent_list li:has-text("Orchard Survey 2026")');
      await Promise.all([rpcCall(page, 'torrent-get'), page.click('#toolbar-inspector')]);
    });
    const { result, def } = await flow(
      'tr-details-by-name',
      har,
      { hints: { arguments: { torrent: 'Orchard Survey 2026' }, secrets: { account: live.secret } } },
      { arguments: { torrent: 'Pruning Guide' }, secret_bindings: { account: live.secret } },
    );
    expect(JSON.stringify(def)).toContain('{{args.torrent}}');
    const got = result.arguments.torrents;
    expect(got).toHaveLength(1);
    expect(got[0].id).toBe(guide.id);
  });

  it('every torrent the web UI lists, including one added after the recording', async () => {
    const har = await live.record('tr-list', async (page, base) => {
      await open(page, base);
    });
    const added = `Plum Almanac ${crypto.randomBytes(3).toString('hex')}`;
    await rpc('torrent-add', { filename: magnet(added), paused: true });
    const { result } = await flow(
      'tr-list',
      har,
      { hints: { result: ['Orchard Survey 2026'], secrets: { account: live.secret } } },
      { arguments: {}, secret_bindings: { account: live.secret } },
    );
    const names = JSON.stringify(result);
    for (const t of await torrents()) expect(names).toContain(JSON.stringify(t.name));
    expect(names).toContain(JSON.stringify(added));
  });

  it('a magnet link added through the Open dialog, run with ANOTHER link', async () => {
    const first = `Quince Notes ${crypto.randomBytes(3).toString('hex')}`;
    const second = `Medlar Notes ${crypto.randomBytes(3).toString('hex')}`;
    const har = await live.record('tr-add', async (page, base) => {
      await open(page, base);
      await page.click('#toolbar-open');
      await page.fill('#torrent_upload_url', magnet(first));
      await Promise.all([rpcCall(page, 'torrent-add'), page.click('#upload_confirm_button')]);
    });
    await flow(
      'tr-add',
      har,
      { hints: { arguments: { link: magnet(first) }, secrets: { account: live.secret }, allow_side_effects: true } },
      { arguments: { link: magnet(second) }, secret_bindings: { account: live.secret } },
    );
    const t = await byName(second);
    expect(t.hashString).toBe(crypto.createHash('sha1').update(second).digest('hex'));
  });

  it('the download speed limit set in the preferences dialog, run with ANOTHER limit', async () => {
    await rpc('session-set', { 'speed-limit-down-enabled': false, 'speed-limit-down': 100 });
    const har = await live.record('tr-speed', async (page, base) => {
      await open(page, base);
      await page.click('#prefs-button');
      await page.click('#prefs-tab-speed a');
      // (The dialog fills itself from the daemon's settings: a box ticked before that is unticked again.)
      await page.waitForFunction(() => (document.querySelector('#speed-limit-down') as HTMLInputElement | null)?.value === '100');
      await Promise.all([rpcCall(page, 'session-set'), page.check('#speed-limit-down-enabled')]);
      await page.fill('#speed-limit-down', '250');
      await Promise.all([rpcCall(page, 'session-set'), page.press('#speed-limit-down', 'Tab')]);
    });
    await flow(
      'tr-speed',
      har,
      { hints: { arguments: { limit: 250 }, secrets: { account: live.secret }, allow_side_effects: true } },
      { arguments: { limit: 640 }, secret_bindings: { account: live.secret } },
    );
    expect((await rpc('session-get'))['speed-limit-down']).toBe(640);
  });
});
