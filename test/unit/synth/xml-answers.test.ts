// XML answers (a WebDAV multistatus as Radicale sends it, an RSS and an Atom feed, one SOAP record):
// synthesis finds the records and their fields, and the extractor it writes reads ANOTHER document
// of the same shape through the runtime's own extractor code. Also: credentials in a URL (XHR's
// open(user, password), as Radicale's web UI does) become a templated Basic header, and WebDAV's
// methods are steps a definition may have.
import { describe, expect, it } from 'vitest';
import { validateDefinition } from '../../../src/formats/definition/validate.js';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { synthesize } from '../../../src/synth/index.js';
import { isRead, normalize } from '../../../src/synth/normalize.js';
import { pageMadeId } from '../../../src/synth/trace.js';
import { extractXml } from '../../../src/synth/xml-records.js';
import { har } from '../../helpers/har-fragment.js';

const run = (x: ReturnType<typeof extractXml>, doc: string) =>
  extractValue(x!.extractor, new View({ url: 'http://x.test/', text: doc }), 'items');

const collection = (href: string, name: string, description: string, color: string) =>
  `<response><href>${href}</href><propstat><prop><resourcetype><C:calendar /><collection /></resourcetype>` +
  `<RADICALE:displayname>${name}</RADICALE:displayname><ICAL:calendar-color>${color}</ICAL:calendar-color>` +
  `<C:calendar-description>${description}</C:calendar-description></prop><status>HTTP/1.1 200 OK</status></propstat>` +
  '<propstat><prop><CR:addressbook-description /></prop><status>HTTP/1.1 404 Not Found</status></propstat></response>';
const multistatus = (...responses: string[]) =>
  `<?xml version='1.0' encoding='utf-8'?>\n<multistatus xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:CR="urn:ietf:params:xml:ns:carddav" ` +
  `xmlns:ICAL="http://apple.com/ns/ical/" xmlns:RADICALE="http://radicale.org/ns/"><response><href>/seed/</href><propstat><prop>` +
  '<resourcetype><principal /><collection /></resourcetype></prop><status>HTTP/1.1 200 OK</status></propstat><propstat><prop>' +
  `<RADICALE:displayname /><C:calendar-description /></prop><status>HTTP/1.1 404 Not Found</status></propstat></response>${responses.join('')}</multistatus>`;

