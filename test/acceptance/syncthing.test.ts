// Acceptance on an eighteenth real application we did not write: Syncthing 1.19's web GUI (Debian's
// syncthing; a copy of the home seeded by scripts/acceptance-setup.sh per run, with three folders,
// no remote device, and discovery, relays and NAT traversal off). Each flow is recorded here and
// now in Chromium, signed in through HTTP Basic auth, then synthesized, replay-validated, published
// and RUN with NEW arguments; results are checked against its REST API. What Syncthing brings: an
// AngularJS app whose every call carries an `X-CSRF-Token-<device>` header copied from a cookie,
// and settings saved by PUTting the WHOLE configuration back — records re-sorted by the page and
// decorated with its own fields (`$$hashKey`, `_editing`), the stored password hash included. A
// connector that replayed that body would write the recorded configuration over the live one.
// Opt-in: ACCEPTANCE=1.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled, SYNCTHING_USER, syncthingApi } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.syncthing);

// (Valid device ids of two Syncthing installs that never run: adding one makes no connection.)
const DEVICE_A = 'KUT4BAQ-DGTY3LD-O2P4Z3P-NUOGRE7-JDOG6KU-DHNZI4F-H6OSZDL-DGW5WA4';
const DEVICE_B = 'YBBA7PY-TTD32ZH-BMR6LU2-3VU4CKM-2AOPZK2-Q262OAF-HQHKGXY-V7BIDAW';

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Syncthing (%s)', (backend) => {
  // (Signed in through the browser's HTTP Basic dialog, Playwright's httpCredentials: Chromium
  // answers the challenge out of the HAR's sight, and the session cookie Syncthing then sets is all
  // the recording shows. The connector answers the challenge with the hinted login: basic_auth.)
  const live = liveApp(APPS.syncthing, backend, SYNCTHING_USER.username, SYNCTHING_USER.password, {
    httpCredentials: SYNCTHING_USER,
  });
  const { flow } = live;
  const rest = (path: string) => syncthingApi(live.url, path);
  const saved = (page: Page) =>
    page.waitForResponse((r) => r.url().endsWith('/rest/config') && r.request().method() === 'PUT' && r.status() < 300);
  /** Records a flow from the GUI's start page, with every request to another host refused. */
  const record = (name: string, steps: (page: Page) => Promise<void>) =>
    live.record(name, async (page, base) => {
      await refuseOtherHosts(page, base);
      await page.goto(base);
      await page.waitForSelector('text=Family Photos');
      await steps(page);
    });
  const editFolder = async (page: Page, label: string) => {
    await page.click(`text=${label}`);
    // (The panel slides open: a click during the animation may miss the button.)
    for (let tries = 0; tries < 5; tries++) {
      await page.click('button:has-text("Edit"):visible');
      if (await page.waitForSelector('#folderLabel:visible', { timeout: 3000 }).catch(() => null)) return;
    }
    throw new Error('the folder dialog did not open');
  };

  it("a folder's label edited in its dialog, run on ANOTHER folder: only that folder changes", async () => {
    const har = await record('label', async (page) => {
      await editFolder(page, 'Family Photos');
      await page.fill('#folderLabel', 'Family Photos 2026');
      await Promise.all([saved(page), page.click('#editFolder button:has-text("Save")')]);
      await page.waitForSelector('text=Family Photos 2026');
    });
    const before = await rest('/config');
    const { def } = await flow(
      'st-label',
      har,
      { hints: { arguments: { folder: 'photos', label: 'Family Photos 2026' }, secrets: { account: live.secret } } },
      { arguments: { folder: 'invoices', label: 'Invoices (paid)' }, secret_bindings: { account: live.secret } },
    );
    const after = await rest('/config');
    const labels = Object.fromEntries(after.folders.map((f: { id: string; label: string }) => [f.id, f.label]));
    // (The replay that validated the connector ran it once with the recorded arguments.)
    expect(labels).toEqual({ photos: 'Family Photos 2026', invoices: 'Invoices (paid)', recipes: 'Recipes' });
    // Everything else is as the site held it: paths, options, the GUI's credentials.
    expect(after.folders.map((f: { path: string }) => f.path)).toEqual(before.folders.map((f: { path: string }) => f.path));
    expect(after.gui).toEqual(before.gui);
    expect(after.options).toEqual(before.options);
    expect(JSON.stringify(def)).not.toContain(before.gui.password);
    expect(JSON.stringify(def)).toContain('$patch');
    expect(def.basic_auth).toBe('account');
  });

  it('a remote device added through its dialog, run with ANOTHER device', async () => {
    const har = await record('device', async (page) => {
      await page.click('button:has-text("Add Remote Device")');
      await page.waitForSelector('#deviceID:visible');
      await page.fill('#deviceID', DEVICE_A);
      await page.fill('#editDevice #name', 'Orchard laptop');
      await Promise.all([saved(page), page.click('#editDevice button:has-text("Save")')]);
      await page.waitForSelector('text=Orchard laptop');
    });
    await flow(
      'st-device',
      har,
      { hints: { arguments: { device_id: DEVICE_A, name: 'Orchard laptop' }, secrets: { account: live.secret } } },
      { arguments: { device_id: DEVICE_B, name: 'Packing shed' }, secret_bindings: { account: live.secret } },
    );
    const devices = (await rest('/config/devices')) as { deviceID: string; name: string }[];
    expect(devices.find((d) => d.deviceID === DEVICE_B)?.name).toBe('Packing shed');
    expect(devices.find((d) => d.deviceID === DEVICE_A)?.name).toBe('Orchard laptop');
    expect(devices.filter((d) => d.deviceID === DEVICE_B)).toHaveLength(1);
  });

  it("a folder's state, for ANOTHER folder", async () => {
    const har = await record('status', async (page) => {
      await page.click('text=Family Photos');
      await page.waitForSelector('text=Local State');
    });
    const { result } = await flow(
      'st-status',
      har,
      { hints: { arguments: { folder: 'photos' }, secrets: { account: live.secret } } },
      { arguments: { folder: 'recipes' }, secret_bindings: { account: live.secret } },
    );
    const status = await rest('/db/status?folder=recipes');
    expect(status.localFiles).toBe(3);
    expect(JSON.stringify(result)).toContain('"localFiles":3');
  });
});
