// Unit tests of the recording's pure parts: redaction in every encoding, HAR parts (bodies,
// cookies, multipart), and the HAR assembly (action order, tying entries to actions, markers).
import { describe, expect, it } from 'vitest';
import { Redactor, base64Cores, entryLocation } from '../../src/browser/recording/redact.js';
import { buildHar, type SpoolLine } from '../../src/browser/recording/har-build.js';
import { parseSetCookie, postDataToHar } from '../../src/browser/recording/har-parts.js';
import type { HarEntry, SecretMarker } from '../../src/formats/recording/types.js';

const SID = '0193aaaa-bbbb-7ccc-8ddd-eeeeffff0000';
const PW = 'p@ss w+rd/é"<x>\'';

describe('Redactor', () => {
  const r = new Redactor();
  const ph = r.add(SID, 'password', PW, 'password');
  r.add(SID, 'username', 'alice', 'username');

  it('a plain-word username is redacted where it stands alone, never inside a longer word or path segment', () => {
    const w = new Redactor();
    const user = w.add(SID, 'username', 'admin', 'log');
    expect(w.string('log=admin&pwd=x')).toBe(`log=${user}&pwd=x`);
    expect(w.string('{"user":"admin"}')).toBe(`{"user":"${user}"}`);
    expect(w.string('Howdy, admin!')).toBe(`Howdy, ${user}!`);
    // The site's own words: a path segment, a query value, a longer name.
    expect(w.string('/wp-admin/edit.php?page=admin_tools&x=superadmin')).toBe('/wp-admin/edit.php?page=admin_tools&x=superadmin');
    // A username that is not a plain word (an e-mail) is redacted wherever it occurs.
    const mail = w.add(SID, 'username', 'ann@example.test', 'email');
    expect(w.string('to:ann@example.test,x-ann@example.test')).toBe(`to:${mail},x-${mail}`);
  });

  it('replaces the raw, URL-, form-, JSON- and HTML-encoded forms', () => {
    const forms = [
      PW,
      encodeURIComponent(PW),
      encodeURIComponent(PW)
        .toLowerCase()
        .replace(/%c3%a9/, '%c3%a9'),
      new URLSearchParams({ x: PW }).toString().slice(2),
      JSON.stringify(PW).slice(1, -1),
      JSON.stringify(PW).slice(1, -1).replace('é', '\\u00e9'),
      PW.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;'),
    ];
    for (const f of forms) {
      const out = r.string(`before ${f} after`);
      expect(out, f).toBe(`before ${ph} after`);
    }
  });

  it('finds base64 of the value at any alignment', () => {
    for (const prefix of ['', 'a', 'ab', 'abc']) {
      const b64 = Buffer.from(`${prefix}${PW}tail`).toString('base64');
      const out = r.string(b64);
      expect(out).toContain(ph);
      expect(base64Cores(PW).some((c) => out.includes(c))).toBe(false);
    }
  });

  it('re-encodes Basic auth with the placeholder and marks it', () => {
    const markers: SecretMarker[] = [];
    const entry = { request: { headers: [{ name: 'Authorization', value: `Basic ${Buffer.from(`alice:${PW}`).toString('base64')}` }] } };
    const out = r.deep(entry, markers, entryLocation);
    const decoded = Buffer.from(out.request.headers[0].value.slice(6), 'base64').toString();
    expect(decoded).toBe(`{{secret:${SID}:username}}:${ph}`);
    expect(markers.map((m) => [m.field, m.location, m.encodings])).toEqual(
      expect.arrayContaining([
        ['password', 'request.headers.Authorization', ['basic-auth']],
        ['username', 'request.headers.Authorization', ['basic-auth']],
      ]),
    );
  });

  it('never nests placeholders, even for values that occur inside one', () => {
    const r2 = new Redactor();
    const p1 = r2.add(SID, 'password', 'secret');
    const once = r2.string('x secret y');
    expect(once).toBe(`x ${p1} y`);
    expect(r2.string(once)).toBe(once);
  });

  it('marks locations by header/cookie name and body part', () => {
    const markers: SecretMarker[] = [];
    const e = {
      request: {
        url: `http://h/?q=${encodeURIComponent(PW)}`,
        postData: { text: `{"p":${JSON.stringify(PW)}}` },
        cookies: [{ name: 'c', value: 'alice' }],
      },
      response: { content: { text: 'hello alice' } },
    };
    const out = r.deep(e, markers, entryLocation);
    expect(JSON.stringify(out)).not.toContain('alice');
    const locs = markers.map((m) => `${m.field}@${m.location}:${m.encodings.join('+')}`).sort();
    expect(locs).toEqual([
      'password@request.postData:json',
      'password@request.url:url',
      'username@request.cookies.c:raw',
      'username@response.content:raw',
    ]);
  });
});

