// One JSON-RPC endpoint for every call (Transmission, Deluge, Kodi, aria2, Ethereum nodes): reads and
// writes are told apart only by the method's name, and an anti-forgery session id may be handed out
// by a refused first call (Transmission's 409 with X-Transmission-Session-Id), which the plan makes
// again at run time, expecting the refusal.
import { describe, expect, it } from 'vitest';
import type { HttpDefinition } from '../../../src/formats/definition/types.js';
import { synthesize } from '../../../src/synth/index.js';
import { isRpcRead, normalize } from '../../../src/synth/normalize.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'http://daemon.test';
const rpcRead = (body: unknown, path = '/rpc') =>
  isRpcRead(normalize(har({ method: 'POST', url: `${O}${path}`, json: body, body: {} })).exchanges[0]);

describe('JSON-RPC', () => {
  it.each([
    [{ method: 'torrent-get', arguments: { ids: [3] } }, true],
    [{ method: 'session-stats' }, true],
    [{ jsonrpc: '2.0', method: 'VideoLibrary.GetMovies', id: 1 }, true],
    [{ method: 'core.get_torrents_status', params: [{}, []] }, true],
    [{ jsonrpc: '2.0', method: 'aria2.tellStatus', params: ['2089b05ecca3d829'] }, true],
    [{ jsonrpc: '2.0', method: 'eth_getBalance', params: [] }, true],
    [[{ method: 'torrent-get' }, { method: 'session-get' }], true],
    [{ method: 'torrent-add', arguments: { filename: 'magnet:?xt=x' } }, false],
    [{ method: 'session-set', arguments: { 'speed-limit-down': 5 } }, false],
    [{ method: 'core.add_torrent_magnet' }, false],
    [{ method: 'aria2.addUri' }, false],
    [{ method: 'free-space' }, false], // no read verb: a write until shown otherwise
    [[{ method: 'torrent-get' }, { method: 'torrent-remove' }], false],
    [{ method: 'get', note: 'no separator is fine' }, true],
    [{ query: 'query Q { a }' }, false], // GraphQL is told by its document, not here
  ])('%j is a read: %s', (body, read) => expect(rpcRead(body)).toBe(read));

  // Odoo: every call is `method: "call"`; the model's method is in the params and the URL.
  const odoo = (method: string) => ({
    jsonrpc: '2.0',
    method: 'call',
    params: { model: 'res.partner', method, args: [], kwargs: {} },
    id: 3,
  });
  it.each([
    [odoo('web_search_read'), '/web/dataset/call_kw/res.partner/web_search_read', true],
    [odoo('read_group'), '/web/dataset/call_kw/res.partner/read_group', true],
    [odoo('web_save'), '/web/dataset/call_kw/res.partner/web_save', false],
    [odoo('unlink'), '/web/dataset/call_kw/res.partner/unlink', false],
    [{ jsonrpc: '2.0', method: 'call', params: { model: 'res.partner', domain: [] } }, '/web/dataset/search_read', true],
    [{ jsonrpc: '2.0', method: 'call', params: { model: 'res.partner' } }, '/web/dataset/resequence', false],
  ])('behind a dispatcher: %j to %s is a read: %s', (body, path, read) => expect(rpcRead(body, path)).toBe(read));

  const session = 'hx9ZqT2mR8vK4pL1sN7wYb3c';
  const recording = () =>
    har(
      {
        method: 'POST',
        url: `${O}/transmission/rpc`,
        json: { method: 'session-get' },
        status: 409,
        resHeaders: { 'X-Transmission-Session-Id': session },
        html: '<h1>409: Conflict</h1>',
      },
      {
        method: 'POST',
        url: `${O}/transmission/rpc`,
        headers: { 'X-Transmission-Session-Id': session },
        json: { method: 'session-get' },
        body: { arguments: { version: '3.00' }, result: 'success' },
      },
      {
        method: 'POST',
        url: `${O}/transmission/rpc`,
        headers: { 'X-Transmission-Session-Id': session },
        json: { method: 'torrent-get', arguments: { fields: ['id', 'name'], ids: [3] } },
        body: { arguments: { torrents: [{ id: 3, name: 'Orchard Survey' }] }, result: 'success' },
      },
    );

  it('the refused call that hands out the session id is made again and expected to be refused; the read is no side effect', () => {
    const r = synthesize({ recording: recording(), hints: { arguments: { torrent: 3 } } });
    const d = r.definition as HttpDefinition;
    const [challenge, target] = [d.steps[0], d.steps.at(-1)!];
    expect(challenge).toMatchObject({ method: 'POST', body: { json: { method: 'session-get' } }, expect_status: [409] });
    expect(Object.values(challenge.extract!)[0]).toMatchObject({ from: 'header', name: 'x-transmission-session-id' });
    expect(target.headers!['x-transmission-session-id']).toMatch(/^\{\{vars\.\w+\}\}$/);
    expect(target.body).toEqual({ json: { method: 'torrent-get', arguments: { fields: ['id', 'name'], ids: ['{{args.torrent}}'] } } });
    expect(target.expect_status).toBeUndefined();
    expect(r.report.side_effects).toBe(false);
  });
});

