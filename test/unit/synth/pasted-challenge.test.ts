// A login pasted in a capture session to answer a site's HTTP challenge (capture-runtime.ts
// answerChallenge): the recording holds it as placeholders — inside the Basic token of every
// Authorization header, or (Digest) only as the username of hashed answers, which normalize drops.
import { describe, expect, it } from 'vitest';
import { synthesize } from '../../../src/synth/index.js';
import { pastedBasic } from '../../../src/synth/substitute.js';
import { entry, har } from '../../helpers/har-fragment.js';

const O = 'http://store.test';
const ID = 'sec-0a1b2c';
const U = `{{secret:${ID}:username}}`;
const P = `{{secret:${ID}:password}}`;
const b64 = (s: string) => Buffer.from(s).toString('base64');
const table = (rows: string[]) =>
  `<html><body><table><thead><tr><th>Variety</th><th>Crates</th></tr></thead><tbody>${rows.map((r, i) => `<tr><td>${r}</td><td>${i + 3}</td></tr>`).join('')}</tbody></table></body></html>`;

function pasted(authorization: (i: number) => string | null) {
  const rec = har();
  rec.log.entries.push(
    entry({ url: `${O}/`, status: 401, html: '<h1>401</h1>', resHeaders: { 'www-authenticate': 'Basic realm="store"' }, at: 0 }),
    ...[0, 1].map((i) => {
      const a = authorization(i);
      return entry({
        url: i ? `${O}/crates?q=bram` : `${O}/`,
        html: table(i ? ['Bramley'] : ['Bramley', 'Cox']),
        headers: a ? { Authorization: a } : {},
        at: 2000 + i * 2000,
      });
    }),
  );
  (rec.log as any)._capture = {
    actions: [
      {
        id: 'a1',
        seq: 1,
        page: 'page_1',
        url: `${O}/`,
        time: '2026-01-01T10:00:01.000Z',
        t_ms: 1000,
        type: 'paste',
        secret: { secret_id: ID, field: 'username' },
        target: null,
      },
      {
        id: 'a2',
        seq: 2,
        page: 'page_1',
        url: `${O}/`,
        time: '2026-01-01T10:00:01.000Z',
        t_ms: 1000,
        type: 'paste',
        secret: { secret_id: ID, field: 'password' },
        target: null,
      },
      {
        id: 'a3',
        seq: 3,
        page: 'page_1',
        url: `${O}/`,
        time: '2026-01-01T10:00:03.000Z',
        t_ms: 3000,
        type: 'fill',
        value: 'bram',
        secret: null,
        target: { tag: 'input', type: 'text', name: 'q', id: 'q' },
      },
    ],
    secrets: [
      { secret_id: ID, field: 'username', action_id: 'a1', target: null, placeholder: U },
      { secret_id: ID, field: 'password', action_id: 'a2', target: null, placeholder: P },
    ],
  };
  return rec;
}

describe('a login pasted to answer an HTTP challenge', () => {
  it("is the slot's Basic credentials where the header's token is the pasted pair, and only there", () => {
    const slot = (id: string) => (id === ID ? 'account' : null);
    expect(pastedBasic(`Basic ${b64(`${U}:${P}`)}`, slot)).toBe('account');
    expect(pastedBasic(`basic  ${b64(`${U}:${P}`)}`, slot)).toBe('account');
    expect(pastedBasic(`Basic ${b64(`${U}:other`)}`, slot)).toBeNull();
    expect(pastedBasic(`Basic ${b64(`${U}:{{secret:another:password}}`)}`, slot)).toBeNull();
    expect(pastedBasic(`Bearer ${b64(`${U}:${P}`)}`, slot)).toBeNull();
  });

  it('Basic: every request sends the bound login as the header; no literal, no login of its own', () => {
    const r = synthesize({ recording: pasted(() => `Basic ${b64(`${U}:${P}`)}`) });
    const target = (r.definition as any).steps.at(-1);
    expect(target.headers.authorization).toBe('Basic {{secrets.account.basic}}');
    expect(target.query).toEqual({ q: '{{args.q}}' });
    expect(r.required_secrets.map((s) => [s.name, s.type])).toEqual([['account', 'login']]);
    expect(JSON.stringify(r.definition)).not.toContain('{{secret:');
  });

  it('Digest: the pasted login answers the challenge at run time (basic_auth), the hashes dropped', () => {
    const digest = (i: number) =>
      `Digest username="${U}", realm="store", nonce="n${i}", uri="/", response="0123456789abcdef0123456789abcdef", qop=auth, nc=00000001, cnonce="c${i}"`;
    const r = synthesize({ recording: pasted(digest) });
    expect((r.definition as any).basic_auth).toBe('account');
    expect(JSON.stringify(r.definition)).not.toMatch(/Digest username|response=|\{\{secret:/);
    expect(r.required_secrets.map((s) => [s.name, s.type])).toEqual([['account', 'login']]);
  });
});
