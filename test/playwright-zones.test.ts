// The service's Chromium launch leaves async hooks off (src/browser/playwright-zones.ts): on Node 20
// Playwright's AsyncLocalStorage would turn them on for the whole process at the first launch, and
// every promise of every request and run would pay for them. Playwright still works with its zones
// held synchronously: nested calls, waits, and an error message that names the API call.
// A process of its own (the probe), since the test runner may use AsyncLocalStorage itself.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

it('launching Chromium and driving a page leaves async hooks off, and Playwright works', { timeout: 60_000 }, async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'test/fixtures/zones/probe.ts'], {
    timeout: 50_000,
  });
  const seen = JSON.parse(stdout.trim().split('\n').at(-1)!);
  expect(seen).toEqual({
    before: false,
    after: false,
    title: 'clicked',
    failure: expect.stringMatching(/^page\.click: Timeout 300ms exceeded/),
  });
});
