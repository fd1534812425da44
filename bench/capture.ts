// Benchmark (issue 4): capture sessions with a real Chromium.
//   1. POST /v1beta/capture_sessions latency, p50/p95: warm pool vs cold context (target ≤ 50 ms p50 warm)
//   2. time from opening iframe_url (live view page in a viewer browser) to its first frame
//   3. extra PSS of the Chromium process tree per live session on a simple page (target ≤ 70 MB)
//   4. live view frames/s and KiB/s while scrolling a long page, alone and beside a CPU hog (one
//      busy process per core, started by the bench)
// The machine's load (1-minute load average) is printed with each figure: compare runs by it.
//   npx tsx bench/capture.ts [sessions]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { makeLogger } from '../src/lib/logger.js';
import { loadConfig } from '../src/config.js';
import { createServices } from '../src/services.js';
import { buildApp } from '../src/app.js';
import { openChromium } from '../src/browser/chromium.js';

const N = Number(process.argv[2] ?? 30);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const ms = (x: number) => `${x.toFixed(1)} ms`;
const load = () => `[load ${os.loadavg()[0].toFixed(1)}]`;

async function startApp(env: Record<string, string>) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bench-capture-'));
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn', ...env });
  const services = await createServices(config);
  const app = await buildApp(services, { logger: makeLogger('warn') });
  await services.start();
  await app.listen({ host: '127.0.0.1', port: 0 });
  config.publicBaseUrl = `http://127.0.0.1:${(app.server.address() as any).port}`;
  const key = (await services.users.bootstrap())!.key;
  const api = async (method: string, p: string, body?: unknown) => {
    const r = await fetch(config.publicBaseUrl + p, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await r.text();
    return { status: r.status, json: text ? JSON.parse(text) : undefined };
  };
  return {
    services,
    api,
    async close() {
      await app.close();
      await services.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** PSS (kB) of a process and all its descendants. */
function treePssKb(root: number): number {
  const children = new Map<number, number[]>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const st = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      /* gone */
    }
  }
  let total = 0;
  const stack = [root];
  while (stack.length) {
    const p = stack.pop()!;
    try {
      total += Number(/^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      /* gone */
    }
    stack.push(...(children.get(p) ?? []));
  }
  return total;
}

// A simple page and a long page to scroll, on loopback.
const site = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/html' });
  if (req.url === '/long') {
    const rows = Array.from(
      { length: 400 },
      (_, i) =>
        `<p style="margin:0;padding:8px;background:hsl(${(i * 37) % 360},60%,85%)">Row ${i} — some text to render while scrolling</p>`,
    );
    return res.end(`<title>Long</title>${rows.join('')}`);
  }
  res.end('<title>Simple</title><h1>Hello</h1><form><label>Name <input name="n"></label><button>Go</button></form>');
});
await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${(site.address() as any).port}`;
const wsOf = (u: string) => u.replace(/^http/, 'ws').replace(/\/live\/([^?]+)/, '/live/$1/ws');

// 1. Create latency: warm pool, then cold contexts (browser already running in both).
for (const [label, warm] of [
  ['warm pool', '2'],
  ['cold context', '0'],
] as const) {
  const a = await startApp({ CAPTURE_WARM_CONTEXTS: warm, CAPTURE_MAX_SESSIONS: '50' });
  await a.services.captureSessions.pool.prewarm();
  await sleep(500);
  // One create first, not counted: the first request of a fresh process compiles its code paths.
  const first = await a.api('POST', '/v1beta/capture_sessions');
  await a.api('POST', `/v1beta/capture_sessions/${first.json.id}/abandon`);
  await sleep(600);
  const times: number[] = [];
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    const r = await a.api('POST', '/v1beta/capture_sessions');
    times.push(performance.now() - t);
    if (r.status !== 200) throw new Error(`create answered ${r.status}`);
    await a.api('POST', `/v1beta/capture_sessions/${r.json.id}/abandon`);
    await sleep(600); // let the pool refill, as between real users (one create every ~0.6 s)
  }
  console.log(`create (${label.padEnd(12)}) p50 ${ms(pct(times, 50))}  p95 ${ms(pct(times, 95))}  (n=${N})  ${load()}`);
  await a.close();
}

// 2–4 on one app without warm contexts (so PSS deltas are sessions only).
const a = await startApp({ CAPTURE_WARM_CONTEXTS: '0', CAPTURE_MAX_SESSIONS: '50' });
const viewerBrowser = await openChromium();
try {
  // 2. iframe_url → first frame, in a real viewer page.
  const firsts: number[] = [];
  for (let i = 0; i < 8; i++) {
    const s = (await a.api('POST', '/v1beta/capture_sessions', { start_url: `${base}/` })).json;
    const page = await viewerBrowser.newPage({ viewport: { width: 1280, height: 840 } });
    const t = performance.now();
    await page.goto(s.iframe_url);
    await page.waitForFunction(() => (globalThis as any).__live?.frames > 0, undefined, { timeout: 15_000 });
    firsts.push(performance.now() - t);
    await page.close();
    await a.api('POST', `/v1beta/capture_sessions/${s.id}/abandon`);
  }
  console.log(`iframe_url open → first frame: p50 ${ms(pct(firsts, 50))}  p95 ${ms(pct(firsts, 95))}  (n=${firsts.length})  ${load()}`);

  // 3. Extra PSS per live session (simple page, one WebSocket viewer each).
  const pid = a.services.captureSessions.pool.browserPid()!;
  await sleep(1000);
  const before = treePssKb(pid);
  const K = 5;
  const sessions: any[] = [];
  const sockets: WebSocket[] = [];
  for (let i = 0; i < K; i++) sessions.push((await a.api('POST', '/v1beta/capture_sessions', { start_url: `${base}/` })).json);
  await sleep(3000);
  const noViewer = treePssKb(pid);
  for (const s of sessions) {
    const ws = new WebSocket(wsOf(s.iframe_url));
    ws.on('message', () => {});
    sockets.push(ws);
  }
  await sleep(3000);
  const after = treePssKb(pid);
  const mb = (kb: number) => (kb / K / 1024).toFixed(1);
  console.log(
    `extra PSS per live session: ${mb(after - before)} MB with a live-view viewer, ${mb(noViewer - before)} MB without  (browser tree ${(before / 1024).toFixed(0)} → ${(after / 1024).toFixed(0)} MB with ${K} sessions)  ${load()}`,
  );
  for (const ws of sockets) ws.terminate();
  for (const s of sessions) await a.api('POST', `/v1beta/capture_sessions/${s.id}/abandon`);

  // 4. Frames/s and KiB/s while scrolling for 5 s at 1280×800, then the same beside one busy
  // process per core (the live view must keep flowing on a loaded machine). Wheel input comes as
  // the viewer page sends it: one message per animation frame (60 Hz) with the deltas of that
  // frame (here 40 px, a brisk touchpad scroll). Fewer, larger steps would cap the frame rate at
  // the input rate, whatever the server does.
  const scroll = async (label: string) => {
    const s = (await a.api('POST', '/v1beta/capture_sessions', { start_url: `${base}/long` })).json;
    const ws = new WebSocket(wsOf(s.iframe_url));
    let frames = 0;
    let bytes = 0;
    let counting = false;
    ws.on('message', (d: Buffer, bin) => {
      if (bin && counting) {
        frames++;
        bytes += d.length;
      }
    });
    await new Promise((r) => ws.once('open', r));
    await sleep(1500);
    counting = true;
    const t0 = performance.now();
    let dy = 40;
    for (let i = 1; performance.now() - t0 < 5000; i++) {
      ws.send(JSON.stringify({ t: 'wheel', x: 400, y: 400, dx: 0, dy }));
      // Paced to 60 Hz from the start (a late timer doesn't shift the ones after it).
      await sleep(Math.max(0, t0 + i * (1000 / 60) - performance.now()));
      if (i % 90 === 0) dy = -dy;
    }
    const secs = (performance.now() - t0) / 1000;
    counting = false;
    console.log(
      `live view while scrolling${label}: ${(frames / secs).toFixed(1)} frames/s, ${(bytes / 1024 / secs).toFixed(0)} KiB/s, ${(bytes / Math.max(1, frames) / 1024).toFixed(1)} KiB/frame  ${load()}`,
    );
    let idleFrames = 0;
    ws.on('message', (_d, bin) => bin && idleFrames++);
    await sleep(2000);
    console.log(`live view idle after it${label} (no change): ${(idleFrames / 2).toFixed(1)} frames/s`);
    ws.terminate();
    await a.api('POST', `/v1beta/capture_sessions/${s.id}/abandon`);
  };
  await scroll('');
  const hogs = os.cpus().map(() => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
  try {
    await sleep(500);
    await scroll(` beside ${hogs.length} busy processes`);
  } finally {
    for (const h of hogs) h.kill('SIGKILL');
  }
} finally {
  await viewerBrowser.close();
  await a.close();
  await new Promise((r) => site.close(r));
}