describe('fresh values for a side-effect replay', () => {
  it('a link (a magnet URI, a feed URL) keeps its value: a suffix would name the same thing or nothing', async () => {
    const { freshValues } = await import('../../../src/modules/connectors/replay.js');
    const schema = { properties: { link: { type: 'string' }, feed: { type: 'string' }, name: { type: 'string' } } };
    const args = {
      link: 'magnet:?xt=urn:btih:3f2a1c9d8e7b6a5f&dn=Quince+Notes',
      feed: 'http://orchard.test/feed.xml',
      name: 'Quince Notes',
    };
    expect(freshValues(schema, args).map((f) => f.name)).toEqual(['name']);
  });

  it('an amount with its currency or unit keeps its value: a suffix makes no amount (hledger refused `30.00 EUR 3f9a`)', async () => {
    const { freshValues } = await import('../../../src/modules/connectors/replay.js');
    const names = ['amount', 'price', 'weight', 'share', 'name'];
    const schema = { properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])) };
    const args = { amount: '30.00 EUR', price: '$ 1,250.00', weight: '12.5 kg', share: '4,50 €', name: 'Lot 7 cider' };
    expect(freshValues(schema, args).map((f) => f.name)).toEqual(['name']);
    expect(freshValues(schema, args, true).map((f) => f.name)).toEqual([]);
  });

  it('a file name keeps its extension (a new file of the same type)', async () => {
    const { freshValues } = await import('../../../src/modules/connectors/replay.js');
    const [f] = freshValues({ properties: { file: { type: 'string' } } }, { file: 'notes/grafting.txt' });
    expect(f!.value).toMatch(/^notes\/grafting-[0-9a-f]{4}\.txt$/);
  });

  it('a value of one piece (a slug, a key) keeps its shape: no space, its own separator and case', async () => {
    const { freshValues } = await import('../../../src/modules/connectors/replay.js');
    const schema = {
      properties: { slug: { type: 'string' }, key: { type: 'string' }, title: { type: 'string' }, word: { type: 'string' } },
    };
    const args = { slug: 'apple-thinning', key: 'ORCHARD_KEY', title: 'Thin the apples', word: 'Plum' };
    const fresh = Object.fromEntries(freshValues(schema, args).map((f) => [f.name, f.value]));
    expect(fresh.slug).toMatch(/^apple-thinning-[0-9a-f]{4}$/);
    expect(fresh.key).toMatch(/^ORCHARD_KEY_[0-9A-F]{4}$/);
    expect(fresh.title).toMatch(/^Thin the apples [0-9a-f]{4}$/);
    expect(fresh).not.toHaveProperty('word'); // a single word waits for the second try
    const [w] = freshValues(schema, args, true);
    expect(w).toMatchObject({ name: 'word', value: expect.stringMatching(/^Plum[0-9a-f]{4}$/) });
  });
});

describe("a write's JSON answer", () => {
  it('requires only its top-level keys: below them, what comes back names what happened (added, or already there)', () => {
    const link = 'magnet:?xt=urn:btih:3f2a1c9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39&dn=Quince';
    const r = synthesize({
      recording: har({
        method: 'POST',
        url: `${O}/transmission/rpc`,
        json: { method: 'torrent-add', arguments: { filename: link, paused: true } },
        body: {
          arguments: { 'torrent-added': { id: 7, name: 'Quince', hashString: '3f2a1c9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39' } },
          result: 'success',
        },
      }),
      hints: { arguments: { link }, allow_side_effects: true },
    });
    expect(r.report.side_effects).toBe(true);
    expect(r.output_schema.required).toEqual(['arguments', 'result']);
    expect(r.output_schema.properties.arguments.required).toBeUndefined();
    expect(r.output_schema.properties.arguments.properties['torrent-added'].required).toBeUndefined();
    // (A value may come back null: a new file of an unknown type has no mimetype.)
    expect(r.output_schema.properties.result.type).toEqual(['string', 'null']);
  });
});
