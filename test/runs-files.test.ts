// Uploaded files as run arguments: a connector sends the caller's file (an argument of format
// file-id) as a multipart part or as a raw body, byte for byte. The host serves only files the
// run's arguments name and the caller owns, within RUN_INPUT_MAX_BYTES; everything else is refused.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMultipart } from '../src/browser/recording/har-parts.js';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { logsOf, publish, waitRun } from './helpers/runs.js';
import { uploadBytes } from './helpers/synth.js';

const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/** A site that answers what it received: each multipart part (sha256 of file parts) or a raw body's digest. */
async function startUploadSite() {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      if (req.url === '/slow') await new Promise((r) => setTimeout(r, 1500));
      const body = Buffer.concat(chunks);
      const type = req.headers['content-type'] ?? '';
      const boundary = /boundary=([^;]+)/.exec(type)?.[1];
      const answer = boundary
        ? { parts: parseMultipart(body, boundary, 1 << 20).map((p) => ({ ...p, _sha256: p._sha256?.replace(/^sha256:/, '') })) }
        : { content_type: type, size: body.length, sha256: sha(body) };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(r)) };
}

const INPUT = {
  type: 'object',
  properties: { title: { type: 'string' }, document: { type: 'string', format: 'file-id' } },
  required: ['document'],
};

const multipartDef = (base: string, file = '{{args.document}}') => ({
  format: 'connector-definition/v1',
  engine: 'http',
  base_url: base,
  steps: [
    {
      id: 'upload',
      method: 'POST',
      url: '/upload',
      body: {
        multipart: [
          { name: 'title', value: '{{args.title}}' },
          { name: 'doc', file },
        ],
      },
      extract: { parts: { from: 'json', path: '$.parts', type: 'json' } },
    },
  ],
  result: { parts: '{{vars.parts}}' },
});

const rawDef = (base: string) => ({
  format: 'connector-definition/v1',
  engine: 'http',
  base_url: base,
  steps: [
    {
      id: 'put',
      method: 'PUT',
      url: '/dav/{{args.title}}',
      body: { file: '{{args.document}}' },
      extract: { got: { from: 'json', path: '$', type: 'json' } },
    },
  ],
  result: { got: '{{vars.got}}' },
});

