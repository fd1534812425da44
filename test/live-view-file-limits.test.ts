// The live view's file chooser relay (src/browser/live-view-files.ts) against a real page's file
// inputs: what a viewer sends is bounded by the host — the files' total size, their count (one for
// a single chooser), their names and media types — before anything reaches the page.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openChromium } from '../src/browser/chromium.js';
import { type ChosenFile, FileChooserRelay } from '../src/browser/live-view-files.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

describe('live view file chooser limits', () => {
  let browser: Browser;
  let page: Page;
  const sent: any[] = [];
  const chosen: ChosenFile[][] = [];
  const relay = new FileChooserRelay({ maxBytes: 1000, send: (m) => sent.push(m), chosen: (_p, f) => chosen.push(f) });

  beforeAll(async () => {
    browser = await openChromium();
    page = await browser.newPage();
    page.on('filechooser', (fc) => relay.offer(page, fc));
    await page.setContent('<input id="one" type="file" accept=".txt"><input id="many" type="file" multiple>');
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** Clicks an input and waits for viewers to be told of its chooser. */
  const open = async (id: string) => {
    sent.length = 0;
    await page.click(`#${id}`);
    await expect.poll(() => sent.find((m) => m.t === 'filechooser')).toBeTruthy();
    return sent.find((m) => m.t === 'filechooser');
  };
  const refusals = () => sent.filter((m) => m.t === 'filechooser_refused').map((m) => m.reason);
  /** One file as a viewer sends it: begin, chunks, end (it stops when the begin is refused). */
  const file = (name: string, type: string, data: Buffer, done = false) => {
    const before = refusals().length;
    relay.receive({ t: 'file_begin', name, type, size: data.length });
    if (refusals().length > before) return;
    for (let i = 0; i < data.length; i += 300) relay.receive({ t: 'file_chunk', data: data.subarray(i, i + 300).toString('base64') });
    relay.receive({ t: 'file_end', done });
  };
  const done = () => expect.poll(() => sent.find((m) => m.t === 'filechooser_done')).toBeTruthy();
  const onPage = (id: string) =>
    page.$eval(`#${id}`, (e: HTMLInputElement) =>
      Promise.all([...e.files!].map(async (f) => ({ name: f.name, type: f.type, text: await f.text() }))),
    );

  it('a single chooser takes one file; a second is refused and the first still goes through', async () => {
    expect(await open('one')).toEqual({ t: 'filechooser', multiple: false, accept: '.txt' });
    file('a.txt', 'text/plain', Buffer.from('first'));
    file('b.txt', 'text/plain', Buffer.from('second'));
    expect(refusals()).toEqual(['too many files for this chooser']);
    // A refusal drops what was gathered: the person sends again, within the limit.
    file('a.txt', 'text/plain', Buffer.from('first'), true);
    await done();
    expect(await onPage('one')).toEqual([{ name: 'a.txt', type: 'text/plain', text: 'first' }]);
  });

  it('files over the total size are refused before their bytes are taken', async () => {
    await open('many');
    file('big-1.bin', 'application/octet-stream', Buffer.alloc(600, 1));
    relay.receive({ t: 'file_begin', name: 'big-2.bin', type: 'application/octet-stream', size: 600 });
    expect(refusals()).toEqual(['the files are larger than the 1000 bytes a chooser may get']);
    // The refused begin left no file open: a chunk now is refused too, nothing reaches the page.
    relay.receive({ t: 'file_chunk', data: 'AAAA' });
    expect(refusals()).toHaveLength(2);
    relay.receive({ t: 'file_cancel' });
    await done();
    expect(await onPage('many')).toEqual([]);
  });

  it('at most 20 files for a multiple chooser', async () => {
    await open('many');
    for (let i = 1; i <= 21; i++) file(`f${i}.txt`, 'text/plain', Buffer.from(`${i}`));
    expect(refusals()).toEqual(['too many files for this chooser']);
    for (let i = 1; i <= 20; i++) file(`f${i}.txt`, 'text/plain', Buffer.from(`${i}`), i === 20);
    await done();
    expect((await onPage('many')).map((f) => f.name)).toEqual(Array.from({ length: 20 }, (_, i) => `f${i + 1}.txt`));
  });

  it('names lose directories and control characters; media types that are not one become octet-stream', async () => {
    await open('many');
    chosen.length = 0;
    file('C:\\Users\\x\\..\\report\u0000\u001b.txt', 'text/plain; charset=utf-8', Buffer.from('r'));
    file('../../', 'text/html\r\nX-Injected: 1', Buffer.from('h'));
    file('photo.png', 'image/png', Buffer.from('p'), true);
    await done();
    expect(refusals()).toEqual([]);
    const want = [
      { name: 'report.txt', type: 'text/plain; charset=utf-8' },
      { name: 'file', type: 'application/octet-stream' },
      { name: 'photo.png', type: 'image/png' },
    ];
    // What the recorder is told is what the page got.
    expect(chosen[0].map((f) => ({ name: f.name, type: f.type }))).toEqual(want);
    expect((await onPage('many')).map((f) => ({ name: f.name, type: f.type }))).toEqual([
      want[0],
      // (Chromium keeps a file's own type only when it is one it knows how to carry.)
      { name: 'file', type: expect.any(String) },
      want[2],
    ]);
  });
});
