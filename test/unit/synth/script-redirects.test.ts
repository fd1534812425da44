// Pages whose script does what a redirect does (Icinga Web 2, test/acceptance/icingaweb.test.ts):
// a form posted by XHR is answered 200 with no body and the next page's URL in a header
// (`X-Icinga-Redirect`, percent-encoded), and the script loads that page; the post is the request
// that carries what the person typed, the page after it holds the result. And ids a page renders
// anew on every load (`form_login_CSRFToken-kiepmntsqhfx`) are no selectors.
import { describe, expect, it } from 'vitest';
import { synthesize } from '../../../src/synth/index.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'http://monitor.test';
const list = (names: string[]) =>
  `<html><body><div class="content"><table><thead><tr><th>Username</th><th>Active</th></tr></thead><tbody>${names
    .map((n) => `<tr><td><a href="/user/show?user=${n}">${n}</a></td><td>Yes</td></tr>`)
    .join('')}</tbody></table></div></body></html>`;
const search = (redirect: string) =>
  har(
    { url: `${O}/user/list?backend=db`, at: 100, html: list(['admin', 'ann', 'bob', 'dan']) },
    {
      method: 'POST',
      url: `${O}/user/list?backend=db`,
      at: 200,
      form: { q: 'an' },
      body: '',
      mime: 'text/html',
      resHeaders: { 'X-Icinga-Redirect': redirect },
    },
    // (The page's polling comes in between.)
    { url: `${O}/layout/menu`, at: 250, html: '<nav><a href="/dashboard">Dashboard</a></nav>' },
    { url: `${O}/user/list?(user=%2Aan%2A)&backend=db`, at: 300, html: list(['ann', 'dan']) },
  );

describe('a bodiless answer whose header names the page the script loads next', () => {
  it('is followed as a redirect: the post is the target, its result the page it led to', () => {
    const r = synthesize({
      recording: search(encodeURIComponent('/user/list?(user=%2Aan%2A)&backend=db')),
      hints: { arguments: { query: 'an' } },
    });
    const target = (r.definition as any).steps.at(-1);
    expect(target).toMatchObject({ method: 'POST', body: { form: { q: '{{args.query}}' } }, follow_header: 'x-icinga-redirect' });
    expect(r.report.targets[0]!.url).toBe(`${O}/user/list?backend=db`);
    expect(JSON.stringify(target.extract)).toContain('Username');
    expect(r.definition.meta?.decisions).toMatchObject({ result: { kind: 'html' } });
  });

  it('controls: a header naming another page than the one loaded next, or another origin, is no redirect', () => {
    for (const redirect of ['/user/list?(user=%2Aelse%2A)&backend=db', 'http://elsewhere.test/user/list?(user=%2Aan%2A)&backend=db']) {
      const r = synthesize({ recording: search(encodeURIComponent(redirect)), hints: { arguments: { query: 'an' } } });
      expect(JSON.stringify(r.definition)).not.toContain('follow_header');
    }
  });
});

describe('ids a page renders anew on every load', () => {
  const login = (token: string) =>
    `<html><body><div id="login" class="login-box"><form id="form_login-${token}" method="post" action="/authentication/login">
      <input id="form_login_username-${token}" name="username"><input id="form_login_password-${token}" type="password" name="password">
      <input type="hidden" id="form_login_formUID-${token}" name="formUID" value="form_login">
      <input type="hidden" id="form_login_CSRFToken-${token}" name="CSRFToken" value="1177686018|0e9b1c7d5f3a2b4c6d8e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e">
      <input type="submit" id="form_login_btn_submit-${token}" name="btn_submit" value="Login"></form></div></body></html>`;

  it('are not used to read a value: the control is found by its name', () => {
    const r = synthesize({
      recording: har(
        { url: `${O}/authentication/login`, at: 100, html: login('kiepmntsqhfx') },
        {
          method: 'POST',
          url: `${O}/authentication/login`,
          at: 200,
          form: {
            username: 'admin',
            password: 'iw-pass-1',
            formUID: 'form_login',
            CSRFToken: '1177686018|0e9b1c7d5f3a2b4c6d8e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e',
            btn_submit: 'Login',
          },
          html: '<html><body><main><h1>Dashboard</h1></main></body></html>',
        },
        { url: `${O}/user/list?q=ann`, at: 300, html: list(['ann']) },
      ),
      secretValues: { account: { type: 'login', username: 'admin', password: 'iw-pass-1', totp_secret: null } },
      hints: { arguments: { query: 'ann' }, secrets: { account: 'sec_1' } },
    });
    const text = JSON.stringify(r.definition);
    expect(text).toContain('input[name=\\"CSRFToken\\"]');
    expect(text).not.toContain('kiepmntsqhfx');
  });
});
