// Drive a capture session's live view the way a person does, for tests and fixture recordings:
// embed iframe_url in a page of another origin (a second headless Chromium), click where a
// control is on a reference rendering of the same site, type with the keyboard; or speak the
// WebSocket protocol directly (docs/live-view.md).
import http from 'node:http';
import type net from 'node:net';
import type { Browser, Frame, Page } from 'playwright-core';
import WebSocket from 'ws';

export const liveWsUrl = (iframeUrl: string) => iframeUrl.replace(/^http/, 'ws').replace(/\/live\/([^?]+)/, '/live/$1/ws');

/**
 * A page on another loopback origin that embeds `?src=` in an iframe at (0,0) of the given size;
 * it keeps every message posted to it in `window.__msgs` ({origin, data}).
 */
export async function startEmbedder(size: { width: number; height: number }) {
  const server = http.createServer((req, res) => {
    const src = new URL(req.url ?? '/', 'http://x').searchParams.get('src') ?? '';
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      `<!doctype html><body style="margin:0"><script>window.__msgs=[];addEventListener('message',(e)=>window.__msgs.push({origin:e.origin,data:e.data}))</script>` +
        `<iframe src="${src.replace(/"/g, '&quot;')}" ` +
        `style="border:0;position:absolute;left:0;top:0;width:${size.width}px;height:${size.height}px"></iframe></body>`,
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    url,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

export interface LiveViewDriver {
  host: Page;
  live: Frame;
  /** ms from opening the page to the first frame shown. */
  firstFrameMs: number;
  /** The remote viewport (= the live view's screen area, which the remote page follows). */
  viewport: { width: number; height: number };
  /** Clicks in the live view where `selector` is on `ref` (a page rendered at `viewport`). */
  clickLike(ref: Page, selector: string): Promise<void>;
  urlBar(): Promise<string>;
}

/** Opens iframe_url embedded in `embedderUrl`'s page and waits for the first frame and the viewport to follow. */
export async function openLiveView(browser: Browser, embedderUrl: string, iframeUrl: string): Promise<LiveViewDriver> {
  const ctx = await browser.newContext({ viewport: { width: 1100, height: 760 } });
  const host = await ctx.newPage();
  const t0 = Date.now();
  await host.goto(`${embedderUrl}/?src=${encodeURIComponent(iframeUrl)}`);
  const live = (await (await host.waitForSelector('iframe')).contentFrame())!;
  await live.waitForFunction(() => (globalThis as any).__live?.frames > 0, undefined, { timeout: 15_000 });
  const firstFrameMs = Date.now() - t0;
  const screen = (await live.locator('#screen').boundingBox())!;
  const viewport = { width: Math.round(screen.width), height: Math.round(screen.height) };
  await live.waitForFunction(
    ([w, hh]) => (globalThis as any).__live.viewport.width === w && (globalThis as any).__live.viewport.height === hh,
    [viewport.width, viewport.height],
  );
  return {
    host,
    live,
    firstFrameMs,
    viewport,
    async clickLike(ref, selector) {
      const box = (await ref.locator(selector).boundingBox())!;
      const s = (await live.locator('#screen').boundingBox())!;
      await host.mouse.click(s.x + box.x + box.width / 2, s.y + box.y + box.height / 2);
      await new Promise((r) => setTimeout(r, 150)); // the click travels over the WebSocket; a person is not faster
    },
    urlBar: () => live.locator('#url').inputValue(),
  };
}

/** A viewer speaking the WebSocket protocol; collects JSON messages and counts frames. */
export async function wsViewer(iframeUrl: string) {
  const ws = new WebSocket(liveWsUrl(iframeUrl));
  const msgs: any[] = [];
  let frames = 0;
  let closed = false;
  ws.on('message', (d, bin) => (bin ? frames++ : msgs.push(JSON.parse(String(d)))));
  ws.on('close', () => (closed = true));
  await new Promise((r, j) => {
    ws.once('open', r);
    ws.once('error', j);
  });
  return { ws, msgs, frames: () => frames, closed: () => closed, send: (m: object) => ws.send(JSON.stringify(m)) };
}

/**
 * A person at the live view over its WebSocket protocol: clicks where `selector` is on `ref` (a
 * reference rendering of the same page at the session's viewport; never the captured page),
 * keys, typed text, and the URL the live view reports.
 */
export async function wsDriver(iframeUrl: string, ref: import('playwright-core').Page) {
  const v = await wsViewer(iframeUrl);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const url = () => [...v.msgs].reverse().find((m) => typeof m.url === 'string')?.url ?? '';
  return {
    ws: v.ws,
    url,
    async click(selector: string) {
      const b = (await ref.locator(selector).boundingBox())!;
      const at = { x: b.x + b.width / 2, y: b.y + b.height / 2 };
      v.send({ t: 'mouse', type: 'down', ...at, button: 'left', clickCount: 1 });
      v.send({ t: 'mouse', type: 'up', ...at, button: 'left', clickCount: 1 });
      await sleep(200);
    },
    async press(key: string) {
      v.send({ t: 'key', type: 'down', key });
      v.send({ t: 'key', type: 'up', key });
      await sleep(200);
    },
    /** A key with a modifier held (`Control`, `a`: select all). */
    async chord(modifier: string, key: string) {
      v.send({ t: 'key', type: 'down', key: modifier });
      v.send({ t: 'key', type: 'down', key });
      v.send({ t: 'key', type: 'up', key });
      v.send({ t: 'key', type: 'up', key: modifier });
      await sleep(200);
    },
    text: (text: string) => v.send({ t: 'text', text }),
    navigate: (to: string) => v.send({ t: 'navigate', url: to }),
  };
}

/**
 * A capture session opened on a sign-in page, and a person signing in through the live view: a
 * click into each field, the stored login pasted there (never typed by the test), Enter. Returns
 * the session and its driver once the live view reports a URL containing `landed`.
 */
export async function pasteSignIn(
  h: import('./harness.js').Harness,
  ref: import('playwright-core').Page,
  o: { loginUrl: string; secretId: string; userField: string; passwordField: string; landed: string },
) {
  const { expect } = await import('vitest');
  const s = (await h.api('POST', '/v1beta/capture_sessions', { start_url: o.loginUrl })).json;
  const d = await wsDriver(s.iframe_url, ref);
  await expect.poll(d.url, { timeout: 15_000 }).toContain(new URL(o.loginUrl).pathname);
  await ref.goto(o.loginUrl);
  const paste = async (field: string) =>
    expect((await h.api('POST', `/v1beta/capture_sessions/${s.id}/paste`, { field, secret_id: o.secretId })).status).toBe(204);
  // A single-page app's form may render after its URL is reported: a click before that lands on
  // nothing and the paste with it. A person who sees the form still there does it again.
  for (let attempt = 1; ; attempt++) {
    for (const [selector, field] of [
      [o.userField, 'username'],
      [o.passwordField, 'password'],
    ] as const) {
      await d.click(selector);
      await d.chord('Control', 'a'); // (what an earlier attempt left in the field is replaced)
      await paste(field);
    }
    await d.press('Enter');
    try {
      await expect.poll(d.url, { timeout: 10_000 }).toContain(o.landed);
      break;
    } catch (e) {
      if (attempt === 3) throw e;
    }
  }
  return { session: s as { id: string; iframe_url: string }, d };
}

/** Completes a capture session as its person would (`POST …/complete`), waits until it is
 * `completed`, and returns the stored recording (the HAR). */
export async function completeCapture(h: import('./harness.js').Harness, id: string): Promise<any> {
  const { expect } = await import('vitest');
  expect((await h.api('POST', `/v1beta/capture_sessions/${id}/complete`)).status).toBe(202);
  await expect.poll(async () => (await h.api('GET', `/v1beta/capture_sessions/${id}`)).json.state, { timeout: 15_000 }).toBe('completed');
  return (await h.api('GET', `/v1beta/capture_sessions/${id}/recording`)).json;
}
