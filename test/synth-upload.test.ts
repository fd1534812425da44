// A flow that uploads a file, recorded in Chromium on a small document library (a per-render
// token, a multipart form with a title and a file): the connector takes the file as an argument
// of format file-id — the caller's own upload — and sends its bytes, name and type. The
// validation replay sends the recording's own file when the recording holds its bytes (a text
// file); a binary one's are not recorded, and the plan is published unreplayed, saying why.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChromium } from '../src/browser/chromium.js';
import { parseMultipart } from '../src/browser/recording/har-parts.js';
import { recordCaptured } from './helpers/acceptance.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { openLiveView, startEmbedder, wsDriver } from './helpers/live-view.js';
import { run } from './helpers/runs.js';
import { synthesizeFrom, uploadBytes } from './helpers/synth.js';

interface Doc {
  id: number;
  title: string;
  filename: string;
  type: string;
  size: number;
  sha256: string;
}

const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

function librarySite() {
  const docs: Doc[] = [
    { id: 1, title: 'Orchard plan', filename: 'plan.txt', type: 'text/plain', size: 5, sha256: sha(Buffer.from('plans')) },
  ];
  const tokens = new Set<string>();
  const page = (res: http.ServerResponse, title: string, body: string) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><html><head><title>${title}</title></head><body><main>${body}</main></body></html>`);
  };
  const details = (res: http.ServerResponse, d: Doc) =>
    page(
      res,
      d.title,
      `<h1>${esc(d.title)}</h1><dl><dt>File name</dt><dd>${esc(d.filename)}</dd><dt>Type</dt><dd>${esc(d.type)}</dd><dt>Size</dt><dd>${d.size}</dd><dt>SHA-256</dt><dd>${d.sha256}</dd></dl>`,
    );
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const one = /^\/docs\/(\d+)$/.exec(url.pathname);
    if (one) {
      const d = docs.find((x) => x.id === Number(one[1]));
      if (!d) return void res.writeHead(404).end();
      return details(res, d);
    }
    // A page whose script sends the chosen file as the whole body of a PUT (bytes as
    // octet-stream, Redmine-style), with the page's token in a header; the answer is JSON.
    if (url.pathname === '/attach' && req.method === 'GET') {
      const t = crypto.randomUUID();
      tokens.add(t);
      return page(
        res,
        'Attach',
        `<h1>Attach a file</h1><input type="file" id="f"><pre id="out"></pre><script>
        document.getElementById('f').addEventListener('change', async (e) => {
          const r = await fetch('/attach?name=' + encodeURIComponent(e.target.files[0].name), { method: 'PUT', body: e.target.files[0], headers: { 'content-type': 'application/octet-stream', 'x-token': ${JSON.stringify(t)} } });
          document.getElementById('out').textContent = await r.text();
        });</script>`,
      );
    }
    if (url.pathname === '/attach' && req.method === 'PUT') {
      if (!tokens.has(String(req.headers['x-token']))) return void res.writeHead(403).end('bad token');
      if (req.headers['content-type'] !== 'application/octet-stream') return void res.writeHead(406).end();
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks);
      const d: Doc = {
        id: docs.length + 1,
        title: '',
        filename: url.searchParams.get('name') ?? '',
        type: '',
        size: body.length,
        sha256: sha(body),
      };
      docs.push(d);
      res.setHeader('content-type', 'application/json');
      return void res.end(JSON.stringify({ attachment: { id: d.id, size: d.size, sha256: d.sha256 } }));
    }
    if (url.pathname !== '/docs') return void res.writeHead(404).end();
    if (req.method === 'GET') {
      const t = crypto.randomUUID();
      tokens.add(t);
      return page(
        res,
        'Documents',
        `<h1>Documents</h1><ul>${docs.map((d) => `<li><a href="/docs/${d.id}">${esc(d.title)}</a></li>`).join('')}</ul><form method="post" action="/docs${url.search}" enctype="multipart/form-data"><input type="hidden" name="token" value="${t}"><label>Title <input name="title"></label><label>File <input type="file" name="document"></label><button>Upload</button></form>`,
      );
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const boundary = /boundary=([^;]+)/.exec(req.headers['content-type'] ?? '')?.[1] ?? '';
    const parts = parseMultipart(body, boundary, 1 << 24);
    const field = (n: string) => parts.find((p) => p.name === n);
    if (!tokens.delete(field('token')?.value ?? '')) return void res.writeHead(403).end('bad token');
    const file = field('document');
    const title = field('title')?.value ?? '';
    if (!file?.fileName || !title) return void res.writeHead(400).end('a title and a file, please');
    const d: Doc = {
      id: docs.length + 1,
      title,
      filename: file.fileName,
      type: file.contentType ?? '',
      size: file._size ?? 0,
      sha256: (file._sha256 ?? '').replace(/^sha256:/, ''),
    };
    docs.push(d);
    // (A form at /docs?prg=1 is answered the post/redirect/get way: 303 to the new document.)
    if (url.searchParams.get('prg')) return void res.writeHead(303, { location: `/docs/${d.id}` }).end();
    // (The new document's page, answered at once: a 303 to it would race the recorder, which asks
    // Chromium for the form's parts after the request left — see docs/synthesis.md.)
    return details(res, d);
  });
  return {
    docs,
    start: () =>
      new Promise<string>((r) => server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))),
    close: () => new Promise((r) => server.close(r)),
  };
}

describe.each(await backends())('a flow that uploads a file (%s)', (backend) => {
  let h: Harness;
  let browser: Browser;
  const site = librarySite();
  let base: string;
  // Recorded as a capture session records (the service's own recorder, over CDP): Chromium hands
  // it the form's parts but not a file's content. (Playwright's recordHar keeps no body at all.)
  const recordUpload = (name: string, file: { name: string; mimeType: string; buffer: Buffer }, title: string) =>
    recordCaptured(browser, h.dataDir, name, base, async (page) => {
      await page.goto(`${base}/docs`);
      await page.fill('input[name=title]', title);
      await page.setInputFiles('input[name=document]', file);
      await Promise.all([page.waitForLoadState('load'), page.click('button')]);
      await page.getByText('SHA-256').waitFor();
    });
  beforeAll(async () => {
    base = await site.start();
    h = await startHarness(backend);
    browser = await openChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await site.close();
  });

  it("takes the caller's file as an argument, validated by replaying the recorded one (a HAR that keeps it)", async () => {
    const notes = Buffer.from('Pruning notes: cut back the pear trees in late winter.\n');
    const recorded = await recordUpload('upload-text', { name: 'pruning.txt', mimeType: 'text/plain', buffer: notes }, 'Pruning notes');
    // As a recording proxy keeps it (mitmproxy, Charles, a DevTools export of a text file): the
    // file's content in the part, where the browser's own recording left it empty.
    const har = JSON.parse(recorded);
    const post = har.log.entries.find((e: any) => e.request.method === 'POST').request.postData;
    post.text = post.text.replace(/(filename="pruning\.txt"\r\nContent-Type: text\/plain\r\n\r\n)/i, `$1${notes}`);
    post.params = post.params.map((p: any) => (p.fileName ? { ...p, value: String(notes) } : p));
    const before = site.docs.length;
    const r = await synthesizeFrom(h, JSON.stringify(har), {
      purpose: 'upload a document with a title to the library',
      hints: { allow_side_effects: true, arguments: { title: 'Pruning notes' } },
    });
    expect(r.status, r.text).toBe(200);
    const c = (await h.api('GET', `/v1beta/connectors/${r.json.id}`)).json;
    expect(c.input_schema.properties.document).toMatchObject({ type: 'string', format: 'file-id' });
    expect(c.input_schema.required).toEqual(expect.arrayContaining(['document', 'title']));
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json.definition;
    // The recorded file's content is no part of the connector.
    expect(JSON.stringify(def)).not.toContain('Pruning notes: cut back');
    expect(def.meta.validation).toMatchObject({ replayed: true });
    // The replay uploaded the recorded bytes under a fresh title.
    expect(site.docs.length).toBe(before + 1);
    expect(site.docs.at(-1)).toMatchObject({ filename: 'pruning.txt', sha256: sha(notes) });

    // Run with ANOTHER file, binary this time, and another title.
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]), crypto.randomBytes(4096)]);
    const fileId = await uploadBytes(h, 'pear-tree.png', png, 'image/png');
    const out = await run(h, { connector_id: r.json.id, arguments: { title: 'Pear tree photo', document: fileId } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    const made = site.docs.at(-1)!;
    expect(made).toMatchObject({
      title: 'Pear tree photo',
      filename: 'pear-tree.png',
      type: 'image/png',
      size: png.length,
      sha256: sha(png),
    });
    // The result is the page the upload led to: the new document's details.
    expect(JSON.stringify(out.result)).toContain(sha(png));
  }, 120_000);

  it("publishes unreplayed an upload recorded in the browser (the file's content is not recorded), and it runs with a file", async () => {
    const bin = Buffer.concat([Buffer.from([0, 0xff, 0xfe, 0x80]), crypto.randomBytes(2048)]);
    const har = await recordUpload(
      'upload-binary',
      { name: 'scan.bin', mimeType: 'application/octet-stream', buffer: bin },
      'Scanned invoice',
    );
    const r = await synthesizeFrom(h, har, {
      purpose: 'upload a document',
      hints: { allow_side_effects: true, arguments: { title: 'Scanned invoice' } },
    });
    expect(r.status, r.text).toBe(200);
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json.definition;
    expect(def.meta.validation.replayed).toBe(false);
    expect(def.meta.validation.reason).toContain('does not hold the bytes of the file');
    const doc = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1');
    const out = await run(h, {
      connector_id: r.json.id,
      arguments: { title: 'Invoice 2026-11', document: await uploadBytes(h, 'invoice.pdf', doc, 'application/pdf') },
    });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(site.docs.at(-1)).toMatchObject({ title: 'Invoice 2026-11', filename: 'invoice.pdf', sha256: sha(doc) });
  }, 120_000);
  it('takes the form parts of an upload answered by a redirect from the submit event (Chromium kept no body)', async () => {
    const chosen = Buffer.concat([Buffer.from('%PDF-1.7\n'), crypto.randomBytes(3000)]);
    const har = await recordCaptured(browser, h.dataDir, 'upload-prg', base, async (page, b, choose) => {
      await page.goto(`${b}/docs?prg=1`);
      await page.fill('input[name=title]', 'Grafting guide');
      await choose(page, () => page.click('input[name=document]'), [{ name: 'grafting.pdf', mimeType: 'application/pdf', buffer: chosen }]);
      await Promise.all([page.waitForURL(/\/docs\/\d+$/), page.click('button')]);
      await page.getByText('SHA-256').waitFor();
    });
    const post = JSON.parse(har).log.entries.find((e: any) => e.request.method === 'POST');
    expect(post.response.status).toBe(303);
    // Rebuilt from the submit action: the page's token, the title, the file by name and type.
    expect(post.request.postData).toMatchObject({
      _from_submit: expect.stringMatching(/^a\d+$/),
      params: [
        { name: 'token', value: expect.any(String) },
        { name: 'title', value: 'Grafting guide' },
        { name: 'document', fileName: 'grafting.pdf', contentType: 'application/pdf', _size: chosen.length },
      ],
    });
    const before = site.docs.length;
    const r = await synthesizeFrom(h, har, {
      purpose: 'upload a document with a title to the library',
      hints: { allow_side_effects: true },
    });
    expect(r.status, r.text).toBe(200);
    const c = (await h.api('GET', `/v1beta/connectors/${r.json.id}`)).json;
    expect(c.input_schema.properties.document).toMatchObject({ format: 'file-id' });
    expect(c.input_schema.required).toEqual(expect.arrayContaining(['document', 'title']));
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json.definition;
    // Validated by replaying the chosen file (a fresh token from the form page each time).
    expect(def.meta.validation).toMatchObject({ replayed: true });
    expect(site.docs.length).toBe(before + 1);
    expect(site.docs.at(-1)).toMatchObject({ filename: 'grafting.pdf', sha256: sha(chosen) });
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), crypto.randomBytes(5000)]);
    const out = await run(h, {
      connector_id: r.json.id,
      arguments: { title: 'Graft union', document: await uploadBytes(h, 'union.png', png, 'image/png') },
    });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(site.docs.at(-1)).toMatchObject({ title: 'Graft union', filename: 'union.png', type: 'image/png', sha256: sha(png) });
    // The redirect's page: the new document's details.
    expect(JSON.stringify(out.result)).toContain(sha(png));
  }, 120_000);

  it("takes the caller's file for a request whose whole body is the chosen file (a PUT of the bytes)", async () => {
    const chosen = Buffer.concat([Buffer.from([0, 1, 2, 0xff]), crypto.randomBytes(4000)]);
    const har = await recordCaptured(browser, h.dataDir, 'upload-raw', base, async (page, b, choose) => {
      await page.goto(`${b}/attach`);
      await choose(page, () => page.click('#f'), [{ name: 'soil.bin', mimeType: 'application/x-soil', buffer: chosen }]);
      await page.getByText(sha(chosen)).waitFor();
    });
    const before = site.docs.length;
    const r = await synthesizeFrom(h, har, { purpose: 'attach a file', hints: { allow_side_effects: true } });
    expect(r.status, r.text).toBe(200);
    const c = (await h.api('GET', `/v1beta/connectors/${r.json.id}`)).json;
    expect(c.input_schema.properties.file).toMatchObject({ format: 'file-id' });
    expect(c.input_schema.required).toEqual(['file']);
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json.definition;
    const put = def.steps.find((st: any) => st.method === 'PUT');
    // The page sent the bytes as octet-stream whatever the file's type: so does the connector. It
    // named the file in the query: the connector names the caller's.
    expect(put.body).toEqual({ file: '{{args.file}}', content_type: 'application/octet-stream' });
    expect(put.query).toEqual({ name: '{{files.file.name}}' });
    // Validated by sending the chosen bytes again (the page's token read afresh).
    expect(def.meta.validation).toMatchObject({ replayed: true });
    expect(site.docs.length).toBe(before + 1);
    expect(site.docs.at(-1)!.sha256).toBe(sha(chosen));
    const other = crypto.randomBytes(7000);
    const out = await run(h, { connector_id: r.json.id, arguments: { file: await uploadBytes(h, 'other.bin', other, 'image/png') } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(site.docs.at(-1)).toMatchObject({ filename: 'other.bin', size: other.length, sha256: sha(other) });
    expect(JSON.stringify(out.result)).toContain(sha(other));
  }, 120_000);

  it("records a file chosen through a capture session's live view, and validates with its bytes", async () => {
    const ref = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    try {
      await ref.goto(`${base}/docs`);
      const s = (await h.api('POST', '/v1beta/capture_sessions', { start_url: `${base}/docs` })).json;
      const d = await wsDriver(s.iframe_url, ref);
      await expect.poll(d.url, { timeout: 15_000 }).toContain('/docs');
      const msgs: any[] = [];
      d.ws.on('message', (m, bin) => !bin && msgs.push(JSON.parse(String(m))));
      const send = (m: object) => d.ws.send(JSON.stringify(m));
      // The page's file input opens a chooser: the live view asks the person for a file.
      await d.click('input[name=document]');
      await expect.poll(() => msgs.find((m) => m.t === 'filechooser'), { timeout: 10_000 }).toMatchObject({ multiple: false });
      // Refused: more bytes than announced (the chooser stays open).
      send({ t: 'file_begin', name: 'x.bin', type: 'application/octet-stream', size: 2 });
      send({ t: 'file_chunk', data: Buffer.from('abc').toString('base64') });
      await expect.poll(() => msgs.find((m) => m.t === 'filechooser_refused')?.reason).toContain('more bytes');
      // A binary file, in chunks, its name with a path the page must not see.
      const scan = Buffer.concat([Buffer.from([0x25, 0x50, 0x44, 0x46, 0, 0xff]), crypto.randomBytes(90_000)]);
      send({ t: 'file_begin', name: '../../etc/invoice.pdf', type: 'application/pdf', size: scan.length });
      for (let i = 0; i < scan.length; i += 36_864) send({ t: 'file_chunk', data: scan.subarray(i, i + 36_864).toString('base64') });
      send({ t: 'file_end', done: true });
      await expect.poll(() => msgs.find((m) => m.t === 'filechooser_done')).toMatchObject({ files: 1 });
      await d.click('input[name=title]');
      d.text('Scanned invoice');
      await new Promise((r) => setTimeout(r, 300));
      await d.click('button');
      await expect.poll(d.url, { timeout: 10_000 }).toMatch(/\/docs$/);
      await expect.poll(() => site.docs.at(-1)?.title).toBe('Scanned invoice');
      expect(site.docs.at(-1)).toMatchObject({ filename: 'invoice.pdf', type: 'application/pdf', sha256: sha(scan) });
      expect((await h.api('POST', `/v1beta/capture_sessions/${s.id}/complete`)).status).toBe(202);
      await expect
        .poll(async () => (await h.api('GET', `/v1beta/capture_sessions/${s.id}`)).json.state, { timeout: 15_000 })
        .toBe('completed');
      const rec = (await h.api('GET', `/v1beta/capture_sessions/${s.id}/recording`)).json;
      const chosen = rec.log._capture.actions.find((a: any) => a.type === 'upload');
      expect(chosen.files).toEqual([
        { name: 'invoice.pdf', content_type: 'application/pdf', size: scan.length, sha256: sha(scan), data: scan.toString('base64') },
      ]);

      const before = site.docs.length;
      const c = await h.api('POST', '/v1beta/connectors', {
        display_name: 'upload',
        purpose: 'upload a document',
        capture_session_id: s.id,
        hints: { allow_side_effects: true },
      });
      expect(c.status, c.text).toBe(200);
      expect(c.json.input_schema.properties.document).toMatchObject({ format: 'file-id' });
      // (The title typed in the live view is an argument too, from the action log.)
      expect(c.json.input_schema.required).toEqual(expect.arrayContaining(['title', 'document']));
      const def = (await h.api('GET', `/v1beta/connectors/${c.json.id}/definition`)).json.definition;
      // Validated by sending the chosen file's own bytes (a fresh title).
      expect(def.meta.validation).toMatchObject({ replayed: true });
      expect(site.docs.length).toBe(before + 1);
      expect(site.docs.at(-1)).toMatchObject({ filename: 'invoice.pdf', sha256: sha(scan) });
      expect(JSON.stringify(def)).not.toContain(scan.toString('base64').slice(0, 40));
    } finally {
      await ref.context().close();
    }
  }, 120_000);
  it("the live view's own page asks for the file and sends the person's choice", async () => {
    const ref = await (await browser.newContext({ viewport: { width: 1000, height: 663 } })).newPage();
    const embedder = await startEmbedder({ width: 1000, height: 700 });
    try {
      const s = (await h.api('POST', '/v1beta/capture_sessions', { start_url: `${base}/docs` })).json;
      const v = await openLiveView(browser, embedder.url, s.iframe_url);
      await ref.setViewportSize(v.viewport);
      await ref.goto(`${base}/docs`);
      await expect.poll(() => v.urlBar(), { timeout: 15_000 }).toContain('/docs');
      await v.clickLike(ref, 'input[name=document]');
      await v.live.locator('#chooser').waitFor({ state: 'visible' });
      expect(await v.live.locator('#chooser-text').textContent()).toBe('The page asks for a file.');
      // The person picks a file from their own machine (a native dialog on a real screen).
      const notes = Buffer.from(crypto.randomBytes(50_000).toString('hex'));
      await v.live.locator('#chooser-input').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: notes });
      await v.live.locator('#chooser').waitFor({ state: 'hidden' });
      await v.clickLike(ref, 'input[name=title]');
      await v.host.keyboard.type('Field notes');
      await v.clickLike(ref, 'button');
      await expect.poll(() => site.docs.at(-1)?.title, { timeout: 10_000 }).toBe('Field notes');
      expect(site.docs.at(-1)).toMatchObject({ filename: 'notes.txt', size: notes.length, sha256: sha(notes) });
      await h.api('POST', `/v1beta/capture_sessions/${s.id}/abandon`);
      await v.host.context().close();
    } finally {
      await ref.context().close();
      await embedder.close();
    }
  }, 120_000);
});
