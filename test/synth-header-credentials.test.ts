// A site behind HTTP Basic authentication (a browser's sign-in dialog; monitoring consoles, staging
// sites, admin tools behind a proxy). Recorded in Chromium with the credentials given to the
// browser (Playwright httpCredentials), synthesized, replayed and run with new arguments. The
// credentials travel as base64("user:password") in every request's Authorization header, a form
// a plain substring search for the password never finds: the connector must carry
// `{{secrets.<slot>.basic}}`, never the token, with or without a stored secret named in hints;
// and no credential header may follow a redirect to another origin. A bearer token the page kept
// from before the recording (no response in it hands the token out) is a string slot the same way;
// a password typed into a password input that the page sends as a header of every call (Rspamd's
// `Password`) is the login's, never a literal of the definition.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChromium } from '../src/browser/chromium.js';
import { recordCaptured, recordLive } from './helpers/acceptance.js';
import { backends, type Harness, startHarness } from './helpers/harness.js';
import { loginSecret, logsOf, publish, run } from './helpers/runs.js';
import { synthesizeFrom } from './helpers/synth.js';

const tag = crypto.randomBytes(5).toString('hex');
const USER = `ops-${tag}`;
// A colon, a space, '+' and '/': each encoding of it differs from the raw value.
const PASS = `S3nt:nel pw+/${tag}`;
const TOKEN = Buffer.from(`${USER}:${PASS}`).toString('base64');
/** The password as a URL's userinfo writes it (WHATWG: '+' stays, ':' ' ' '/' are escaped). */
const USERINFO_PASS = Object.assign(new URL('http://x'), { password: PASS }).password;
const leaks = (text: string) =>
  [PASS, TOKEN, encodeURIComponent(PASS), USERINFO_PASS, JSON.stringify(PASS).slice(1, -1), Buffer.from(PASS).toString('base64')].filter(
    (f) => text.includes(f),
  );

const API_TOKEN = `tok-${tag}Zx81kQpL0vYt7`;
const APP = `<!doctype html><title>Nursery app</title><input id=q><ul id=out></ul><script>
document.getElementById('q').addEventListener('keydown', async (e) => {
  if (e.key !== 'Enter') return;
  const r = await fetch('/v2/plants?q=' + encodeURIComponent(e.target.value), { headers: { authorization: 'Bearer ' + localStorage.getItem('token') } });
  document.getElementById('out').innerHTML = (await r.json()).plants.map((p) => '<li>' + p.name + '</li>').join('');
});
</script>`;
// A sign-in form whose script hands the user and password to XHR's open (Radicale's web UI does):
// the recording shows them in the request's URL (http://user:pass@host/…).
const XHR_PAGE = `<!doctype html><title>Nursery (XHR)</title><input id=u><input id=p type=password><input id=q><ul id=out></ul><script>
document.getElementById('q').addEventListener('keydown', (e) => {
  if (e.key !== 'Enter') return;
  const x = new XMLHttpRequest();
  x.open('GET', '/api/plants?q=' + encodeURIComponent(e.target.value), true, document.getElementById('u').value, document.getElementById('p').value);
  x.onload = () => { document.getElementById('out').innerHTML = JSON.parse(x.responseText).plants.map((p) => '<li>' + p.name + '</li>').join(''); };
  x.send();
});
</script>`;
// A console whose sign-in is a password only, kept in session storage and sent as a `Password`
// header with every call (Rspamd's web UI does), and which posts a pasted text raw under jQuery's
// default form content type.
const PW_CONSOLE = `<!doctype html><title>Filter console</title><input id=pw type=password><button id=go>Connect</button>
<textarea id=msg></textarea><button id=scan>Scan</button><pre id=out></pre><script>
const call = (path, body) => fetch(path, { method: body === undefined ? 'GET' : 'POST', body,
  headers: { Password: sessionStorage.getItem('pw'), 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' } }).then((r) => r.json());
document.getElementById('go').onclick = async () => { sessionStorage.setItem('pw', document.getElementById('pw').value); await call('/pw/auth'); };
document.getElementById('scan').onclick = async () => { document.getElementById('out').textContent = JSON.stringify(await call('/pw/scan', document.getElementById('msg').value)); };
</script>`;
const PLANTS = ['Apple tree', 'Apple mint', 'Pear tree', 'Plum tree', 'Cherry plum', 'Quince'];
const PAGE = `<!doctype html><title>Nursery console</title><input id=q placeholder="Search plants"><ul id=out></ul><script>
document.getElementById('q').addEventListener('keydown', async (e) => {
  if (e.key !== 'Enter') return;
  const r = await fetch('/api/plants?q=' + encodeURIComponent(e.target.value)).then((r) => r.json());
  document.getElementById('out').innerHTML = r.plants.map((p) => '<li>' + p.name + '</li>').join('');
});
</script>`;

