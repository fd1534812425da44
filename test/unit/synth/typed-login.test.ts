// A capture session where the person typed their sign-in by hand (not pasted): the username they
// typed is the login's, never an argument of the task (it would put the credential in the
// connector's input schema, and synthesis would rightly refuse to publish).
import { describe, expect, it } from 'vitest';
import { synthesize } from '../../../src/synth/index.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'http://shop.test';
const loginPage =
  '<html><body><form method="post" action="/login"><input name="username"><input type="password" name="password"><button>Sign in</button></form></body></html>';
const results =
  '<html><body><main><h1>Results</h1><ul><li><a href="/p/1">Victoria plums</a> £3</li><li><a href="/p/2">Damson plums</a> £4</li></ul></main></body></html>';

function recording() {
  const rec = har(
    { url: `${O}/login`, html: loginPage, at: 0 },
    {
      method: 'POST',
      url: `${O}/login`,
      form: { username: 'carol.jones', password: 'pw-carol-1' },
      status: 302,
      location: '/',
      setCookies: { sid: 's1' },
      at: 2000,
    },
    { url: `${O}/`, html: '<html><body><form action="/search"><input name="q"></form></body></html>', cookies: { sid: 's1' }, at: 2100 },
    { url: `${O}/search?q=plums`, html: results, cookies: { sid: 's1' }, at: 5000 },
  );
  const action = (seq: number, at: number, a: Record<string, unknown>) => ({
    id: `a${seq}`,
    seq,
    page: 'page_1',
    url: `${O}/`,
    target: null,
    time: new Date(Date.parse('2026-01-01T10:00:00Z') + at).toISOString(),
    t_ms: at,
    ...a,
  });
  (rec.log as any)._capture = {
    actions: [
      action(1, 500, { type: 'fill', value: 'carol.jones', target: { tag: 'input', type: 'text', name: 'username' }, secret: null }),
      action(2, 900, { type: 'fill', value: 'pw-carol-1', target: { tag: 'input', type: 'password', name: 'password' }, secret: null }),
      action(3, 1900, { type: 'click', target: { tag: 'button', type: 'submit' } }),
      action(4, 4000, { type: 'fill', value: 'plums', target: { tag: 'input', type: 'text', name: 'q' }, secret: null }),
      action(5, 4900, { type: 'key', key: 'Enter', target: { tag: 'input', type: 'text', name: 'q' } }),
    ],
  };
  return rec;
}

describe('a sign-in typed by hand in a capture session', () => {
  it('is the login: its username is no argument; what was typed for the task is', () => {
    const r = synthesize({
      recording: recording(),
      hints: { secrets: { account: 'sec-1' } },
      secretValues: { account: { type: 'login', username: 'carol.jones', password: 'pw-carol-1', totp_secret: null } },
    });
    expect(Object.keys(r.input_schema.properties as object)).toEqual(['q']);
    expect(JSON.stringify(r)).not.toContain('carol.jones');
  });

  it("a JSON sign-in whose user field is named in camelCase (`emailOrLdapLoginId`), nothing hinted: the address is the login's", () => {
    const rec = har(
      { url: `${O}/signin`, html: '<html><body><div id="app"></div></body></html>', at: 0 },
      {
        method: 'POST',
        url: `${O}/rest/login`,
        json: { emailOrLdapLoginId: 'carol@shop.test', password: 'pw-carol-1' },
        body: { data: { id: 'u1', email: 'carol@shop.test' } },
        setCookies: { auth: 'jwt-a1b2c3d4e5f6' },
        at: 2000,
      },
      {
        url: `${O}/rest/items?filter=%7B%22query%22%3A%22plums%22%7D`,
        body: { data: [{ name: 'Victoria plums' }] },
        cookies: { auth: 'jwt-a1b2c3d4e5f6' },
        at: 5000,
      },
    );
    const fill = (seq: number, at: number, name: string, value: string, type = 'text') => ({
      id: `a${seq}`,
      seq,
      page: 'page_1',
      url: `${O}/signin`,
      time: new Date(Date.parse('2026-01-01T10:00:00Z') + at).toISOString(),
      t_ms: at,
      type: 'fill',
      value,
      target: { tag: 'input', type, name },
      secret: null,
    });
    (rec.log as any)._capture = {
      actions: [
        fill(1, 500, 'emailOrLdapLoginId', 'carol@shop.test', 'email'),
        fill(2, 900, 'password', 'pw-carol-1', 'password'),
        fill(3, 4000, 'input-jsb3ul2nd', 'plums'),
      ],
    };
    const r = synthesize({ recording: rec });
    // (The search box's name is generated per page load: its placeholder is no better here, so `value`.)
    expect(Object.keys(r.input_schema.properties as object)).toEqual(['value']);
    expect(r.required_secrets.map((s) => s.name)).toEqual(['account']);
    expect(JSON.stringify(r)).not.toContain('carol@shop.test');
  });
});
