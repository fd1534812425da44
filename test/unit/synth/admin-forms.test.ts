// An admin's forms after a typed sign-in (ZNC's web admin, test/acceptance/znc.test.ts): a form that
// names the signed-in account in a field of its own (`user=seed`: whose networks to change) beside
// what the person typed for the task is the task, not an identifier-first sign-in step; and a new
// user's password given as an argument appears nowhere in what synthesis returns.
import { describe, expect, it } from 'vitest';
import { render } from '../../../src/formats/definition/template.js';
import { synthesize } from '../../../src/synth/index.js';
import { PASSWORD_FIELD } from '../../../src/synth/secrets.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'http://bouncer.test';
const page = (form: string) =>
  `<html><body><main><form method="post"><input type="hidden" name="_CSRF_Check" value="c5f1a9e0b7d24c63a8e1f0b9d2c47e15">${form}<input type="submit" value="Save"></form></main></body></html>`;
const signIn = [
  { url: `${O}/`, at: 100, html: page('<input name="user"><input name="pass" type="password">') },
  {
    method: 'POST',
    url: `${O}/login`,
    at: 200,
    form: { user: 'seed', pass: 'zn-pass-1' },
    html: '<html><body><main><h1>Welcome</h1></main></body></html>',
  },
];

describe("an admin's forms after a typed sign-in", () => {
  it("a form naming the account beside the typed values is the flow's target, the account's name a constant", () => {
    const r = synthesize({
      recording: har(
        ...signIn,
        {
          url: `${O}/addnetwork?user=seed`,
          at: 300,
          html: page('<input type="hidden" name="user" value="seed"><input name="name"><input name="nick">'),
        },
        {
          method: 'POST',
          url: `${O}/addnetwork`,
          at: 400,
          form: { _CSRF_Check: 'c5f1a9e0b7d24c63a8e1f0b9d2c47e15', user: 'seed', name: 'pantry', nick: 'pantry_seed' },
          html: '<html><body><main><table><tr><th>Network</th></tr><tr><td>pantry</td></tr></table></main></body></html>',
        },
      ),
      hints: { arguments: { network: 'pantry', nick: 'pantry_seed' } },
    });
    expect(r.report.targets[0]!.url).toBe(`${O}/addnetwork`);
    const target = (r.definition as any).steps.at(-1);
    expect(target.body.form).toMatchObject({ name: '{{args.network}}', nick: '{{args.nick}}' });
    expect(r.report.warnings.join(' ')).not.toMatch(/not part of the connector/);
  });

  it("a new user's password given as an argument is in no text of the result", () => {
    const r = synthesize({
      recording: har(
        ...signIn,
        {
          url: `${O}/adduser`,
          at: 300,
          html: page('<input name="newuser"><input name="password" type="password"><input name="password2" type="password">'),
        },
        {
          method: 'POST',
          url: `${O}/adduser`,
          at: 400,
          form: { _CSRF_Check: 'c5f1a9e0b7d24c63a8e1f0b9d2c47e15', newuser: 'hazel', password: 'Hz!pass 42', password2: 'Hz!pass 42' },
          html: '<html><body><main><p>User hazel added.</p></main></body></html>',
        },
      ),
      hints: { arguments: { username: 'hazel', password: 'Hz!pass 42' } },
    });
    const target = (r.definition as any).steps.at(-1);
    expect(target.body.form).toMatchObject({ password: '{{args.password}}', password2: '{{args.password}}' });
    const text = JSON.stringify(r);
    for (const form of ['Hz!pass 42', 'Hz%21pass%2042', 'Hz!pass+42', 'Hz%21pass+42']) expect(text).not.toContain(form);
    expect(r.input_schema.properties.password).toMatchObject({ format: 'password', writeOnly: true });
  });

  it("a box named for the password (Cacti's `password_change=on`) is no typed password: the form is the task, not a sign-in", () => {
    const r = synthesize({
      recording: har(
        ...signIn,
        {
          url: `${O}/user_admin`,
          at: 300,
          html: page(
            '<input name="username"><input name="full_name"><input name="email"><input name="password" type="password"><input name="password_confirm" type="password"><input type="checkbox" name="password_change">',
          ),
        },
        {
          method: 'POST',
          url: `${O}/user_admin`,
          at: 400,
          form: {
            _CSRF_Check: 'c5f1a9e0b7d24c63a8e1f0b9d2c47e15',
            username: 'cellar-keeper',
            full_name: 'Cellar Keeper',
            password: 'Keeper-pass-41',
            password_confirm: 'Keeper-pass-41',
            password_change: 'on',
          },
          html: page(
            '<p>User saved.</p><input name="username" value="cellar-keeper"><input name="full_name" value="Cellar Keeper"><input name="email"><input name="password" type="password">',
          ),
        },
      ),
      hints: { arguments: { username: 'cellar-keeper', full_name: 'Cellar Keeper', password: 'Keeper-pass-41' } },
    });
    expect(r.report.targets[0]!.url).toBe(`${O}/user_admin`);
    expect(r.report.targets[0]!.reasons.join(' ')).not.toMatch(/login traffic|a sign-in form/);
    const target = (r.definition as any).steps.at(-1);
    expect(target.method).toBe('POST');
    expect(target.body.form).toMatchObject({ username: '{{args.username}}', password: '{{args.password}}', password_change: 'on' });
    expect(r.required_secrets.map((s) => s.name)).toEqual(['account']);
  });

  it('a field named for a password is one; a word about the password is not', () => {
    const typed = ['password', 'pma_password', 'user[password]', 'password2', 'password_confirmation', 'new_password', 'password_new'];
    const alsoSecret = ['secret_key', 'api_secret', 'password_hash', 'login_pwd'];
    const about = ['password_change', 'password_policy', 'password_expires', 'passwordless', 'secretary'];
    expect([...typed, ...alsoSecret].filter((k) => !PASSWORD_FIELD.test(k))).toEqual([]);
    expect(about.filter((k) => PASSWORD_FIELD.test(k))).toEqual([]);
  });

  // Zabbix's user form sends `password1` and `password2`; another app may call it anything, but the
  // page typed it into a password input.
  for (const [field, why] of [
    ['password1', 'a field named password1'],
    ['pw_new', 'a field the recorded page shows as a password input'],
  ] as const)
    it(`a new user's password sent in ${why} is a write-only argument, its value nowhere`, () => {
      const r = synthesize({
        recording: har(
          ...signIn,
          {
            url: `${O}/user.edit`,
            at: 300,
            html: page(`<input name="username"><input name="${field}" type="password"><input name="confirm_pw" type="password">`),
          },
          {
            method: 'POST',
            url: `${O}/user.create`,
            at: 400,
            form: {
              _CSRF_Check: 'c5f1a9e0b7d24c63a8e1f0b9d2c47e15',
              username: 'grader',
              [field]: 'Gr4de pass!',
              confirm_pw: 'Gr4de pass!',
            },
            html: '<html><body><main><p>User added.</p></main></body></html>',
          },
        ),
        hints: { arguments: { username: 'grader', password: 'Gr4de pass!' } },
      });
      const target = (r.definition as any).steps.at(-1);
      expect(target.body.form).toMatchObject({ [field]: '{{args.password}}', confirm_pw: '{{args.password}}' });
      const text = JSON.stringify(r);
      for (const form of ['Gr4de pass!', 'Gr4de%20pass%21', 'Gr4de+pass%21', 'Gr4de+pass!']) expect(text).not.toContain(form);
      expect(r.input_schema.properties.password).toMatchObject({ format: 'password', writeOnly: true });
      expect(r.input_schema.properties.password.examples).toBeUndefined();
    });

  it("a one-character flag is not the '0' another field was traced to (a new record's id)", () => {
    // Zabbix's user form: `userid=0` is read from the form; `autologin=0` is what its script sends
    // for an unticked box (no input holds it). Tied to userid, an edit would send the user's id.
    const r = synthesize({
      recording: har(
        ...signIn,
        {
          url: `${O}/user.edit`,
          at: 300,
          html: page(
            '<input type="hidden" id="userid" name="userid" value="0"><input name="username"><input type="checkbox" name="autologin" value="1">',
          ),
        },
        {
          method: 'POST',
          url: `${O}/user.create`,
          at: 400,
          form: { _CSRF_Check: 'c5f1a9e0b7d24c63a8e1f0b9d2c47e15', userid: '0', username: 'grader', autologin: '0' },
          html: '<html><body><main><p>User added.</p></main></body></html>',
        },
      ),
      hints: { arguments: { username: 'grader' } },
    });
    const form = (r.definition as any).steps.at(-1).body.form;
    expect(form.userid).toMatch(/^\{\{vars\./);
    expect(form.autologin).toBe('0');
  });

  it('an id a lookup answered for a typed value (a typeahead) is read from that lookup, run with the argument', () => {
    const rec = har(
      ...signIn,
      { url: `${O}/host.edit`, at: 300, html: page('<input name="host"><input name="groups_ms" placeholder="type here to search">') },
      {
        url: `${O}/jsrpc.php?method=multiselect.get&object_name=hostGroup&search=Presses&limit=21`,
        at: 350,
        body: { result: [{ id: '20', name: 'Orchard/Presses' }] },
      },
      {
        method: 'POST',
        url: `${O}/host.create`,
        at: 400,
        form: { _CSRF_Check: 'c5f1a9e0b7d24c63a8e1f0b9d2c47e15', host: 'plum-press-03', 'groups[0]': '20' },
        html: '<html><body><main><p>Host added.</p></main></body></html>',
      },
    );
    const r = synthesize({ recording: rec, hints: { arguments: { host: 'plum-press-03', group: 'Presses' } } });
    const steps = (r.definition as any).steps;
    const lookup = steps.find((s: any) => s.url === '/jsrpc.php');
    expect(lookup.query.search).toBe('{{args.group}}');
    expect(Object.values(lookup.extract).map((x: any) => x.path)).toContain('$.result[0].id');
    expect(steps.at(-1).body.form['groups[0]']).toMatch(/^\{\{vars\.\w+\}\}$/);
    expect(r.input_schema.properties.group).toBeDefined();
    // (Without the typed value as an argument, the group is the recorded one.)
    const plain = synthesize({ recording: rec, hints: { arguments: { host: 'plum-press-03' } } });
    expect((plain.definition as any).steps.at(-1).body.form['groups[0]']).toBe('20');
  });

  it("a textarea's lines, sent as a browser sends them (CRLF), are the argument, and the run sends it so", () => {
    const r = synthesize({
      recording: har(
        ...signIn,
        { url: `${O}/alias.edit`, at: 300, html: page('<input name="alias"><textarea name="goto"></textarea>') },
        {
          method: 'POST',
          url: `${O}/alias.create`,
          at: 400,
          form: { _CSRF_Check: 'c5f1a9e0b7d24c63a8e1f0b9d2c47e15', alias: 'harvest', goto: 'cora@orchard.test\r\ndan@orchard.test' },
          html: '<html><body><main><p>Alias added.</p></main></body></html>',
        },
      ),
      hints: { arguments: { alias: 'harvest', targets: 'cora@orchard.test\ndan@orchard.test' } },
    });
    expect((r.definition as any).steps.at(-1).body.form.goto).toBe('{{args.targets | crlf}}');
    expect(render('{{args.targets | crlf}}', (p) => (p[1] === 'targets' ? 'ann@orchard.test\neve@cellar.test' : undefined))).toBe(
      'ann@orchard.test\r\neve@cellar.test',
    );
  });
});