describe('HAR parts', () => {
  it('parses urlencoded and multipart bodies with file parts as size + hash', () => {
    const form = postDataToHar(Buffer.from('a=1&b=x+y%2B'), 'application/x-www-form-urlencoded', 1000);
    expect(form.params).toEqual([
      { name: 'a', value: '1' },
      { name: 'b', value: 'x y+' },
    ]);
    const bin = Buffer.from([0, 1, 2, 255]);
    const body = Buffer.concat([
      Buffer.from(
        '--XyZ\r\nContent-Disposition: form-data; name="title"\r\n\r\nhello\r\n--XyZ\r\nContent-Disposition: form-data; name="f"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n',
      ),
      bin,
      Buffer.from('\r\n--XyZ--\r\n'),
    ]);
    const mp = postDataToHar(body, 'multipart/form-data; boundary=XyZ', 1000);
    expect(mp.params?.[0]).toEqual({ name: 'title', value: 'hello' });
    expect(mp.params?.[1]).toMatchObject({ name: 'f', fileName: 'a.bin', contentType: 'application/octet-stream', _size: 4 });
    expect(mp.params?.[1].value).toBeUndefined();
    expect(mp.text).toBeUndefined();
    expect(mp._size).toBe(body.length);
  });

  it('truncates long text bodies at the cap', () => {
    const p = postDataToHar(Buffer.from('x'.repeat(50)), 'text/plain', 10);
    expect(p.text).toBe('x'.repeat(10));
    expect(p._truncated).toBe(true);
  });

  it('parses Set-Cookie attributes', () => {
    expect(parseSetCookie('demo_session=abc=; Path=/; HttpOnly; SameSite=Lax; Expires=Wed, 21 Oct 2037 07:28:00 GMT')).toEqual({
      name: 'demo_session',
      value: 'abc=',
      path: '/',
      httpOnly: true,
      sameSite: 'Lax',
      expires: '2037-10-21T07:28:00.000Z',
    });
  });
});

describe('buildHar', () => {
  const entry = (id: string, t: string): HarEntry =>
    ({ _id: id, startedDateTime: t, _secrets: [], request: { url: 'http://x/' }, response: {} }) as unknown as HarEntry;
  it('orders actions by time, ties each entry to the preceding action, fills secret refs', () => {
    const t0 = Date.parse('2026-01-01T00:00:00.000Z');
    const lines: SpoolLine[] = [
      { k: 'page', p: { id: 'page_1', startedDateTime: new Date(t0).toISOString(), title: '', pageTimings: {}, _opener: null } },
      { k: 'entry', e: entry('e2', new Date(t0 + 500).toISOString()) },
      { k: 'entry', e: entry('e1', new Date(t0 + 50).toISOString()) },
      { k: 'action', a: { id: 'a2', type: 'click', page: 'page_1', url: 'u', target: null, ms: t0 + 400 } as any },
      {
        k: 'action',
        a: { id: 'a1', type: 'fill', page: 'page_1', url: 'u', target: null, value: `{{secret:${SID}:password}}`, ms: t0 + 100 } as any,
      },
      { k: 'title', id: 'page_1', title: 'Hello' },
    ];
    const har = buildHar(lines, {
      sessionId: 's',
      startedAt: new Date(t0).toISOString(),
      endedAt: new Date(t0 + 1000).toISOString(),
      browserVersion: '1',
      creatorVersion: '0',
      extension: {
        start_url: null,
        use_proxy: false,
        initial_cookies: [],
        viewport: { width: 1, height: 1 },
        limits: { max_body_bytes: 1 },
      },
    });
    expect(har.log.version).toBe('1.2');
    expect(har.log.pages[0].title).toBe('Hello');
    expect(har.log._capture.actions.map((a) => [a.id, a.seq, a.t_ms])).toEqual([
      ['a1', 1, 100],
      ['a2', 2, 400],
    ]);
    expect((har.log._capture.actions[0] as any).secret).toEqual({ secret_id: SID, field: 'password' });
    expect(har.log.entries.map((e) => [e._id, e._action_id])).toEqual([
      ['e1', null],
      ['e2', 'a2'],
    ]);
  });
});
