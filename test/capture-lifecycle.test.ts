// Capture session lifecycle with a real Chromium: idle timeout → abandoned, maximum lifetime →
// completed (CAPTURE_TIMEOUT_ACTION=complete), the browser process killed → sessions failed and
// the next session gets a relaunched browser, and popups/new tabs followed by the live view.
import crypto from 'node:crypto';
import http from 'node:http';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocketServer } from 'ws';
import { startHarness, type Harness } from './helpers/harness.js';
import { wsViewer } from './helpers/live-view.js';

// A real browser on a shared 2-core machine: generous limits, so load elsewhere doesn't fail us.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

const S = '/v1beta/capture_sessions';
// A 1×1 PNG: a binary body the recording keeps as size + sha256 only.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('capture session timeouts (sqlite)', () => {
  let idle: Harness;
  let life: Harness;
  beforeAll(async () => {
    idle = await startHarness('sqlite', { CAPTURE_IDLE_TIMEOUT_S: '1', CAPTURE_WARM_CONTEXTS: '0' });
    life = await startHarness('sqlite', { CAPTURE_MAX_LIFETIME_S: '2', CAPTURE_TIMEOUT_ACTION: 'complete', CAPTURE_WARM_CONTEXTS: '1' });
  });
  afterAll(async () => {
    await idle?.close();
    await life?.close();
  });

  it('an idle session is abandoned and its viewers are told', async () => {
    const s = (await idle.api('POST', S)).json;
    const v = await wsViewer(s.iframe_url);
    await expect.poll(async () => (await idle.api('GET', `${S}/${s.id}`)).json.state, { timeout: 6000 }).toBe('abandoned');
    await expect.poll(() => v.closed()).toBe(true);
    expect(v.msgs.some((m) => m.t === 'ended' && m.state === 'abandoned')).toBe(true);
    await expect.poll(() => idle.services.captureSessions.pool.active).toBe(0);
    v.ws.terminate();
    const g = (await idle.api('GET', `${S}/${s.id}`)).json;
    expect(g).toMatchObject({ browser_session_id: null, iframe_url: null });
  });

  it('viewer input keeps a session alive past the idle timeout', async () => {
    const s = (await idle.api('POST', S)).json;
    const v = await wsViewer(s.iframe_url);
    for (let i = 0; i < 8; i++) {
      v.send({ t: 'mouse', type: 'move', x: 10 + i, y: 10 });
      await new Promise((r) => setTimeout(r, 250));
    }
    expect((await idle.api('GET', `${S}/${s.id}`)).json.state).toBe('active');
    v.ws.close();
    await expect.poll(async () => (await idle.api('GET', `${S}/${s.id}`)).json.state, { timeout: 6000 }).toBe('abandoned');
  });

  it('the maximum lifetime ends a session, completed when so configured', async () => {
    const s = (await life.api('POST', S)).json;
    await expect.poll(async () => (await life.api('GET', `${S}/${s.id}`)).json.state, { timeout: 10_000 }).toBe('completed');
    expect((await life.api('GET', `${S}/${s.id}/recording`)).status).toBe(200);
  });

  it('a killed browser fails its sessions; the next session gets a new browser', async () => {
    const pool = life.services.captureSessions.pool;
    const a = (await life.api('POST', S)).json;
    const b = (await life.api('POST', S)).json;
    const pid = pool.browserPid()!;
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGKILL');
    for (const s of [a, b]) {
      // Playwright learns of the dead browser when its pipe closes: seconds on a loaded machine.
      await expect.poll(async () => (await life.api('GET', `${S}/${s.id}`)).json.state, { timeout: 25_000 }).toBe('failed');
      expect((await life.api('GET', `${S}/${s.id}`)).json).toMatchObject({ browser_session_id: null, iframe_url: null });
      expect((await fetch(s.iframe_url)).status).toBe(404);
    }
    // (Killed, it stays a zombie until Node reaps it, a moment after its pipe closed.)
    await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
    const c = await life.api('POST', S);
    expect(c.status).toBe(200);
    expect(pool.browserPid()).not.toBe(pid);
    await life.api('POST', `${S}/${c.json.id}/abandon`);
  }, 90_000);
});

