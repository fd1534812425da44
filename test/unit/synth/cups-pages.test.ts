// Pages as CUPS 2.4's web interface serves them (its CGIs render templates): no Content-Type at
// all, a printer's page at /printers/<name> with its label/value table and the jobs it holds, and
// a form whose radio's value is a long hyphen-joined name.
import { describe, expect, it } from 'vitest';
import { contentOf } from '../../../src/browser/recording/har-parts.js';
import { sniffedType, untyped as untypedMime } from '../../../src/lib/sniff.js';
import { normalize } from '../../../src/synth/normalize.js';
import { synthesize } from '../../../src/synth/index.js';
import { entry, har } from '../../helpers/har-fragment.js';

const O = 'http://print.test';
const page = (body: string) =>
  `<!DOCTYPE HTML>\n<html>\n<head><meta charset="utf-8"><title>CUPS</title></head>\n<body>\n<div class="header"><ul><li><a href="/">Home</a></li><li><a href="/printers/">Printers</a></li><li><a href="/jobs/">Jobs</a></li></ul></div>\n<div class="body"><div class="row">${body}</div></div>\n</body></html>`;

/** An entry served as CUPS serves its pages: no Content-Type header (HAR's `x-unknown`). */
function untyped(spec: Parameters<typeof entry>[0]) {
  const e = entry(spec);
  e.response.headers = e.response.headers.filter((h) => h.name.toLowerCase() !== 'content-type');
  e.response.content.mimeType = 'x-unknown';
  return e;
}
const recordingOf = (...entries: ReturnType<typeof entry>[]) => {
  const rec = har();
  rec.log.entries.push(...entries);
  return rec;
};

const jobRow = (printer: string, n: number, name: string) =>
  `<tr><td><a href="/printers/${printer}">${printer}</a>-${n}</td><td>${name}</td><td>root</td><td>1k</td><td>Unknown</td><td>held since<br>Tue Dec 1 2026</td><td><form action="/jobs/" method="POST"><input type="submit" value="Release Job"></form></td></tr>`;
const printerPage = (name: string, info: string, location: string, jobs: string[]) =>
  page(`<h2 class="title"><a href="/printers/${name}">${name}</a> (Idle, Accepting Jobs, Not Shared)</h2>
<table summary="${name}">
<tr><th align="right">Description:</th><td>${info}</td></tr>
<tr><th align="right">Location:</th><td>${location}</td></tr>
<tr><th align="right">Driver:</th><td>Generic PostScript Printer (grayscale)</td></tr>
<tr><th align="right">Connection:</th><td>file:///dev/null</td></tr>
<tr><th align="right">Defaults:</th><td>job-sheets=none, none media=na_letter_8.5x11in</td></tr>
</table>
${jobs.length ? `<table class="list" summary="Job List"><thead><tr><th>ID</th><th>Name</th><th>User</th><th>Size</th><th>Pages</th><th>State</th><th>Control</th></tr></thead><tbody>${jobs.map((j, i) => jobRow(name, i + 1, j)).join('')}</tbody></table>` : ''}`);

describe('a page served without a Content-Type', () => {
  it('is what a browser sniffs it as: HTML by its first tag, XML, JSON; else nothing', () => {
    expect(sniffedType('\n  <!DOCTYPE HTML>\n<html>')).toBe('text/html');
    expect(sniffedType('<html lang="en">')).toBe('text/html');
    expect(sniffedType('<!-- a comment --><p>x</p>')).toBe('text/html');
    expect(sniffedType('<?xml version="1.0"?><a/>')).toBe('text/xml');
    expect(sniffedType('{"a": 1}')).toBe('application/json');
    for (const t of ['<htmlx>', '{not json', 'plain words', '<svg></svg>']) expect(sniffedType(t), t).toBeNull();
    // (Only a missing or unknown type is sniffed: `application/octet-stream` says "a download".)
    for (const m of [null, '', ' ', 'x-unknown', 'unknown/unknown', 'application/unknown', '*/*'])
      expect(untypedMime(m), String(m)).toBe(true);
    for (const m of ['application/octet-stream', 'text/plain', 'text/html; charset=utf-8']) expect(untypedMime(m), m).toBe(false);
  });

  it('is read as the HTML it is by synthesis (a HAR says x-unknown), and recorded as text', () => {
    const x = normalize(recordingOf(untyped({ url: `${O}/printers/`, html: page('<h2>Printers</h2>') }))).exchanges[0]!;
    expect(x.mime).toBe('text/html');
    // (The recorder keeps it as text, typed as a browser would, not as binary bytes.)
    const c = contentOf('', 200, Buffer.from(page('<h2>Printers</h2>')), 1 << 20);
    expect(c.mimeType).toBe('text/html');
    expect(c.text).toContain('<h2>Printers</h2>');
    expect(contentOf('', 200, Buffer.from([0, 1, 2, 3, 0xff]), 1 << 20)._omitted).toBe('binary');
  });
});

