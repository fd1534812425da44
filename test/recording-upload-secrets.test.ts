// A file the person chooses in the live view is kept in the recording (base64) so that synthesis
// can replay it — unless it holds a value the person pasted as a secret, before or after choosing
// it: then only its name, type, size and hash are kept. A sentinel value, in the file as typed and
// URL-encoded, must not reach the recording in any form.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { openChromium } from '../src/browser/chromium.js';
import { SessionRecorder } from '../src/browser/recording/recorder.js';
import { base64Cores } from '../src/lib/secret-forms.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const SENTINEL = 'Sentinel-pw-7f3a9c!x';
let browser: Browser;
let dir: string;
beforeAll(async () => {
  browser = await openChromium();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-upload-secret-'));
});
afterAll(async () => {
  await browser?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it("withholds a chosen file's content that holds a pasted secret, pasted before or after the choice", async () => {
  const recorder = new SessionRecorder({
    sessionId: 'upload-secret',
    spoolDir: path.join(dir, 'spool'),
    maxBodyBytes: 1 << 20,
    browserVersion: browser.version(),
    extension: {} as never,
  });
  const ctx = await browser.newContext();
  try {
    const page = await ctx.newPage();
    await recorder.attachPage(page, null);
    await page.setContent('<input type="password" name="pw"><input type="file" name="f">');
    const file = (name: string, text: string) => ({ name, type: 'text/plain', data: Buffer.from(text) });
    const plain = file('notes.txt', 'nothing secret here');
    const early = file('creds.txt', `user=ann\npassword=${SENTINEL}\n`);
    const late = file('config.env', `DB_URL=postgres://ann:${encodeURIComponent(SENTINEL)}@db/x\n`);
    // `late` is chosen before the value is pasted: only the last pass can catch it.
    recorder.upload(page, [late]);
    recorder.registerPaste(page, 'sec-1', 'password', SENTINEL, null);
    recorder.upload(page, [plain, early]);
    await recorder.stop();
    const har = await recorder.finalize('test');
    const text = JSON.stringify(har);

    const files = (har.log as any)._capture.actions.filter((a: any) => a.type === 'upload').flatMap((a: any) => a.files);
    const by = (n: string) => files.find((f: any) => f.name === n);
    expect(by('notes.txt').data).toBe(plain.data.toString('base64'));
    for (const [n, f] of [
      ['creds.txt', early],
      ['config.env', late],
    ] as const) {
      expect(by(n)).toEqual({
        name: n,
        content_type: 'text/plain',
        size: f.data.length,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        withheld: 'the file holds a value pasted as a secret',
      });
    }
    // In no form: as typed, URL-encoded, or inside the base64 of a file.
    expect(text).not.toContain(SENTINEL);
    expect(text).not.toContain(encodeURIComponent(SENTINEL));
    for (const core of base64Cores(SENTINEL)) expect(text).not.toContain(core);
  } finally {
    await ctx.close();
    await recorder.discard();
  }
});
