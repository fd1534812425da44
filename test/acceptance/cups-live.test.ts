// Acceptance through the LIVE VIEW on a real application behind HTTP Basic auth (CUPS 2.4's web
// interface): the admin page answers 401 — a browser would show its sign-in dialog, the live view
// has none — and the stored login pasted then answers the challenge. The person adds a printer
// class over the live view's WebSocket protocol (clicks, typed text, two members picked with Ctrl
// in the list box); the capture session is synthesized with NO hints, and the connector runs with
// a NEW name, description and location, checked with lpstat. Opt-in: ACCEPTANCE=1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { openChromium } from '../../src/browser/chromium.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { completeCapture, wsDriver } from '../helpers/live-view.js';
import { APPS, appInstalled, CUPS_USER, cupsSays, serveApp } from '../helpers/real-apps.js';
import { loginSecret, logsOf, run } from '../helpers/runs.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.cups);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!ready)('CUPS through the live view, signed in at its Basic challenge (sqlite)', () => {
  let h: Harness;
  let cups: Awaited<ReturnType<typeof serveApp>>;
  let browser: Browser;
  let ref: Page; // a reference rendering at the session's viewport, for coordinates only
  beforeAll(async () => {
    cups = await serveApp(APPS.cups);
    h = await startHarness('sqlite', { CAPTURE_WARM_CONTEXTS: '0' });
    browser = await openChromium();
    ref = await (await browser.newContext({ viewport: { width: 1280, height: 800 }, httpCredentials: CUPS_USER })).newPage();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await cups?.close();
  });

  it('a class added after pasting the login at the 401: the connector adds ANOTHER class', async () => {
    const secret = await loginSecret(h, CUPS_USER.username, CUPS_USER.password);
    const s = (await h.api('POST', '/v1beta/capture_sessions', { start_url: `${cups.url}/admin` })).json;
    const d = await wsDriver(s.iframe_url, ref);
    // (The 401 reached the browser: the live view shows its error page.)
    await expect.poll(d.url, { timeout: 15_000 }).toMatch(/chrome-error|\/admin/);
    await sleep(1000);
    const paste = await h.api('POST', `/v1beta/capture_sessions/${s.id}/paste`, { field: 'password', secret_id: secret });
    expect(paste.status, paste.text).toBe(204);
    await expect.poll(d.url, { timeout: 15_000 }).toContain(`${cups.url}/admin`);
    await sleep(1000);

    await ref.goto(`${cups.url}/admin`);
    await d.click('input[value="Add Class"]');
    await expect.poll(d.url, { timeout: 15_000 }).toMatch(/\/admin\/?$/);
    await sleep(1000);
    await Promise.all([ref.waitForLoadState('load'), ref.click('input[value="Add Class"]')]);
    for (const [field, text] of [
      ['PRINTER_NAME', 'Field_Printers'],
      ['PRINTER_INFO', 'Printers in the field'],
      ['PRINTER_LOCATION', 'North rows'],
    ]) {
      await d.click(`input[name=${field}]`);
      d.text(text);
      await sleep(300);
    }
    // Two members: a click, then a Ctrl-click, in the list box.
    await d.click('select[name=MEMBER_URIS] option:text-is("Orchard_Laser")');
    d.ws.send(JSON.stringify({ t: 'key', type: 'down', key: 'Control' }));
    await d.click('select[name=MEMBER_URIS] option:text-is("Barn_Dotmatrix")');
    d.ws.send(JSON.stringify({ t: 'key', type: 'up', key: 'Control' }));
    await sleep(300);
    await d.click('input[type=submit][value="Add Class"]');
    await expect.poll(() => cupsSays(cups.url, 'lpstat', '-c'), { timeout: 15_000 }).toContain('Field_Printers');
    const rec = await completeCapture(h, s.id);
    const text = JSON.stringify(rec);
    expect(text).not.toContain(CUPS_USER.password);
    expect(text).not.toContain(Buffer.from(`${CUPS_USER.username}:${CUPS_USER.password}`).toString('base64'));

    const c = await h.api('POST', '/v1beta/connectors', {
      display_name: 'add class',
      purpose: 'add a printer class',
      capture_session_id: s.id,
      hints: { allow_side_effects: true },
    });
    expect(c.status, c.text).toBe(200);
    const props = c.json.input_schema.properties;
    const byExample = (v: string) => Object.keys(props).find((k) => props[k].examples?.[0] === v)!;
    const [name, info, location] = [byExample('Field_Printers'), byExample('Printers in the field'), byExample('North rows')];
    expect([name, info, location].every(Boolean), JSON.stringify(props)).toBe(true);
    // (The members chosen in the list box are arguments too: run with the same two.)
    const same = Object.fromEntries(Object.entries(props).map(([k, v]: [string, any]) => [k, v.examples?.[0]]));
    const out = await run(h, {
      connector_id: c.json.id,
      arguments: { ...same, [name]: 'Shed_Printers', [info]: 'Printers in the sheds', [location]: 'South yard' },
      secret_bindings: { [c.json.required_secrets[0].name]: secret },
    });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    const cls = cupsSays(cups.url, 'lpstat', '-l', '-p', 'Shed_Printers');
    expect(cls).toContain('Printers in the sheds');
    expect(cls).toContain('South yard');
    expect(cupsSays(cups.url, 'lpstat', '-c', 'Shed_Printers')).toMatch(
      /Orchard_Laser[\s\S]*Barn_Dotmatrix|Barn_Dotmatrix[\s\S]*Orchard_Laser/,
    );
    expect(await logsOf(h, out.id)).not.toContain(CUPS_USER.password);
  }, 180_000);
});