describe.each(await backends())('uploaded files as run arguments (%s)', (backend) => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof startUploadSite>>;
  // Bytes no text decoding survives: NULs, invalid UTF-8, CR LF and a would-be boundary.
  const pdf = Buffer.concat([
    Buffer.from('%PDF-1.7\r\n--boundary\r\n'),
    Buffer.from([0, 0xff, 0xfe, 0x80, 0x0d, 0x0a]),
    crypto.randomBytes(3000),
  ]);
  let fileId: string;
  let multipart: any;
  /** A publish the test expects refused: the answer. */
  const publishing = (definition: unknown, extra: Record<string, unknown> = {}) =>
    h.api('POST', '/v1beta/connectors', {
      display_name: 'x',
      purpose: 'upload',
      definition,
      input_schema: INPUT,
      output_schema: { type: 'object' },
      ...extra,
    });
  beforeAll(async () => {
    site = await startUploadSite();
    h = await startHarness(backend, { RUN_INPUT_MAX_BYTES: '100000' });
    fileId = await uploadBytes(h, 'report "Q3".pdf', pdf, 'application/pdf');
    multipart = await publish(h, { definition: multipartDef(site.url), input_schema: INPUT, output_schema: { type: 'object' } });
  });
  afterAll(async () => {
    await h?.close();
    await site?.close();
  });

  it("sends the caller's file as a multipart part, byte for byte, with its name and type", async () => {
    const r = await h.api('POST', '/v1beta/runs', { connector_id: multipart.id, arguments: { title: 'Quarter', document: fileId } });
    expect(r.status, r.text).toBe(200);
    expect(r.json.status, JSON.stringify(r.json.error)).toBe('success');
    const [title, doc] = r.json.result.parts;
    expect(title).toEqual({ name: 'title', value: 'Quarter' });
    // The quote in the file's name is escaped as browsers do; the bytes arrive unchanged.
    expect(doc).toMatchObject({ name: 'doc', fileName: 'report %22Q3%22.pdf', contentType: 'application/pdf', _size: pdf.length });
    expect(doc._sha256).toBe(sha(pdf));
    expect(await logsOf(h, r.json.id)).toContain(`sending uploaded file report "Q3".pdf (${pdf.length} bytes, id ${fileId})`);
  });

  it("sends the caller's file as a raw PUT body with its content type", async () => {
    const c = await publish(h, { definition: rawDef(site.url), input_schema: INPUT, output_schema: { type: 'object' } });
    const r = await h.api('POST', '/v1beta/runs', { connector_id: c.id, arguments: { title: 'q3.pdf', document: fileId } });
    expect(r.json.status, JSON.stringify(r.json.error)).toBe('success');
    expect(r.json.result.got).toEqual({ content_type: 'application/pdf', size: pdf.length, sha256: sha(pdf) });
  });

  it("refuses another user's file, a pending one and a malformed id when the run is created (422)", async () => {
    const other = await h.newUser('mallory');
    const theirs = await uploadBytes(h, 'theirs.txt', Buffer.from('not yours'), 'text/plain', other.key);
    const pending = (await h.api('POST', '/v1beta/files', { name: 'p.bin', size_bytes: 3, content_type: 'application/octet-stream' })).json
      .file_id;
    for (const document of [theirs, pending, '../../etc/passwd']) {
      const r = await h.api('POST', '/v1beta/runs', { connector_id: multipart.id, arguments: { document } });
      expect(r.status, r.text).toBe(422);
      expect(r.json.detail[0]).toMatchObject({ loc: ['body', 'arguments', 'document'], input: document });
    }
    // Mallory's own connector can't reach the first user's file either.
    const hers = await publish(
      h,
      { definition: multipartDef(site.url), input_schema: INPUT, output_schema: { type: 'object' } },
      other.key,
    );
    const r = await h.api('POST', '/v1beta/runs', { connector_id: hers.id, arguments: { document: fileId } }, other.key);
    expect(r.status).toBe(422);
  });

  it('refuses a file the run did not name: a definition with a written-in id ends invalid_input, nothing sent', async () => {
    const c = await publish(h, {
      definition: multipartDef(site.url, fileId),
      input_schema: { type: 'object', properties: { title: { type: 'string' } } },
      output_schema: { type: 'object' },
    });
    const r = await h.api('POST', '/v1beta/runs', { connector_id: c.id, arguments: { title: 'x' } });
    expect(r.json.status).toBe('connector_error');
    expect(r.json.error).toMatchObject({ type: 'invalid_input', retryable: false });
    expect(r.json.error.message).toContain('which no argument of this run names');
  });

  it('fails invalid_input when the file was deleted before the run read it, or is over RUN_INPUT_MAX_BYTES', async () => {
    // A first step that takes a second: the file is deleted while the run waits for it.
    const slow = multipartDef(site.url) as any;
    slow.steps.unshift({ id: 'wait', url: '/slow' });
    const c = await publish(h, { definition: slow, input_schema: INPUT, output_schema: { type: 'object' } });
    const gone = await uploadBytes(h, 'gone.txt', Buffer.from('bye'), 'text/plain');
    const started = await h.api('POST', '/v1beta/runs', { connector_id: c.id, arguments: { document: gone }, async: true });
    expect(started.status).toBe(202);
    expect((await h.api('DELETE', `/v1beta/files/${gone}`)).status).toBe(200);
    const done = await waitRun(h, started.json.id);
    expect(done.status).toBe('connector_error');
    expect(done.error).toMatchObject({ type: 'invalid_input', details: { file_id: gone } });
    expect(done.error.message).toContain(`no uploaded file ${gone}`);
    // A new run on the deleted id is refused at creation.
    expect((await h.api('POST', '/v1beta/runs', { connector_id: c.id, arguments: { document: gone } })).status).toBe(422);

    const big = await uploadBytes(h, 'big.bin', crypto.randomBytes(100_001), 'application/octet-stream');
    const r = await h.api('POST', '/v1beta/runs', { connector_id: multipart.id, arguments: { document: big } });
    expect(r.json.status).toBe('connector_error');
    expect(r.json.error.type).toBe('invalid_input');
    expect(r.json.error.message).toContain('RUN_INPUT_MAX_BYTES');
  });

  it("names the caller's file (its name, type and size) where the page named the recorded one", async () => {
    const def = multipartDef(site.url) as any;
    // Only the file's fields, no file part: the run still reads the file, for them alone.
    def.steps[0].body.multipart = [
      { name: 'filename', value: '{{files.document.name}}' },
      { name: 'type', value: '{{files.document.content_type}}' },
      { name: 'size', value: '{{files.document.size}}' },
    ];
    def.result = { parts: '{{vars.parts}}', stored_as: '{{files.document.name}}' };
    const c = await publish(h, { definition: def, input_schema: INPUT, output_schema: { type: 'object' } });
    const r = await h.api('POST', '/v1beta/runs', { connector_id: c.id, arguments: { document: fileId } });
    expect(r.json.status, JSON.stringify(r.json.error)).toBe('success');
    expect(r.json.result).toEqual({
      parts: [
        { name: 'filename', value: 'report "Q3".pdf' },
        { name: 'type', value: 'application/pdf' },
        { name: 'size', value: String(pdf.length) },
      ],
      stored_as: 'report "Q3".pdf',
    });
    // A name HTTP can't carry in a header (a line break: `X-Injected: 1` would be a header of its
    // own) is never sent: the run ends invalid_input, not a site error to retry.
    const header = structuredClone(def);
    header.steps[0].headers = { 'x-file-name': '{{files.document.name}}' };
    const named = await publish(h, { definition: header, input_schema: INPUT, output_schema: { type: 'object' } });
    const evil = await uploadBytes(h, 'plan\r\nX-Injected: 1.pdf', Buffer.from('%PDF'), 'application/pdf');
    const refused = await h.api('POST', '/v1beta/runs', { connector_id: named.id, arguments: { document: evil } });
    expect(refused.json.error).toMatchObject({ type: 'invalid_input', retryable: false });
    expect(refused.json.error.message).toContain('was not sent');
    expect(await logsOf(h, refused.json.id)).not.toMatch(/POST \S+ → \d{3}/);

    // Named in the result only: the run still reads the file for it.
    const inResult = structuredClone(def);
    inResult.steps[0].body.multipart = [{ name: 'title', value: 'x' }];
    inResult.result = { stored_as: '{{files.document.name}}' };
    const only = await publish(h, { definition: inResult, input_schema: INPUT, output_schema: { type: 'object' } });
    const r2 = await h.api('POST', '/v1beta/runs', { connector_id: only.id, arguments: { document: fileId } });
    expect(r2.json.status, JSON.stringify(r2.json.error)).toBe('success');
    expect(r2.json.result).toEqual({ stored_as: 'report "Q3".pdf' });

    // Not a file argument, not a field of one: refused at publish.
    for (const [template, message] of [
      ['{{files.title.name}}', "'title' is not an argument of format file-id"],
      ['{{files.document.path}}', 'use {{files.<argument>.name|content_type|size}}'],
    ]) {
      def.steps[0].body.multipart = [{ name: 'x', value: template }];
      const bad = await publishing(def);
      expect(bad.status, template).toBe(422);
      expect(JSON.stringify(bad.json.detail)).toContain(message);
    }
  });

  it('refuses at publish a file chosen by a secret, and a part with both a value and a file', async () => {
    const def = multipartDef(site.url, '{{secrets.account.password}}');
    const r = await publishing(def, { required_secrets: [{ name: 'account', type: 'login' }] });
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.json.detail)).toContain('a file is chosen by {{args');
    const both = multipartDef(site.url) as any;
    both.steps[0].body.multipart[1].value = 'text';
    const r2 = await publishing(both);
    expect(r2.status).toBe(422);
    expect(JSON.stringify(r2.json.detail)).toContain('not both');
  });
});
