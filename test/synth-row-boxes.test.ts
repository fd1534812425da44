// A list whose row actions are checkboxes NAMED by the record's id (`chk_7`), confirmed on a second
// form that carries the picked ids as one hidden field, on a small site shaped like Cacti's device
// list (a per-render token in every form). The connector deletes the device the run NAMES. Its
// validation replay, whose recorded device the recording itself deleted, publishes the plan
// unreplayed and says why.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { har } from './helpers/har-fragment.js';
import { run } from './helpers/runs.js';
import { synthesizeFrom } from './helpers/synth.js';

function deviceSite() {
  const devices = new Map<string, string>([
    ['3', 'Orchard Gateway'],
    ['7', 'Cold Store Monitor'],
    ['9', 'Greenhouse Sensor Hub'],
    ['12', 'Barn Access Point'],
  ]);
  const tokens = new Set<string>();
  const token = () => {
    const t = randomUUID();
    tokens.add(t);
    return t;
  };
  const page = (res: http.ServerResponse, body: string) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><html><head><title>Devices</title></head><body><main>${body}</main></body></html>`);
  };
  const list = () =>
    `<h1>Devices</h1><form method="post" action="/devices"><input type="hidden" name="__token" value="${token()}"><table id="devices"><thead><tr><th>Description</th><th>ID</th><th></th></tr></thead><tbody>${[
      ...devices,
    ]
      .map(
        ([id, d]) =>
          `<tr><td><a href="/devices?action=edit&amp;id=${id}">${d}</a></td><td>${id}</td><td><input type="checkbox" name="chk_${id}" title="${d}"></td></tr>`,
      )
      .join(
        '',
      )}</tbody></table><select name="drp_action"><option value="0">Choose an action</option><option value="1">Delete</option></select><input type="hidden" name="action" value="actions"><button>Go</button></form>`;
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/devices') return void res.writeHead(404).end();
    if (req.method === 'GET') return page(res, list());
    let b = '';
    for await (const c of req) b += c;
    const f = new URLSearchParams(b);
    if (!tokens.has(f.get('__token') ?? '')) return void res.writeHead(403).end('bad token');
    const picked = f.get('selected_items');
    if (picked === null) {
      const ids = [...f.keys()].flatMap((k) => /^chk_(\d+)$/.exec(k)?.[1] ?? []);
      const serialized = `a:${ids.length}:{${ids.map((id, i) => `i:${i};s:${id.length}:"${id}";`).join('')}}`;
      return page(
        res,
        `<p>Click 'Continue' to delete the following device(s).</p><ul>${ids.map((id) => `<li>${devices.get(id)}</li>`).join('')}</ul><form method="post" action="/devices"><input type="hidden" name="__token" value="${token()}"><input type="hidden" name="action" value="actions"><input type="hidden" name="selected_items" value='${serialized}'><input type="hidden" name="drp_action" value="1"><button>Continue</button></form>`,
      );
    }
    for (const m of picked.matchAll(/s:\d+:"(\d+)"/g)) devices.delete(m[1]!);
    res.writeHead(302, { location: '/devices' }).end();
  });
  return { server, devices };
}

describe.each(await backends())('a row box named by its id, and the confirmation (%s)', (backend) => {
  const site = deviceSite();
  let h: Harness;
  let base = '';
  beforeAll(async () => {
    await new Promise<void>((r) => site.server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(site.server.address() as AddressInfo).port}`;
    h = await startHarness(backend);
  });
  afterAll(async () => {
    await h?.close();
    await new Promise((r) => site.server.close(r));
  });

  /** The flow as a browser makes it (each form as the page printed it), recorded as a HAR. */
  async function recording(): Promise<string> {
    const list = await (await fetch(`${base}/devices`)).text();
    const tok = /name="__token" value="([^"]+)"/.exec(list)![1]!;
    const pick = { __token: tok, chk_7: 'on', drp_action: '1', action: 'actions' };
    const confirm = await (await fetch(`${base}/devices`, { method: 'POST', body: new URLSearchParams(pick) })).text();
    const form = Object.fromEntries(
      [...confirm.matchAll(/name="([^"]+)" value=(?:"([^"]*)"|'([^']*)')/g)].map((m) => [m[1]!, m[2] ?? m[3]!]),
    );
    expect(form.selected_items).toBe('a:1:{i:0;s:1:"7";}');
    const done = await fetch(`${base}/devices`, { method: 'POST', body: new URLSearchParams(form), redirect: 'manual' });
    expect(done.status).toBe(302);
    const after = await (await fetch(`${base}/devices`)).text();
    return JSON.stringify(
      har(
        { url: `${base}/devices`, html: list },
        { method: 'POST', url: `${base}/devices`, form: pick, html: confirm },
        { method: 'POST', url: `${base}/devices`, form, status: 302, location: '/devices', type: 'document' },
        { url: `${base}/devices`, html: after },
      ),
    );
  }

  it('deletes the device the run names, by the box of its row; the recorded one, gone, is not replayed', async () => {
    const r = await synthesizeFrom(h, await recording(), {
      hints: { arguments: { device: 'Cold Store Monitor' }, allow_side_effects: true },
    });
    expect(r.status, r.text).toBe(200);
    expect(site.devices.has('7')).toBe(false);
    const def = (await h.api('GET', `/v1beta/connectors/${r.json.id}/definition`)).json.definition;
    const bodies = JSON.stringify(def.steps.map((s: any) => s.body?.form ?? null));
    expect(bodies).toMatch(/"chk_\{\{vars\.\w+\}\}":"on"/);
    expect(bodies).not.toContain('chk_7');
    expect(def.meta.validation).toMatchObject({ replayed: false });
    expect(def.meta.validation.reason).toMatch(/device = "Cold Store Monitor".*no longer on the site/);

    const out = await run(h, { connector_id: r.json.id, arguments: { device: 'Greenhouse Sensor Hub' } });
    expect(out.status, JSON.stringify(out.error)).toBe('success');
    expect([...site.devices.values()]).toEqual(['Orchard Gateway', 'Barn Access Point']);

    // A device on no row: the run's input names nothing, and nothing is deleted.
    const none = await run(h, { connector_id: r.json.id, arguments: { device: 'Weather Mast' } });
    expect(none.status).toBe('connector_error');
    expect(none.error).toMatchObject({ type: 'invalid_input', details: { not_found: true } });
    expect([...site.devices.values()]).toEqual(['Orchard Gateway', 'Barn Access Point']);
  });
});
