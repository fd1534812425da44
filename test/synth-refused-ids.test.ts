// Validation by replay on a site that hides which records exist: a signed-in GET of an item that
// does not exist is answered 403, as Directus does, not 404. The replay with the argument changed
// (a made-up id) meets that 403 even after a fresh login; the replay with the recorded id just
// worked with the same login, so the connector is published with a warning, not refused. A 403 for
// the recorded id itself still fails synthesis (the account may not read it), and at run time a
// refused id stays `auth_required`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, type Harness, startHarness } from './helpers/harness.js';
import { har } from './helpers/har-fragment.js';
import { loginSecret, run } from './helpers/runs.js';
import { synthesizeFrom } from './helpers/synth.js';

const ITEMS: Record<string, { id: number; title: string }> = {
  7: { id: 7, title: 'Orchard Notes' },
  12: { id: 12, title: 'The Broken Fence' },
};
/** Ids that exist but this account may not read. */
const LOCKED = new Set(['9']);

describe.each(await backends())('replay of a site that answers 403 for ids it does not have (%s)', (backend) => {
  let h: Harness;
  let site: http.Server;
  let base = '';
  let secret = '';
  beforeAll(async () => {
    site = http.createServer((req, res) => {
      const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
      if (req.method === 'POST' && req.url === '/auth/login') {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          const { email, password } = JSON.parse(body);
          if (email !== 'ann@example.test' || password !== 'orchard-pass-1') return json(401, { errors: ['bad login'] });
          json(200, { data: { expires: 900000 } }, { 'set-cookie': 'session=s3ss10n-c00k1e-v4lue; Path=/; HttpOnly' });
        });
        return;
      }
      const m = /^\/items\/(\d+)$/.exec(req.url ?? '');
      if (m) {
        if (!/session=s3ss10n-c00k1e-v4lue/.test(req.headers.cookie ?? '')) return json(401, { errors: ['sign in'] });
        const item = ITEMS[m[1]!];
        // (Unknown and locked ids get the same answer: the site does not say which ids exist.)
        if (!item || LOCKED.has(m[1]!)) return json(403, { errors: [{ message: "You don't have permission to access this." }] });
        return json(200, { data: item });
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    h = await startHarness(backend);
    secret = await loginSecret(h, 'ann@example.test', 'orchard-pass-1');
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await new Promise((r) => site?.close(r));
  });

  /** The recorded flow: sign in (JSON), open item `id`. */
  const recording = (id: string, body: unknown, status = 200) =>
    JSON.stringify(
      har(
        {
          method: 'POST',
          url: `${base}/auth/login`,
          json: { email: 'ann@example.test', password: 'orchard-pass-1' },
          body: { data: { expires: 900000 } },
          setCookies: { session: 's3ss10n-c00k1e-v4lue' },
          resHeaders: { 'set-cookie': 'session=s3ss10n-c00k1e-v4lue; Path=/; HttpOnly' },
        },
        { url: `${base}/items/${id}`, cookies: { session: 's3ss10n-c00k1e-v4lue' }, body, status },
      ),
    );

  it('a made-up id refused with 403 is a warning: the connector is published and reads another item', async () => {
    const r = await synthesizeFrom(h, recording('7', { data: ITEMS[7] }), {
      hints: { arguments: { item: 7 }, secrets: { account: secret } },
    });
    expect(r.status, r.text).toBe(200);
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json.definition;
    expect(def.meta.validation).toMatchObject({ replayed: true, changed_argument: 'item' });
    expect(def.meta.validation.warnings.join('\n')).toMatch(/with 'item' changed.*HTTP 403/);
    const out = await run(h, { connector_id: r.json.id, arguments: { item: 12 }, secret_bindings: { account: secret } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect(out.result).toEqual({ data: ITEMS[12] });
    // At run time a refused id is still what the site said: not allowed, not "no such page".
    const locked = await run(h, { connector_id: r.json.id, arguments: { item: 9 }, secret_bindings: { account: secret } });
    expect(locked.status).toBe('connector_error');
    expect(locked.error.type).toBe('auth_required');
  });

  it('a 403 for the recorded id itself still fails synthesis at the replay', async () => {
    const r = await synthesizeFrom(h, recording('9', { data: { id: 9, title: 'Locked' } }), {
      hints: { arguments: { item: 9 }, secrets: { account: secret } },
    });
    expect(r.status).toBe(422);
    expect(r.json.detail[0].ctx.stage).toBe('replay');
    expect(r.json.detail[0].msg).toMatch(/HTTP 403/);
  });
});