describe("a printer's page, its address ending with the printer's name", () => {
  const orchard = printerPage('Orchard_Laser', 'Orchard office laser', 'Packing shed', [
    'Harvest list',
    'Pruning rota',
    'Cider labels',
    'Invoice 2231',
  ]);
  const recording = () =>
    recordingOf(
      untyped({
        url: `${O}/printers/`,
        html: page('<table class="list"><tr><td><a href="/printers/Orchard_Laser">Orchard_Laser</a></td></tr></table>'),
        at: 0,
      }),
      untyped({ url: `${O}/printers/Orchard_Laser`, html: orchard, at: 1500 }),
    );

  it('reads the printer — its description, location, driver — not the jobs list every row of which names it', () => {
    const r = synthesize({ recording: recording(), hints: { arguments: { printer: 'Orchard_Laser' } } });
    const step = (r.definition as any).steps.at(-1);
    expect(step.url).toBe('/printers/{{args.printer | urlencode}}');
    const props = Object.keys((r.output_schema as any).properties);
    expect(props).toEqual(expect.arrayContaining(['title', 'description', 'location', 'driver']));
    expect(props).not.toContain('items');
  });

  it('takes an address with malformed escapes as it is', () => {
    const rec = recordingOf(untyped({ url: `${O}/printers/Orchard%E0%A4%A`, html: orchard, at: 1500 }));
    expect(() => synthesize({ recording: rec, hints: { arguments: { printer: 'Orchard_Laser' } } })).not.toThrow(URIError);
  });

  it('reads the list when the argument does not name the page (a search that finds jobs by printer)', () => {
    const rec = recordingOf(untyped({ url: `${O}/jobs/?QUERY=Orchard_Laser`, html: orchard, at: 1500 }));
    const r = synthesize({ recording: rec, hints: { arguments: { query: 'Orchard_Laser' } } });
    expect(Object.keys((r.output_schema as any).properties)).toEqual(['items']);
  });
});

describe("a form's radio whose value is a long hyphen-joined name", () => {
  it('is a literal of the request, not a value traced from the form page', () => {
    const usersForm =
      page(`<form method="POST" action="/admin"><input type="hidden" name="org.cups.sid" value="eee7f228b7eb223c61c7d0891c6a727e">
<input type="hidden" name="OP" value="set-allowed-users"><input type="hidden" name="PRINTER_NAME" value="Orchard_Laser">
<input type="text" name="users" value="">
<input type="radio" name="type" value="requesting-user-name-allowed" id="requesting-user-name-allowed"><label for="requesting-user-name-allowed">Allow</label>
<input type="radio" name="type" value="requesting-user-name-denied" id="requesting-user-name-denied"><label for="requesting-user-name-denied">Prevent</label>
<input type="submit" value="Set Allowed Users"></form>`);
    const rec = recordingOf(
      untyped({
        url: `${O}/admin?OP=set-allowed-users&printer_name=Orchard_Laser`,
        html: usersForm,
        setCookies: { 'org.cups.sid': 'eee7f228b7eb223c61c7d0891c6a727e' },
        at: 0,
      }),
      untyped({
        method: 'POST',
        url: `${O}/admin`,
        form: {
          'org.cups.sid': 'eee7f228b7eb223c61c7d0891c6a727e',
          OP: 'set-allowed-users',
          PRINTER_NAME: 'Orchard_Laser',
          users: 'pickers',
          type: 'requesting-user-name-allowed',
        },
        cookies: { 'org.cups.sid': 'eee7f228b7eb223c61c7d0891c6a727e' },
        html: page('<h2>Set Allowed Users For Orchard_Laser</h2><p>Printer Orchard_Laser has been modified successfully.</p>'),
        at: 3000,
      }),
    );
    const r = synthesize({
      recording: rec,
      hints: { arguments: { printer: 'Orchard_Laser', users: 'pickers' }, allow_side_effects: true },
    });
    const post = (r.definition as any).steps.at(-1);
    expect(post.body.form.type).toBe('requesting-user-name-allowed');
    expect(post.body.form.users).toBe('{{args.users}}');
    expect(post.body.form['org.cups.sid']).toMatch(/^\{\{vars\./);
  });
});
