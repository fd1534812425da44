// A form the site refuses, through the real server: sites answer a form they took with a redirect
// (post/redirect/get) and one they refuse with the form again and its errors, 200. A connector
// synthesized from a recording whose form was redirected fails a run the site refuses —
// `invalid_input` with the site's own words — instead of reporting its error page as a success;
// and the replay before publishing, refused with made-up values and with the recorded ones (the
// recorded name is taken now), publishes the connector unreplayed, saying why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { har } from './helpers/har-fragment.js';
import { backends, type Harness, startHarness } from './helpers/harness.js';
import { localSite } from './helpers/local-site.js';
import { run } from './helpers/runs.js';
import { synthesizeFrom } from './helpers/synth.js';

const page = (body: string) => `<!doctype html><html><head><title>Orchard stock</title></head><body><main>${body}</main></body></html>`;
const form = (errors: string[], name = '', qty = '') =>
  page(`<h1>New variety</h1>${errors.length ? `<div class="alert alert-danger" role="alert">Please correct the errors below.</div>` : ''}
  <form method="post" action="/varieties"><input type="hidden" name="csrf" value="tok-81f2">
  <label>Name <input name="name" value="${name}"></label>${errors.map((e) => `<ul class="errorlist"><li>${e}</li></ul>`).join('')}
  <label>Crates <input name="crates" value="${qty}"></label><button>Save</button></form>`);

describe.each(await backends())('a form the site refuses (%s)', (backend) => {
  let h: Harness;
  let base = '';
  const varieties: { name: string; crates: string }[] = [{ name: 'Bramley', crates: '40' }];
  const site = localSite((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const u = new URL(req.url!, 'http://x');
      const html = (status: number, text: string) => res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(text);
      if (req.method === 'GET' && u.pathname === '/varieties/new') return html(200, form([]));
      if (req.method === 'POST' && u.pathname === '/varieties') {
        const f = new URLSearchParams(body);
        const name = f.get('name') ?? '';
        const crates = f.get('crates') ?? '';
        // (Up to ten letters and spaces, and each name once: a made-up suffix — whatever its
        // characters — and a taken name are refused.)
        const errors = [
          ...(/^[A-Za-z ]{1,10}$/.test(name) ? [] : ['Use letters and spaces only, ten at most.']),
          ...(varieties.some((v) => v.name === name) ? ['A variety with this name already exists.'] : []),
        ];
        if (errors.length) return html(200, form(errors, name, crates));
        varieties.push({ name, crates });
        return res.writeHead(303, { location: `/varieties/${varieties.length}` }).end();
      }
      const m = /^\/varieties\/(\d+)$/.exec(u.pathname);
      const v = m ? varieties[Number(m[1]) - 1] : undefined;
      if (v) return html(200, page(`<div class="notice">Saved.</div><h1>${v.name}</h1><p>Crates: ${v.crates}</p>`));
      html(404, page('<h1>Not found</h1>'));
    });
  });
  beforeAll(async () => {
    base = await site.start();
    h = await startHarness(backend);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await site.close();
  });

  it('fails a run the site refuses with its words, runs one it takes, and publishes when the replay cannot be made acceptable', async () => {
    // The recording: the form, posted, redirected to the new variety's page.
    const recording = har(
      { url: `${base}/varieties/new`, html: form([]), type: 'document' },
      {
        method: 'POST',
        url: `${base}/varieties`,
        form: { csrf: 'tok-81f2', name: 'Bramley', crates: '40' },
        location: '/varieties/1',
        type: 'document',
      },
      { url: `${base}/varieties/1`, html: page('<div class="notice">Saved.</div><h1>Bramley</h1><p>Crates: 40</p>'), type: 'document' },
    );
    const c = await synthesizeFrom(h, JSON.stringify(recording), {
      hints: { arguments: { name: 'Bramley', crates: 40 }, allow_side_effects: true },
    });
    expect(c.status, c.text).toBe(200);
    const def = (await h.api('GET', `/v1beta/connectors/${c.json.id}/definition`)).json.definition;
    const post = def.steps.find((s: { method?: string }) => s.method === 'POST');
    expect(post.expect_redirect).toBe(true);
    // (The replay: 'Bramley' is taken, 'Bramley3f9a' breaks the length rule: not replayed, and why.)
    expect(def.meta.validation).toMatchObject({ replayed: false, reason: expect.stringContaining('did not take the replayed request') });
    expect(def.meta.validation.reason).toContain('Use letters and spaces only, ten at most.');
    expect(varieties.map((v) => v.name)).toEqual(['Bramley']);

    const taken = await run(h, { connector_id: c.json.id, arguments: { name: 'Cox', crates: 12 } });
    expect(taken.status, JSON.stringify(taken)).toBe('success');
    expect(varieties.at(-1)).toEqual({ name: 'Cox', crates: '12' });

    const refused = await run(h, { connector_id: c.json.id, arguments: { name: 'Bramley', crates: 3 } });
    expect(refused.status, JSON.stringify(refused)).toBe('connector_error');
    expect(refused.error).toMatchObject({ type: 'invalid_input', retryable: false, details: { refused: true, status: 200 } });
    expect(refused.error.message).toContain('A variety with this name already exists.');
    expect(refused.error.message).toContain('Please correct the errors below.');
    expect(varieties).toHaveLength(2);
  });
});