describe.each(await backends())('a site behind HTTP Basic authentication (%s)', (backend) => {
  let h: Harness;
  let site: http.Server;
  let other: http.Server;
  let base = '';
  let otherBase = '';
  let browser: Browser;
  /** Authorization headers the site saw, and every header the other origin saw. */
  const seen: (string | undefined)[] = [];
  const otherSaw: http.IncomingHttpHeaders[] = [];
  beforeAll(async () => {
    site = http.createServer((req, res) => {
      const u = new URL(req.url!, 'http://x');
      if (u.pathname === '/console') return void res.writeHead(200, { 'content-type': 'text/html' }).end(PW_CONSOLE);
      if (u.pathname.startsWith('/pw/')) {
        if (req.headers.password !== PASS)
          return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"Unauthorized"}');
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          const subject = /^Subject: (.*)$/m.exec(body)?.[1] ?? null;
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify(u.pathname === '/pw/auth' ? { auth: 'ok' } : { subject, lines: body.split('\n').length }));
        });
        return;
      }
      if (u.pathname === '/app' || u.pathname === '/xhr') {
        res.writeHead(200, { 'content-type': 'text/html' }).end(u.pathname === '/app' ? APP : XHR_PAGE);
        return;
      }
      seen.push(req.headers.authorization);
      const bearer = u.pathname.startsWith('/v2/');
      if (req.headers.authorization !== (bearer ? `Bearer ${API_TOKEN}` : `Basic ${TOKEN}`)) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="nursery"', 'content-type': 'text/plain' }).end('sign in');
        return;
      }
      if (u.pathname === '/api/plants' || u.pathname === '/v2/plants') {
        const q = (u.searchParams.get('q') ?? '').toLowerCase();
        const plants = PLANTS.filter((p) => p.toLowerCase().includes(q)).map((name, i) => ({ id: i + 1, name }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ plants }));
        return;
      }
      if (u.pathname === '/bounce') {
        res.writeHead(302, { location: u.searchParams.get('to')! }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    });
    other = http.createServer((req, res) => {
      otherSaw.push(req.headers);
      if (req.url?.startsWith('/challenge')) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="elsewhere"' }).end('sign in');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"landed":true}');
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    h = await startHarness(backend);
    browser = await openChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    site?.close();
    other?.close();
  });

  const record = (name: string) =>
    recordLive(
      browser,
      h.dataDir,
      name,
      base,
      async (page, b) => {
        await page.goto(b);
        await page.fill('#q', 'apple');
        await Promise.all([page.waitForResponse((r) => r.url().includes('/api/plants')), page.press('#q', 'Enter')]);
      },
      { httpCredentials: { username: USER, password: PASS } },
    );

  it('with the stored login named in hints: the header reads {{secrets.account.basic}}, and a run with a NEW query signs in with it', async () => {
    const har = await record('basic-hinted');
    expect(har).toContain(TOKEN); // the recording holds the credentials: the connector must not
    const account = await loginSecret(h, USER, PASS);
    const r = await synthesizeFrom(h, har, { hints: { arguments: { query: 'apple' }, secrets: { account } } });
    expect(r.status, r.text).toBe(200);
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json;
    expect(leaks(JSON.stringify(def) + r.text)).toEqual([]);
    const target = def.definition.steps.at(-1);
    expect(target.headers.authorization).toBe('Basic {{secrets.account.basic}}');
    expect(target.query).toEqual({ q: '{{args.query}}' });
    // Basic credentials go with every request: no sign-in chain to re-run.
    expect(def.definition.login).toBeUndefined();
    expect(r.json.required_secrets).toEqual([expect.objectContaining({ name: 'account', type: 'login' })]);
    expect(def.definition.meta.validation).toMatchObject({ replayed: true });

    seen.length = 0;
    const out = await run(h, { connector_id: r.json.id, arguments: { query: 'plum' }, secret_bindings: { account } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result.plants.map((p: any) => p.name)).toEqual(['Plum tree', 'Cherry plum']);
    expect(seen.every((a) => a === `Basic ${TOKEN}`)).toBe(true);
    expect(leaks(JSON.stringify(out) + (await logsOf(h, out.id)))).toEqual([]);

    // Another person's credentials: the site refuses them, and the run says so without echoing them.
    const wrong = await loginSecret(h, USER, `${PASS}-old`);
    const bad = await run(h, { connector_id: r.json.id, arguments: { query: 'plum' }, secret_bindings: { account: wrong } });
    expect(bad.status).toBe('connector_error');
    expect(bad.error.type).toBe('auth_required');
    expect(leaks(JSON.stringify(bad) + (await logsOf(h, bad.id)))).toEqual([]);
  });

  it('from the HAR alone (no hints.secrets): the credentials become a login slot, used for the replay and never published', async () => {
    const har = await record('basic-unhinted');
    const r = await synthesizeFrom(h, har, { hints: { arguments: { query: 'apple' } } });
    expect(r.status, r.text).toBe(200);
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json;
    expect(leaks(JSON.stringify(def) + r.text)).toEqual([]);
    expect(r.json.required_secrets).toEqual([expect.objectContaining({ name: 'account', type: 'login' })]);
    expect(def.definition.steps.at(-1).headers.authorization).toBe('Basic {{secrets.account.basic}}');
    expect(def.definition.meta.validation).toMatchObject({ replayed: true, changed_argument: 'query' });
    const out = await run(h, {
      connector_id: r.json.id,
      arguments: { query: 'tree' },
      secret_values: { account: { username: USER, password: PASS } },
    });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result.plants.map((p: any) => p.name)).toEqual(['Apple tree', 'Pear tree', 'Plum tree']);
  });

  it("credentials a page hands to XHR's open (in the recorded URL): a Basic header from the slot, never the URL's user and password", async () => {
    const har = await recordLive(browser, h.dataDir, 'xhr-userinfo', base, async (page, b) => {
      await page.goto(`${b}/xhr`);
      await page.fill('#u', USER);
      await page.fill('#p', PASS);
      await page.fill('#q', 'apple');
      await Promise.all([page.waitForResponse((r) => r.url().includes('/api/plants') && r.status() === 200), page.press('#q', 'Enter')]);
      await page.waitForSelector('#out li');
    });
    expect(har).toContain(`${USER}:${USERINFO_PASS}@`); // the recording holds them: the connector must not
    for (const hints of [
      { arguments: { query: 'apple' } },
      { arguments: { query: 'apple' }, secrets: { account: await loginSecret(h, USER, PASS) } },
    ]) {
      const r = await synthesizeFrom(h, har, { hints });
      expect(r.status, r.text).toBe(200);
      const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json;
      expect(leaks(JSON.stringify(def) + r.text)).toEqual([]);
      const target = def.definition.steps.at(-1);
      expect(target.url).not.toContain('@');
      expect(target.headers.authorization).toBe('Basic {{secrets.account.basic}}');
      seen.length = 0;
      const bind = hints.secrets ? { secret_bindings: hints.secrets } : { secret_values: { account: { username: USER, password: PASS } } };
      const out = await run(h, { connector_id: r.json.id, arguments: { query: 'plum' }, ...bind });
      expect(out.status, JSON.stringify(out.error)).toBe('success');
      expect(out.result.plants.map((p: any) => p.name)).toEqual(['Plum tree', 'Cherry plum']);
      expect(seen).toContain(`Basic ${TOKEN}`);
      expect(leaks(JSON.stringify(out) + (await logsOf(h, out.id)))).toEqual([]);
    }
  });

  it("a recording in which the browser's Basic answer is invisible (only a session shows): the connector answers the site's challenge with the hinted login (basic_auth)", async () => {
    // (Playwright's HAR of Syncthing shows no Authorization header at all: Chromium answered the
    // challenge in its network stack. Here the headers are taken out of a recording of this site.)
    const har = JSON.parse(await record('basic-invisible'));
    har.log.entries = har.log.entries.filter((e: any) => e.response.status !== 401);
    for (const e of har.log.entries) e.request.headers = e.request.headers.filter((x: any) => !/^authorization$/i.test(x.name));
    const text = JSON.stringify(har);
    expect(text).not.toContain(TOKEN);
    const account = await loginSecret(h, USER, PASS);
    const r = await synthesizeFrom(h, text, { hints: { arguments: { query: 'apple' }, secrets: { account } } });
    expect(r.status, r.text).toBe(200);
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json;
    expect(def.definition.basic_auth).toBe('account');
    expect(def.definition.steps.every((st: any) => !st.headers?.authorization)).toBe(true);
    expect(r.json.required_secrets).toEqual([expect.objectContaining({ name: 'account', type: 'login' })]);
    expect(def.definition.meta.validation).toMatchObject({ replayed: true });
    expect(leaks(JSON.stringify(def) + r.text)).toEqual([]);

    seen.length = 0;
    const out = await run(h, { connector_id: r.json.id, arguments: { query: 'pear' }, secret_bindings: { account } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result.plants.map((p: any) => p.name)).toEqual(['Pear tree']);
    // Asked first without credentials, as a browser does; answered once the site challenged.
    expect(seen).toEqual([undefined, `Basic ${TOKEN}`]);
    const logs = await logsOf(h, out.id);
    expect(logs).toContain("answering with login 'account'");
    expect(leaks(JSON.stringify(out) + logs)).toEqual([]);

    const wrong = await loginSecret(h, USER, `${PASS}-old`);
    const bad = await run(h, { connector_id: r.json.id, arguments: { query: 'pear' }, secret_bindings: { account: wrong } });
    expect(bad.status).toBe('connector_error');
    expect(bad.error).toMatchObject({ type: 'auth_required', message: expect.stringContaining('refused the HTTP Basic credentials') });
    expect(leaks(JSON.stringify(bad) + (await logsOf(h, bad.id)))).toEqual([]);
  });

  it("basic_auth answers only the site's own origin: another origin's Basic challenge gets nothing", async () => {
    const c = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'http',
        base_url: base,
        basic_auth: 'acct',
        steps: [
          { id: 'own', url: '/api/plants', query: { q: 'quince' }, extract: { plants: { from: 'json', path: '$.plants' } } },
          { id: 'away', url: `${otherBase}/challenge` },
        ],
        result: { plants: '{{vars.plants}}' },
      },
      required_secrets: [{ name: 'acct', type: 'login' }],
    });
    otherSaw.length = 0;
    const out = await run(h, { connector_id: c.id, arguments: {}, secret_values: { acct: { username: USER, password: PASS } } });
    expect(out.status).toBe('connector_error');
    expect(out.error).toMatchObject({ type: 'auth_required', details: { step: 'away' } });
    expect(otherSaw).toHaveLength(1);
    expect(otherSaw[0].authorization).toBeUndefined();
    // (A basic_auth that names no login slot is refused at publish time.)
    const refused = await h.api('POST', '/v1beta/connectors', {
      display_name: 'x',
      purpose: 'x',
      input_schema: { type: 'object' },
      output_schema: {},
      definition: {
        format: 'connector-definition/v1',
        engine: 'http',
        base_url: base,
        basic_auth: 'nope',
        steps: [{ id: 's', url: '/' }],
        result: null,
      },
      required_secrets: [{ name: 'acct', type: 'login' }],
    });
    expect(refused.status).toBe(422);
    expect(refused.json.detail[0]).toMatchObject({ loc: ['body', 'definition', 'basic_auth'] });
  });

  it('a bearer token the page kept from before the recording: a string slot, never a constant of the definition', async () => {
    const har = await recordLive(browser, h.dataDir, 'bearer', base, async (page, b) => {
      await page.addInitScript((t) => localStorage.setItem('token', t), API_TOKEN);
      await page.goto(`${b}/app`);
      await page.fill('#q', 'apple');
      await Promise.all([page.waitForResponse((r) => r.url().includes('/v2/plants')), page.press('#q', 'Enter')]);
    });
    expect(har).toContain(API_TOKEN);
    const r = await synthesizeFrom(h, har, { hints: { arguments: { query: 'apple' } } });
    expect(r.status, r.text).toBe(200);
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json;
    expect(JSON.stringify(def) + r.text).not.toContain(API_TOKEN);
    expect(r.json.required_secrets).toEqual([expect.objectContaining({ name: 'access_token', type: 'string' })]);
    expect(def.definition.steps.at(-1).headers.authorization).toBe('Bearer {{secrets.access_token.value}}');
    expect(def.definition.meta.validation).toMatchObject({ replayed: true, changed_argument: 'query' });
    const token = (await h.api('POST', '/v1beta/secrets', { name: 'nursery token', secret_type: 'string', value: API_TOKEN })).json.id;
    const out = await run(h, { connector_id: r.json.id, arguments: { query: 'pear' }, secret_bindings: { access_token: token } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result.plants.map((p: any) => p.name)).toEqual(['Pear tree']);
    expect(JSON.stringify(out) + (await logsOf(h, out.id))).not.toContain(API_TOKEN);
  });

  it('a password typed into a password input and sent as a header of every call: the login, never a literal; a raw text body keeps its argument', async () => {
    const email = 'From: ann@orchard.test\nSubject: Pear scab\n\nSpots on the leaves.\n';
    const har = await recordCaptured(browser, h.dataDir, 'password-header', base, async (page, b) => {
      await page.goto(`${b}/console`);
      await page.fill('#pw', PASS);
      await Promise.all([page.waitForResponse((r) => r.url().endsWith('/pw/auth') && r.ok()), page.click('#go')]);
      await page.fill('#msg', email);
      await Promise.all([page.waitForResponse((r) => r.url().endsWith('/pw/scan') && r.ok()), page.click('#scan')]);
    });
    expect(har).toContain(PASS);
    const r = await synthesizeFrom(h, har, {});
    expect(r.status, r.text).toBe(200);
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json;
    expect(leaks(JSON.stringify(def) + r.text)).toEqual([]);
    expect(r.json.required_secrets).toEqual([expect.objectContaining({ name: 'account', type: 'login' })]);
    const scan = def.definition.steps.find((s: any) => String(s.url).endsWith('/pw/scan'));
    expect(scan.headers.password).toBe('{{secrets.account.password}}');
    expect(scan.body.content_type).toMatch(/x-www-form-urlencoded/);
    const [arg] = Object.keys(r.json.input_schema.properties);
    const out = await run(h, {
      connector_id: r.json.id,
      arguments: { [arg!]: email.replace('Pear scab', 'Quince rust & "blight"') },
      secret_bindings: { account: await loginSecret(h, 'filter', PASS) },
    });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result).toMatchObject({ subject: 'Quince rust & "blight"', lines: 5 });
    expect(leaks(JSON.stringify(out) + (await logsOf(h, out.id)))).toEqual([]);
  });

  it('credential headers never follow a redirect to another origin (a same-origin redirect keeps them)', async () => {
    const c = await publish(h, {
      definition: {
        format: 'connector-definition/v1',
        engine: 'http',
        base_url: base,
        steps: [
          {
            id: 'same',
            url: '/bounce',
            query: { to: '/api/plants?q=quince' },
            headers: { authorization: 'Basic {{secrets.acct.basic}}' },
            extract: { plants: { from: 'json', path: '$.plants' } },
          },
          {
            id: 'away',
            url: '/bounce',
            query: { to: `${otherBase}/collect` },
            headers: { authorization: 'Basic {{secrets.acct.basic}}', 'x-api-key': 'key {{secrets.key.value}}', 'x-trace': 'plain' },
            extract: { landed: { from: 'json', path: '$.landed' } },
          },
        ],
        result: { plants: '{{vars.plants}}', landed: '{{vars.landed}}' },
      },
      required_secrets: [
        { name: 'acct', type: 'login' },
        { name: 'key', type: 'string' },
      ],
    });
    otherSaw.length = 0;
    const out = await run(h, {
      connector_id: c.id,
      arguments: {},
      secret_values: { acct: { username: USER, password: PASS }, key: { value: `k-${tag}` } },
    });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result).toEqual({ plants: [{ id: 1, name: 'Quince' }], landed: true });
    expect(otherSaw).toHaveLength(1);
    expect(otherSaw[0].authorization).toBeUndefined();
    expect(otherSaw[0]['x-api-key']).toBeUndefined();
    expect(otherSaw[0]['x-trace']).toBe('plain'); // only credentials are dropped
  });
});
