// A JSON document sent as text — a form field holding `{"title": "…"}`, a query's JSON filter —
// gets each argument and secret escaped as the inside of a JSON string (`| jsonesc`): a quote or a
// line break in a run's value would otherwise break the document the site parses.
import { describe, expect, it } from 'vitest';
import type { HttpDefinition } from '../../../src/formats/definition/types.js';
import { render } from '../../../src/formats/definition/template.js';
import { synthesize } from '../../../src/synth/index.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'https://app.test';
const PASSWORD = 'S3ntinel-pw-7731';

describe('a JSON document sent as text', () => {
  it('writes an argument into it escaped, so a quote or a line break keeps the document whole', () => {
    const r = synthesize({
      recording: har({
        method: 'POST',
        url: `${O}/api/save?filter=${encodeURIComponent(JSON.stringify({ author: 'ann' }))}`,
        form: { data: JSON.stringify({ title: 'Pear grafting', tags: ['orchard'] }), v: '2' },
        body: { ok: true, id: 5 },
      }),
      hints: { arguments: { title: 'Pear grafting', author: 'ann' } },
    });
    const step = (r.definition as HttpDefinition).steps[0]!;
    const data = (step.body as { form: Record<string, string> }).form.data!;
    expect(data).toContain('{{args.title | jsonesc}}');
    const title = 'Pear "Conference"\ngrafting \\ notes';
    const sent = render(data, (p) => (p[0] === 'args' && p[1] === 'title' ? title : undefined)) as string;
    expect(JSON.parse(sent)).toEqual({ title, tags: ['orchard'] });
    expect(step.query?.filter).toBe('{"author":"{{args.author | jsonesc}}"}');
  });

  it('a secret inside it too (a sign-in that posts its credentials as a JSON field)', () => {
    const r = synthesize({
      recording: har(
        { method: 'POST', url: `${O}/login`, form: { creds: JSON.stringify({ user: 'ann', pass: PASSWORD }) }, body: { ok: true } },
        { url: `${O}/api/orders?q=pear`, body: { orders: [{ id: 1, item: 'pear' }] } },
      ),
      hints: { arguments: { q: 'pear' } },
      secretValues: { account: { type: 'login', username: 'ann', password: PASSWORD, totp_secret: null } },
    });
    const creds = ((r.definition as HttpDefinition).login!.steps[0]!.body as { form: Record<string, string> }).form.creds!;
    expect(creds).toContain('{{secrets.account.password | jsonesc}}');
    expect(JSON.stringify(r.definition)).not.toContain(PASSWORD);
    const pw = 'a"b\\c';
    const sent = render(creds, (p) => (p[0] === 'secrets' ? (p[2] === 'password' ? pw : 'ann') : undefined)) as string;
    expect(JSON.parse(sent)).toEqual({ user: 'ann', pass: pw });
  });
});

describe('an XML document sent as text (a WebDAV PROPPATCH, a SOAP call)', () => {
  const proppatch = (name: string) =>
    `<?xml version="1.0" encoding="utf-8"?>\n<propertyupdate xmlns="DAV:"><set><prop><displayname>${name}</displayname></prop></set></propertyupdate>`;
  const xmlEscaped = (v: string) =>
    v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

  it('writes an argument into it escaped as character data, and finds a typed value the page wrote escaped', () => {
    const rec = har({ method: 'PROPPATCH', url: `${O}/seed/harvest/`, body: '<multistatus xmlns="DAV:"/>', mime: 'application/xml' });
    const text = proppatch('Plums &amp; pears');
    (rec.log.entries[0]!.request as any).postData = { mimeType: 'application/xml; charset=utf-8', text, _size: text.length, _sha256: '' };
    const r = synthesize({ recording: rec, hints: { arguments: { name: 'Plums & pears' }, allow_side_effects: true } });
    const body = (r.definition as HttpDefinition).steps[0]!.body as { text: string };
    expect(body.text).toBe(proppatch('{{args.name | xmlesc}}'));
    const name = `Figs <ripe> & "sweet" o'clock`;
    expect(render(body.text, (p) => (p[0] === 'args' && p[1] === 'name' ? name : undefined))).toBe(proppatch(xmlEscaped(name)));
  });
});
