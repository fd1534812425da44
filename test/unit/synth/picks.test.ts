// Picks from the live view's pick mode steer synthesis (src/synth/picks.ts): their texts are
// ground-truth result values, a picked record makes the list rule yielding it and its siblings
// win, a picked value a rule producing it as a field; a value nowhere on the page is named.
import { describe, expect, it } from 'vitest';
import type { PickAction } from '../../../src/formats/recording/types.js';
import { extractHtml } from '../../../src/synth/html-extract.js';
import { synthesize } from '../../../src/synth/index.js';
import { pickedResultValues, pickPreference, pickValue } from '../../../src/synth/picks.js';
import type { SynthError } from '../../../src/synth/types.js';
import { har } from '../../helpers/har-fragment.js';

const pick = (p: Partial<PickAction>): PickAction =>
  ({
    id: 'a9',
    seq: 9,
    time: '2026-01-01T10:00:05Z',
    t_ms: 5000,
    page: 'page_1',
    url: 'https://shop.test/',
    target: null,
    type: 'pick',
    scope: 'value',
    text: null,
    tag: 'span',
    record: null,
    list: null,
    box: { x: 0, y: 0, width: 1, height: 1 },
    ...p,
  }) as PickAction;

// A big catalog table and a small deals list; "Brass Kettle" is in both.
const rows = Array.from(
  { length: 12 },
  (_, i) => `<tr><td>${i === 4 ? 'Brass Kettle' : `Widget ${i + 1}`}</td><td>${20 + i}</td><td>${i % 2 ? 'yes' : 'no'}</td></tr>`,
).join('');
const deals = [
  ['Brass Kettle', '-20%', '19.2'],
  ['Copper Pan', '-10%', '31.5'],
  ['Tin Cup', '-5%', '3.8'],
]
  .map(
    ([n, o, p], i) => `<li class="deal"><a href="/d/${i + 1}">${n}</a> <span class="off">${o}</span> <span class="price">${p}</span></li>`,
  )
  .join('');
const LIST = `<html><body><main><h1>Shop</h1><table id="catalog"><thead><tr><th>Name</th><th>Price</th><th>Stock</th></tr></thead><tbody>${rows}</tbody></table>
<section id="deals"><h2>Deals</h2><ul id="deals-list">${deals}</ul></section></main></body></html>`;
const dealPick = pick({
  scope: 'record',
  tag: 'li',
  text: 'Brass Kettle -20% 19.2',
  record: { css: '#deals-list > li:nth-of-type(1)', selectors: [], index: 0, values: ['Brass Kettle', '-20%', '19.2'] },
  list: { css: '#deals-list', count: 3 },
});
const DETAIL = `<html><body><main><h1>Gamma Gizmo</h1><dl><dt>Price</dt><dd>11.99</dd><dt>Category</dt><dd>kitchen</dd></dl></main></body></html>`;

