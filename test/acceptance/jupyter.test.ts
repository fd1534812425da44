// Acceptance on a thirteenth real application we did not write: Jupyter Notebook 6 (Debian's
// jupyter-notebook; a file browser and text editor over its contents REST API; seeded by
// scripts/acceptance-setup.sh with text files in folders). Each flow is recorded here and now in
// Chromium, then synthesized, replay-validated, published and RUN with NEW arguments; results are
// checked against the files on disk. What Jupyter brings: a password form with an `_xsrf` cookie
// that every API call echoes in an X-XSRFToken header, and a file's path in the URL path
// (`/api/contents/notes/orchard.txt`): an argument over several path segments.
// Opt-in: ACCEPTANCE=1.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { liveApp, refuseOtherHosts } from '../helpers/acceptance.js';
import { backends } from '../helpers/harness.js';
import { APPS, appInstalled } from '../helpers/real-apps.js';

const ready = process.env.ACCEPTANCE === '1' && appInstalled(APPS.jupyter);
const PASSWORD = 'jn-pass-1';
const ROOT = APPS.jupyter.docroot;

describe.skipIf(!ready).each(ready ? (await backends()).slice(0, 1) : ['sqlite' as const])('synthesis on Jupyter (%s)', (backend) => {
  // (Jupyter asks for a password only; the stored login's username is never sent.)
  const live = liveApp(APPS.jupyter, backend, 'jupyter', PASSWORD);
  const { flow } = live;
  /** Records a flow after the sign-in, with every request to another host refused. */
  const record = (name: string, steps: (page: Page, base: string) => Promise<void>) =>
    live.record(name, async (page, base) => {
      await refuseOtherHosts(page, base);
      await page.goto(`${base}/login`);
      await page.fill('input[name=password]', PASSWORD);
      await Promise.all([page.waitForURL(/\/tree/), page.click('button[type=submit], input[type=submit]')]);
      await steps(page, base);
    });
  const read = (p: string) => fs.readFileSync(path.join(ROOT, p), 'utf8');

  it('a text file opened in the editor, for ANOTHER file in another folder', async () => {
    const har = await record('open', async (page, base) => {
      await page.goto(`${base}/tree/notes`);
      await page.waitForSelector('text=orchard.txt');
      await Promise.all([
        page.waitForResponse((r) => r.url().includes('/api/contents/notes/orchard.txt')),
        page.goto(`${base}/edit/notes/orchard.txt`),
      ]);
      await page.waitForSelector('.CodeMirror');
    });
    const { result } = await flow(
      'jn-open',
      har,
      { hints: { arguments: { file: 'notes/orchard.txt' }, secrets: { account: live.secret } } },
      { arguments: { file: 'pests/2026/june.txt' }, secret_bindings: { account: live.secret } },
    );
    expect(result).toMatchObject({ path: 'pests/2026/june.txt', type: 'file', content: read('pests/2026/june.txt') });
  });

  it("a folder's listing in the file browser, for ANOTHER folder", async () => {
    const har = await record('tree', async (page, base) => {
      await Promise.all([page.waitForResponse((r) => r.url().includes('/api/contents/notes?')), page.goto(`${base}/tree/notes`)]);
      await page.waitForSelector('text=orchard.txt');
    });
    const { result } = await flow(
      'jn-tree',
      har,
      { hints: { arguments: { folder: 'notes' }, secrets: { account: live.secret } } },
      { arguments: { folder: 'cider' }, secret_bindings: { account: live.secret } },
    );
    expect(JSON.stringify(result)).toContain('"cider/recipes.txt"');
    expect(JSON.stringify(result)).not.toContain('orchard.txt');
  });

  it('a file edited and saved in the editor, run on ANOTHER file with NEW text', async () => {
    const line = `Row 4: codling moth ${crypto.randomBytes(3).toString('hex')}.`;
    const before = read('notes/grafting.txt');
    const har = await record('save', async (page, base) => {
      await page.goto(`${base}/edit/notes/grafting.txt`);
      await page.waitForSelector('.CodeMirror');
      await page.click('.CodeMirror-code');
      await page.keyboard.press('Control+End');
      await page.keyboard.type(line);
      await Promise.all([page.waitForResponse((r) => r.request().method() === 'PUT'), page.keyboard.press('Control+s')]);
    });
    const text = `Cider log ${crypto.randomBytes(3).toString('hex')}\nPressed 40 kg.\n`;
    await flow(
      'jn-save',
      har,
      {
        hints: {
          arguments: { file: 'notes/grafting.txt', text: `${before}${line}` },
          secrets: { account: live.secret },
          allow_side_effects: true,
        },
      },
      { arguments: { file: 'cider/log.txt', text }, secret_bindings: { account: live.secret } },
    );
    expect(read('cider/log.txt')).toBe(text);
  });
});