describe('records in XML answers', () => {
  it('a WebDAV multistatus: one record per response, its properties (not the empty ones it lacks) as fields', () => {
    const recorded = multistatus(
      collection('/seed/harvest/', 'Harvest Calendar', 'Picking days', '#ff0000'),
      collection('/seed/pruning/', 'Pruning Schedule', 'Which row when', '#00aa00'),
    );
    const x = extractXml(recorded, ['Harvest Calendar'])!;
    expect(x.kind).toBe('list');
    expect(x.extractor.selector).toBe('multistatus > response');
    const later = multistatus(collection('/seed/quince/', 'Quince <Days>'.replace('<', '&lt;').replace('>', '&gt;'), 'New', '#123456'));
    const items = run(x, later) as Record<string, unknown>[];
    expect(items).toHaveLength(2);
    expect(items[1]).toMatchObject({
      href: '/seed/quince/',
      displayname: 'Quince <Days>',
      calendar_color: '#123456',
      calendar_description: 'New',
    });
    expect(items[0]).toMatchObject({ href: '/seed/', displayname: null }); // (its 404 property is empty, not a value)
  });

  it('an RSS feed: the items, CDATA read as text, a date kept as written', () => {
    const rss = (items: string) =>
      `<?xml version="1.0"?><rss version="2.0"><channel><title>Orchard news</title><link>http://o.test/</link>${items}</channel></rss>`;
    const item = (t: string, n: number) =>
      `<item><title><![CDATA[${t} & more]]></title><link>http://o.test/p/${n}</link><guid>p-${n}</guid><pubDate>Sat, 28 Nov 2026 10:00:00 GMT</pubDate></item>`;
    const x = extractXml(rss(item('Pears ripen', 1) + item('Apples fall', 2)), ['Pears ripen'])!;
    expect(x.extractor.selector).toBe('rss > channel > item');
    expect(run(x, rss(item('Quinces', 9)))).toEqual([
      { title: 'Quinces & more', link: 'http://o.test/p/9', guid: 'p-9', pub_date: 'Sat, 28 Nov 2026 10:00:00 GMT' },
    ]);
  });

  it("an Atom feed: an entry's link is its href attribute", () => {
    const feed = (entries: string) => `<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title>${entries}</feed>`;
    const entry = (n: number) =>
      `<entry><title>Post ${n}</title><link href="http://o.test/${n}"/><id>urn:p:${n}</id><updated>2026-11-2${n}T10:00:00Z</updated></entry>`;
    const x = extractXml(feed(entry(1) + entry(2)), [])!;
    expect(x.extractor.selector).toBe('feed > entry');
    expect(x.schema.items.properties.updated).toEqual({ type: ['string', 'null'], format: 'date-time' });
    expect(run(x, feed(entry(7)))).toEqual([{ title: 'Post 7', link: 'http://o.test/7', id: 'urn:p:7', updated: '2026-11-27T10:00:00Z' }]);
  });

  it('one SOAP record: the text elements of the document are its fields, typed', () => {
    const soap = (id: number, name: string) =>
      `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><GetTreeResponse><Tree><Id>${id}</Id><Name>${name}</Name><Planted>2019</Planted></Tree></GetTreeResponse></soap:Body></soap:Envelope>`;
    const x = extractXml(soap(7, 'Conference pear'), ['Conference pear'])!;
    expect(x.kind).toBe('detail');
    expect(run(x, soap(12, 'Bramley'))).toEqual({ id: 12, name: 'Bramley', planted: 2019 });
  });

  it('a hostile XML answer: no entity is expanded (billion laughs) and no external one is read (XXE)', () => {
    const lol = Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`).join('');
    const doc = (v: string) =>
      `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY lol0 "lol">${lol}<!ENTITY x SYSTEM "file:///etc/passwd">]><r><item><v>${v}</v><w>&x;</w></item><item><v>b</v><w>c</w></item></r>`;
    const x = extractXml(doc('a'), [])!;
    const items = run(x, doc('&lol9;')) as { v: string; w: string }[];
    expect(items[0]).toEqual({ v: '&lol9;', w: '&x;' });
    expect(JSON.stringify(items)).not.toContain('root:');
  });

  it('not XML, or no text anywhere: nothing', () => {
    expect(extractXml('<a><b/><b/></a>', [])).toBeNull();
    expect(extractXml('not < xml', [])).toBeNull();
  });
});

describe('a WebDAV flow behind credentials in the URL', () => {
  const O = 'http://dav.test';
  const PASSWORD = 'dav p@ss:wörd';
  const userinfo = `seed:${encodeURIComponent(PASSWORD)}@`;
  const recording = () =>
    har({
      method: 'PROPFIND',
      url: `http://${userinfo}dav.test/seed/`,
      headers: { depth: '1', 'content-type': 'text/plain;charset=UTF-8' },
      body: multistatus(collection('/seed/harvest/', 'Harvest Calendar', 'Picking days', '#ff0000')),
      mime: 'text/xml; charset=utf-8',
      status: 207,
    });

  it('the URL loses the credentials; the request carries them as Basic', () => {
    const [x] = normalize(recording()).exchanges;
    expect(x!.url).toBe(`${O}/seed/`);
    expect(x!.reqHeaders).toContainEqual({ name: 'Authorization', value: `Basic ${Buffer.from(`seed:${PASSWORD}`).toString('base64')}` });
    expect(isRead(x!)).toBe(true);
  });

  it('synthesizes a PROPFIND step with a templated Basic header and XML records, valid as a definition', () => {
    const r = synthesize({
      recording: recording(),
      hints: { result: ['Harvest Calendar'], secrets: { account: 'sec_1' } },
      secretValues: { account: { type: 'login', username: 'seed', password: PASSWORD, totp_secret: null } },
    });
    const text = JSON.stringify(r.definition);
    for (const form of [PASSWORD, encodeURIComponent(PASSWORD), Buffer.from(`seed:${PASSWORD}`).toString('base64')])
      expect(text).not.toContain(form);
    const step = (r.definition as any).steps[0];
    expect(step).toMatchObject({
      method: 'PROPFIND',
      url: '/seed/',
      headers: { authorization: 'Basic {{secrets.account.basic}}', depth: '1' },
    });
    expect(step.extract.items).toMatchObject({ from: 'xml', selector: 'multistatus > response', all: true });
    expect(validateDefinition(r.definition, { inputSchema: r.input_schema, requiredSecrets: r.required_secrets })).toEqual([]);
  });

  const NEW = '5f0c2a9e-1b7d-4c3e-9a8b-2d6e4f1a0b3c';
  const KNOWN = '0d9e8f7a-6b5c-4d3e-2f1a-0b9c8d7e6f5a';
  const create = () =>
    har(
      {
        method: 'PROPFIND',
        url: `${O}/seed/`,
        body: multistatus(collection(`/seed/${KNOWN}/`, 'Old', 'x', '#000000')),
        mime: 'text/xml',
        status: 207,
      },
      {
        method: 'MKCOL',
        url: `${O}/seed/${NEW}/`,
        headers: { authorization: `Basic ${Buffer.from('seed:pw-1').toString('base64')}` },
        json: { displayname: 'Cider Days' }, // (a fragment's body; Radicale's is XML: test/acceptance/radicale.test.ts)
        body: '',
        mime: 'text/plain',
        status: 201,
      },
    );

  it('a UUID a write sends first (the page named the new record) is a new one each run; one a page showed before is not', () => {
    const xs = normalize(create()).exchanges;
    expect(pageMadeId(xs)).toBe(NEW);
    expect(pageMadeId(xs.slice(0, 1))).toBeNull();
    // (Sent first by a read, or by an update, it is an id the page had from before the recording.)
    expect(pageMadeId(normalize(har({ url: `${O}/seed/${NEW}/`, body: {} })).exchanges)).toBeNull();
    expect(pageMadeId(normalize(har({ method: 'PUT', url: `${O}/items/${NEW}`, json: { a: 1 }, body: {} })).exchanges)).toBeNull();
    expect(pageMadeId(normalize(har({ method: 'PUT', url: `${O}/items/${NEW}`, json: { a: 1 }, body: {}, status: 201 })).exchanges)).toBe(
      NEW,
    );
  });

  it('the MKCOL of a new collection goes to a path with {{run.uuid}}', () => {
    const r = synthesize({
      recording: create(),
      hints: { arguments: { title: 'Cider Days' }, secrets: { account: 'sec_1' }, allow_side_effects: true },
      secretValues: { account: { type: 'login', username: 'seed', password: 'pw-1', totp_secret: null } },
    });
    const mkcol = (r.definition as any).steps.find((s: any) => s.method === 'MKCOL');
    expect(mkcol.url).toBe('/seed/{{run.uuid}}/');
    expect(JSON.stringify((r.definition as any).steps)).not.toContain(NEW); // (meta notes name the recorded request)
    expect(r.report.computed).toEqual([]);
  });
});