describe('picks', () => {
  it('turn into result values: a value as seen (numbers as they print), a record by its first value, never a secret placeholder', () => {
    expect(pickValue(' 12.50 ')).toBe('12.5');
    expect(pickValue('Order  #12')).toBe('Order #12');
    expect(pickValue('{{secret:0193:password}}')).toBeNull();
    expect(pickedResultValues([pick({ text: '11.99' }), dealPick, pick({ text: null }), pick({ text: '11.99' })])).toEqual([
      '11.99',
      'Brass Kettle',
    ]);
  });

  it('a picked record makes the list rule that yields it and its siblings win over a bigger table holding the same value', () => {
    const without = extractHtml(LIST, ['Brass Kettle'], []);
    expect(without?.why).toMatch(/^table #catalog/);
    const withPick = extractHtml(LIST, pickedResultValues([dealPick]), [], pickPreference([dealPick]));
    expect(withPick?.why).toMatch(/#deals-list/);
    expect(withPick?.sample).toEqual([
      expect.objectContaining({ title: 'Brass Kettle', price: 19.2 }),
      expect.objectContaining({ title: 'Copper Pan' }),
      expect.objectContaining({ title: 'Tin Cup' }),
    ]);
  });

  it('a value picked inside a record prefers the list carrying it as a field; a value outside any record a detail rule', () => {
    const inRecord = pickPreference([pick({ text: 'Copper Pan', record: dealPick.record, list: dealPick.list })])!;
    expect(inRecord('list', [{ title: 'Brass Kettle' }, { title: 'Copper Pan' }, { title: 'Tin Cup' }])).toBeGreaterThan(0);
    expect(inRecord('detail', { title: 'Copper Pan' })).toBe(0);
    const single = pick({ text: '11.99', tag: 'dd' });
    const pref = pickPreference([single])!;
    expect(pref('detail', { title: 'Gamma Gizmo', price: 11.99 })).toBeGreaterThan(0);
    expect(pref('list', [{ price: 11.99 }, { price: 5 }])).toBe(0);
    const r = extractHtml(DETAIL, pickedResultValues([single]), [], pref);
    expect(r?.kind).toBe('detail');
    expect(r?.sample).toMatchObject({ price: 11.99 });
  });

  it('synthesis from an action log with picks: picks choose the rule, are reported in meta.decisions, and a picked value not on the page is named', () => {
    const h = har({ url: 'https://shop.test/', html: '<p>home</p>' }, { url: 'https://shop.test/deals', html: LIST, at: 1000 });
    (h.log as any)._capture = {
      format_version: 1,
      session_id: 's1',
      actions: [{ ...dealPick, url: 'https://shop.test/deals' }],
      secrets: [],
    };
    const r = synthesize({ recording: h });
    expect(r.definition.meta!.decisions).toMatchObject({ picks: { count: 1, records: 1, result_values: ['Brass Kettle'] } });
    expect((r.definition.meta!.decisions as any).result.rule).toMatch(/#deals-list/);
    // Without the pick the bigger table is the result.
    const bare = har({ url: 'https://shop.test/', html: '<p>home</p>' }, { url: 'https://shop.test/deals', html: LIST, at: 1000 });
    expect((synthesize({ recording: bare }).definition.meta!.decisions as any).result.rule).toMatch(/^table #catalog/);
    (h.log as any)._capture.actions.push(pick({ text: 'Not On The Page', url: 'https://shop.test/deals', id: 'a10', seq: 10 }));
    try {
      synthesize({ recording: h });
      expect.unreachable();
    } catch (e) {
      expect((e as SynthError).problems).toEqual([
        expect.objectContaining({ stage: 'output', message: expect.stringContaining('"Not On The Page"') }),
      ]);
    }
  });

  it('a page picked on after a pasted sign-in is the target even when its session cookie holds the username', () => {
    // A real app's session cookie can carry the username (`user|expiry|hmac`), which the recording
    // redacts to a placeholder: the request sends a cookie the server set, it is not login traffic.
    const ph = (f: string) => `{{secret:0193ab-cd:${f}}}`;
    const session = { wp_session: `${ph('username')}%7C1795805884%7Cabc` };
    const dash = `<html><body><main><h1>Dashboard</h1><ul id="recent">${['Brass Kettle', 'Copper Pan', 'Tin Cup', 'Iron Pot', 'Zinc Tray']
      .map((n, i) => `<li><span>Oct ${i + 1}</span> <a href="/p/${i}">${n}</a></li>`)
      .join('')}</ul></main></body></html>`;
    const h = har(
      { url: 'https://shop.test/login', html: '<form method="post"><input name="log"><input type="password" name="pwd"></form>' },
      {
        method: 'POST',
        url: 'https://shop.test/login',
        form: { log: ph('username'), pwd: ph('password') },
        location: 'https://shop.test/admin/',
        setCookies: session,
        at: 500,
      },
      { url: 'https://shop.test/admin/', html: dash, cookies: session, at: 600 },
      { url: 'https://shop.test/admin/deals', html: LIST, cookies: session, at: 1000 },
    );
    (h.log as any)._capture = {
      format_version: 1,
      session_id: 's1',
      actions: [{ ...dealPick, url: 'https://shop.test/admin/deals' }],
      secrets: ['username', 'password'].map((field) => ({
        secret_id: '0193ab-cd',
        field,
        placeholder: ph(field),
        target: { name: field === 'username' ? 'log' : 'pwd' },
      })),
    };
    const r = synthesize({
      recording: h,
      secretValues: { account: { type: 'login', username: 'admin', password: 'pw-1', totp_secret: null } },
    });
    expect((r.definition.meta!.decisions as any).target.request).toBe('GET https://shop.test/admin/deals');
    expect((r.definition.meta!.decisions as any).result.rule).toMatch(/#deals-list/);
    expect(r.required_secrets).toEqual([expect.objectContaining({ type: 'login' })]);
  });
});