describe('live view input and new tabs (sqlite)', () => {
  let h: Harness;
  let site: http.Server;
  let echo: WebSocketServer;
  let base = '';
  let saves = 0;
  beforeAll(async () => {
    site = http.createServer((req, res) => {
      if (req.url === '/save') {
        saves++;
        // (An answer that takes its time: the session ends while it is on its way.)
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ saved: 'the-slow-answer' }));
        }, 1500);
        return;
      }
      if (req.url === '/pixel.png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end(PNG);
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      if (req.url === '/second') return res.end('<title>Second</title><p>second tab</p>');

      if (req.url === '/slow') return res.end(`<title>Slow</title><script>fetch('/save', { method: 'POST', body: 'note=x' })</script>`);
      if (req.url === '/ws') {
        return res.end(
          `<title>WS</title><script>const s = new WebSocket('ws://' + location.host + '/echo');` +
            `s.onopen = () => s.send('ping-123'); s.onmessage = (e) => { document.title = e.data; };</script>`,
        );
      }
      if (req.url?.startsWith('/form')) {
        return res.end(
          '<meta charset="utf-8"><title>Form</title><body style="margin:0"><form action="/form/sent" method="post" enctype="multipart/form-data">' +
            '<input name="note" aria-label="Note" style="display:block;width:300px;height:40px">' +
            '<select name="size" style="display:block;width:300px;height:40px"><option value="s">Small</option><option value="l">Large</option></select>' +
            '<button data-testid="send" style="display:block;width:300px;height:40px">Send</button></form><img src="/pixel.png" alt="">',
        );
      }
      res.end(
        '<title>First</title><body style="margin:0"><a href="/second" target="_blank" style="display:block;width:300px;height:200px;background:#9cf">open</a>',
      );
    });
    echo = new WebSocketServer({ server: site, path: '/echo' });
    echo.on('connection', (ws) => ws.on('message', (d) => ws.send(`echo:${d}`)));
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(site.address() as net.AddressInfo).port}`;
    h = await startHarness('sqlite', { CAPTURE_WARM_CONTEXTS: '0' });
  });
  afterAll(async () => {
    await h?.close();
    for (const c of echo.clients) c.terminate();
    echo.close();
    site.closeAllConnections(); // the browser's keep-alive sockets
    await new Promise((r) => site.close(r));
  });

  it('a target=_blank click opens a tab the live view switches to, recorded with its opener', async () => {
    const s = (await h.api('POST', S, { start_url: `${base}/` })).json;
    const v = await wsViewer(s.iframe_url);
    await expect.poll(() => v.msgs.some((m) => m.t === 'url' && m.url === `${base}/`)).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    v.send({ t: 'mouse', type: 'down', x: 50, y: 50, button: 'left', clickCount: 1 });
    v.send({ t: 'mouse', type: 'up', x: 50, y: 50, button: 'left', clickCount: 1 });
    await expect.poll(() => v.msgs.some((m) => m.t === 'url' && m.url === `${base}/second`), { timeout: 10_000 }).toBe(true);
    expect(v.msgs.some((m) => m.t === 'tabs' && m.count === 2)).toBe(true);
    const framesBefore = v.frames();
    v.send({ t: 'resize', width: 640, height: 480 });
    // (A frame of the new size comes once Chromium repaints: under a loaded machine, after a second.)
    await expect.poll(() => v.msgs.some((m) => m.t === 'viewport' && m.viewport.width === 640), { timeout: 5000 }).toBe(true);
    await expect.poll(() => v.frames() > framesBefore, { timeout: 5000 }).toBe(true);
    expect((await h.api('POST', `${S}/${s.id}/complete`)).status).toBe(202);
    await expect.poll(async () => (await h.api('GET', `${S}/${s.id}`)).json.state, { timeout: 10_000 }).toBe('completed');
    const log = (await h.api('GET', `${S}/${s.id}/recording`)).json.log;
    expect(log.pages.map((p: any) => [p.id, p._opener, p.title])).toEqual([
      ['page_1', null, 'First'],
      ['page_2', 'page_1', 'Second'],
    ]);
    // The new tab's own document load, made before the recorder could attach to it, is there too.
    expect(log.entries.find((e: any) => e.request.url === `${base}/second`)).toMatchObject({
      pageref: 'page_2',
      _is_navigation: true,
      response: { status: 200, content: { text: '<title>Second</title><p>second tab</p>' } },
    });
    const acts = log._capture.actions.map((a: any) => `${a.type}:${a.page}`);
    expect(acts).toEqual(expect.arrayContaining(['click:page_1', 'tab:page_2']));
    expect(log._capture.actions.find((a: any) => a.type === 'click').target).toMatchObject({
      tag: 'a',
      href: `${base}/second`,
      role: 'link',
    });
    v.ws.terminate();
  });

  it('keyboard, unicode text, double click and keyboard select go through; the recording resolves the final value', async () => {
    const s = (await h.api('POST', S, { start_url: `${base}/form` })).json;
    const v = await wsViewer(s.iframe_url);
    await expect.poll(() => v.msgs.some((m) => m.t === 'url' && m.url === `${base}/form`)).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    const click = (x: number, y: number, clickCount = 1) => {
      v.send({ t: 'mouse', type: 'down', x, y, button: 'left', clickCount });
      v.send({ t: 'mouse', type: 'up', x, y, button: 'left', clickCount });
    };
    const key = (k: string) => {
      v.send({ t: 'key', type: 'down', key: k });
      v.send({ t: 'key', type: 'up', key: k });
    };
    click(100, 20);
    for (const c of 'Helo') key(c);
    key('ArrowLeft');
    key('l'); // "Hel|o" → "Hello"
    key('End');
    v.send({ t: 'text', text: ' wörld 日本' });
    for (const c of 'xx') key(c);
    key('Backspace');
    key('Backspace');
    v.send({ t: 'key', type: 'down', key: 'Shift' });
    key('!');
    v.send({ t: 'key', type: 'up', key: 'Shift' });
    click(100, 20, 1);
    click(100, 20, 2); // double click selects a word
    key('Tab'); // focus the select
    key('ArrowDown'); // keyboard changes the option
    click(150, 100); // Send
    await expect.poll(() => v.msgs.some((m) => m.t === 'url' && m.url === `${base}/form/sent`), { timeout: 10_000 }).toBe(true);
    expect((await h.api('POST', `${S}/${s.id}/complete`)).status).toBe(202);
    await expect.poll(async () => (await h.api('GET', `${S}/${s.id}`)).json.state, { timeout: 10_000 }).toBe('completed');
    const log = (await h.api('GET', `${S}/${s.id}/recording`)).json.log;
    const post = log.entries.find((e: any) => e.request.method === 'POST');
    expect(post.request.postData.mimeType).toMatch(/^multipart\/form-data; boundary=/);
    expect(post.request.postData.params).toEqual([
      { name: 'note', value: 'Hello wörld 日本!' },
      { name: 'size', value: 'l' },
    ]);
    const acts = log._capture.actions;
    const fills = acts.filter((a: any) => a.type === 'fill' && a.target?.name === 'note');
    expect(fills.pop().value).toBe('Hello wörld 日本!');
    expect(acts.some((a: any) => a.type === 'click' && a.detail === 2 && a.target?.name === 'note')).toBe(true);
    expect(acts.find((a: any) => a.type === 'select')).toMatchObject({
      values: ['l'],
      labels: ['Large'],
      target: { name: 'size', role: 'combobox' },
    });
    expect(acts.find((a: any) => a.type === 'submit')).toMatchObject({
      fields: [
        { name: 'note', value: 'Hello wörld 日本!' },
        { name: 'size', value: 'l' },
      ],
    });
    expect(acts.filter((a: any) => a.type === 'key').map((a: any) => a.key)).toEqual(
      expect.arrayContaining(['ArrowLeft', 'End', 'Tab', 'ArrowDown']),
    );
    expect(log.entries.find((e: any) => e.request.method === 'POST')._action_id).toBe(acts.find((a: any) => a.type === 'submit').id);
    const img = log.entries.find((e: any) => e.request.url === `${base}/pixel.png`);
    expect(img.response.content).toEqual({
      size: PNG.length,
      mimeType: 'image/png',
      _sha256: crypto.createHash('sha256').update(PNG).digest('hex'),
      _omitted: 'binary',
    });
    v.ws.terminate();
  });

  it('text typed into a field nobody left (no Enter, no blur, no click) is in the recording when the session completes', async () => {
    const s = (await h.api('POST', S, { start_url: `${base}/form` })).json;
    const v = await wsViewer(s.iframe_url);
    await expect.poll(() => v.msgs.some((m) => m.t === 'url' && m.url === `${base}/form`)).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    v.send({ t: 'mouse', type: 'down', x: 100, y: 20, button: 'left', clickCount: 1 });
    v.send({ t: 'mouse', type: 'up', x: 100, y: 20, button: 'left', clickCount: 1 });
    v.send({ t: 'text', text: 'still typing' });
    await new Promise((r) => setTimeout(r, 300));
    expect((await h.api('POST', `${S}/${s.id}/complete`)).status).toBe(202);
    await expect.poll(async () => (await h.api('GET', `${S}/${s.id}`)).json.state, { timeout: 10_000 }).toBe('completed');
    const acts = (await h.api('GET', `${S}/${s.id}/recording`)).json.log._capture.actions;
    expect(acts.filter((a: any) => a.type === 'fill' && a.target?.name === 'note').map((a: any) => a.value)).toEqual(['still typing']);
    v.ws.terminate();
  });

  it("a request still on its way when the session completes is recorded with its answer (the save clicked just before 'done')", async () => {
    const s = (await h.api('POST', S, { start_url: `${base}/slow` })).json;
    await expect.poll(() => saves, { timeout: 15_000 }).toBe(1);
    expect((await h.api('POST', `${S}/${s.id}/complete`)).status).toBe(202);
    await expect.poll(async () => (await h.api('GET', `${S}/${s.id}`)).json.state, { timeout: 10_000 }).toBe('completed');
    const entries = (await h.api('GET', `${S}/${s.id}/recording`)).json.log.entries;
    const save = entries.find((e: any) => e.request.url === `${base}/save`);
    expect(save.response.status).toBe(200);
    expect(save.response.content.text).toBe('{"saved":"the-slow-answer"}');
  });

  it('records WebSocket frames of the page', async () => {
    const s = (await h.api('POST', S, { start_url: `${base}/ws` })).json;
    const v = await wsViewer(s.iframe_url);
    await expect.poll(() => v.msgs.some((m) => m.t === 'url' && m.url === `${base}/ws`)).toBe(true);
    await new Promise((r) => setTimeout(r, 800));
    expect((await h.api('POST', `${S}/${s.id}/complete`)).status).toBe(202);
    await expect.poll(async () => (await h.api('GET', `${S}/${s.id}`)).json.state, { timeout: 10_000 }).toBe('completed');
    const ws = (await h.api('GET', `${S}/${s.id}/recording`)).json.log._capture.websockets;
    expect(ws).toHaveLength(1);
    expect(ws[0].url).toBe(`${base.replace('http', 'ws')}/echo`);
    expect(ws[0].frames.map((f: any) => [f.direction, f.data])).toEqual([
      ['send', 'ping-123'],
      ['receive', 'echo:ping-123'],
    ]);
    v.ws.terminate();
  });
});
