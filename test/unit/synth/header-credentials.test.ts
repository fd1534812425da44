// HTTP Basic credentials in a recording: base64("user:password") in Authorization headers. The
// plan carries `{{secrets.<slot>.basic}}` (from a stored login named in hints, or a login slot of
// its own when the HAR alone holds them), fills the header in where a HAR writer left it out (the
// request that met the challenge), makes no request a sign-in step for it, and the last check
// refuses a plan holding a secret in any encoding it could not template.
import { describe, expect, it } from 'vitest';
import type { HttpDefinition } from '../../../src/formats/definition/types.js';
import { synthesize } from '../../../src/synth/index.js';
import { SynthError } from '../../../src/synth/types.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'https://console.test';
const USER = 'ops-lead';
const PASS = 'S3nt:nel pw+/9';
const TOKEN = Buffer.from(`${USER}:${PASS}`).toString('base64');
const login = { account: { type: 'login' as const, username: USER, password: PASS, totp_secret: null } };
const HITS = {
  plants: [
    { id: 1, name: 'Apple tree' },
    { id: 2, name: 'Apple mint' },
  ],
};

// As Playwright writes it: the page that met the 401 challenge is listed without the header.
const recording = (extra: Record<string, string> = {}) =>
  har(
    { url: `${O}/`, html: '<!doctype html><input id=q><ul id=out></ul>' },
    { url: `${O}/api/plants?q=apple`, headers: { Authorization: `Basic ${TOKEN}`, ...extra }, body: HITS },
  );

describe('HTTP Basic credentials', () => {
  it('with a stored login in hints: every request reads {{secrets.account.basic}}, none is a sign-in step', () => {
    const r = synthesize({
      recording: recording(),
      hints: { arguments: { query: 'apple' }, secrets: { account: 'sec_1' } },
      secretValues: login,
    });
    const d = r.definition as HttpDefinition;
    expect(d.login).toBeUndefined();
    expect(d.steps.at(-1)).toMatchObject({
      url: '/api/plants',
      query: { q: '{{args.query}}' },
      headers: { authorization: 'Basic {{secrets.account.basic}}' },
    });
    expect(JSON.stringify(r)).not.toContain(TOKEN);
    expect(r.required_secrets.map((s) => s.name)).toEqual(['account']);
  });

  it('from the HAR alone: a login slot of its own, its values handed to the replay only', () => {
    let recorded: Record<string, unknown> = {};
    const r = synthesize({ recording: recording(), hints: { arguments: { query: 'apple' } }, onRecordedSecrets: (s) => (recorded = s) });
    const d = r.definition as HttpDefinition;
    expect(d.steps.at(-1)!.headers).toEqual({ authorization: 'Basic {{secrets.account.basic}}' });
    expect(r.required_secrets).toEqual([expect.objectContaining({ name: 'account', type: 'login' })]);
    expect(recorded).toEqual({ account: { type: 'login', username: USER, password: PASS, totp_secret: null } });
    const text = JSON.stringify(r);
    for (const form of [TOKEN, PASS, encodeURIComponent(PASS)]) expect(text).not.toContain(form);
  });

  it('the page that met the challenge gets the credentials too (a browser sends them to the whole origin)', () => {
    const r = synthesize({
      recording: har(
        {
          url: `${O}/status`,
          html: '<!doctype html><main><h1>Status</h1><dl><dt>Queue</dt><dd>12 jobs</dd><dt>Workers</dt><dd>4 idle</dd></dl></main>',
        },
        { url: `${O}/favicon.ico`, headers: { Authorization: `Basic ${TOKEN}` }, mime: 'image/x-icon', body: '' },
      ),
      hints: { result: ['12 jobs'] },
    });
    const step = (r.definition as HttpDefinition).steps.find((s) => s.url === '/status')!;
    expect(step.headers).toEqual({ authorization: 'Basic {{secrets.account.basic}}' });
  });

  it('a secret in a form the plan cannot template (base64 of the password alone, a custom header) is refused, not published', () => {
    const custom = { 'X-Console-Key': Buffer.from(PASS).toString('base64') };
    let err: unknown;
    try {
      synthesize({
        recording: recording(custom),
        hints: { arguments: { query: 'apple' }, secrets: { account: 'sec_1' } },
        secretValues: login,
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SynthError);
    expect((err as SynthError).problems).toEqual([expect.objectContaining({ stage: 'secrets' })]);
    expect(JSON.stringify((err as SynthError).problems)).not.toContain(custom['X-Console-Key']);
  });
});

describe('tokens in credential headers', () => {
  const KEY = 'k3y-Zx81kQpL0vYt7RmN3sWq';
  const search = (headers: Record<string, string>, before: Parameters<typeof har>[number][] = []) =>
    har(...before, { url: `${O}/api/plants?q=apple`, headers, body: HITS });

  it('a bearer token no recorded response handed out (kept by the browser from before) is a string slot, never a constant', () => {
    let recorded: Record<string, unknown> = {};
    const r = synthesize({
      recording: search({ Authorization: `Bearer ${KEY}`, 'X-Api-Key': `${KEY}-2` }),
      hints: { arguments: { query: 'apple' } },
      onRecordedSecrets: (s) => (recorded = s),
    });
    expect((r.definition as HttpDefinition).steps.at(-1)!.headers).toEqual({
      authorization: 'Bearer {{secrets.access_token.value}}',
      'x-api-key': '{{secrets.api_key.value}}',
    });
    expect(r.required_secrets.map((s) => [s.name, s.type])).toEqual([
      ['access_token', 'string'],
      ['api_key', 'string'],
    ]);
    expect(recorded).toEqual({ access_token: { type: 'string', value: KEY }, api_key: { type: 'string', value: `${KEY}-2` } });
    expect(JSON.stringify(r)).not.toContain(KEY);
  });

  it('a token a sign-in response handed out is traced from it, not a slot', () => {
    const r = synthesize({
      recording: search({ Authorization: `Bearer ${KEY}` }, [
        {
          method: 'POST',
          url: `${O}/auth/login`,
          json: { email: 'ann@example.com', password: 'Pw-0f9e8d7c' },
          body: { data: { access_token: KEY } },
        },
      ]),
      hints: { arguments: { query: 'apple' } },
    });
    const d = r.definition as HttpDefinition;
    expect(d.steps.at(-1)!.headers!.authorization).toMatch(/^Bearer \{\{vars\.\w+\}\}$/);
    expect(r.required_secrets.map((s) => s.name)).toEqual(['account']); // the typed login, not the token
  });

  it('anti-forgery tokens and request ids are no credentials', () => {
    const r = synthesize({
      recording: search({ 'X-CSRF-Token': KEY, 'X-Request-Id': `${KEY}-r`, 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ2x==' }),
      hints: { arguments: { query: 'apple' } },
    });
    expect(r.required_secrets).toEqual([]);
  });
});
