// The shapes a BitTorrent client's web API showed (qBittorrent: test/acceptance/qbittorrent.test.ts):
// a details pane that fetches the record beside a bare array of piece states, a rename whose answer
// is empty, and a list whose records are keyed by info-hash, with ratios and progress that were
// whole numbers when recorded.
import { makeAjv } from '../../../src/lib/json-schema.js';
import { describe, expect, it } from 'vitest';
import { synthesize } from '../../../src/synth/index.js';
import { normalize } from '../../../src/synth/normalize.js';
import { inferMerged, inferSchema, labelSets, looseWriteAnswer, nullableFields } from '../../../src/synth/schema-infer.js';
import { scoreTargets } from '../../../src/synth/target.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'http://client.test';
const H1 = 'ea0bb71925480bc9eab2bb599223d3aeb71169e3';
const H2 = '6af3b385ba52c556df173efeba990fa8c0755561';
const xs = (h: ReturnType<typeof har>) => normalize(h).exchanges;
const facts = (argValues: string[]) => ({ argValues, resultValues: [], secretCarriers: new Set<string>(), lastActionTime: null });
const torrent = (name: string, progress: number, ratio: number) => ({ name, progress, ratio, size: 300_019, num_seeds: 0 });

describe('targets in a client API', () => {
  const properties = { url: `${O}/api/v2/torrents/properties?hash=${H1}&mx1`, body: { comment: 'Orchard Survey', total_size: 300_019 } };

  it.each([
    ['bare numbers', [0, 2, 2, 1, 0]],
    ['an empty array', []],
  ])("the record's properties beat the piece states fetched after them (%s)", (_, states) => {
    const x = xs(har(properties, { url: `${O}/api/v2/torrents/pieceStates?hash=${H1}&mx2`, body: states }));
    const c = scoreTargets(x, facts([H1]));
    expect(c[0]!.exchange.url).toContain('/properties?');
    expect(c.find((k) => k.exchange.url.includes('pieceStates'))!.reasons.join(' ')).toMatch(/nothing to read/);
  });

  it('a rename whose answer is empty beats the JSON GET carrying only one of its typed values', () => {
    const x = xs(
      har(properties, {
        method: 'POST',
        url: `${O}/api/v2/torrents/rename`,
        form: { hash: H1, name: 'Quince Notes (read)' },
        body: '',
        mime: 'text/plain; charset=UTF-8',
      }),
    );
    const c = scoreTargets(x, facts([H1, 'quince notes (read)']));
    expect(c[0]!.exchange.method).toBe('POST');
    expect(c[0]!.reasons.join(' ')).not.toMatch(/response type/);
  });

  it('a read with an empty plain answer still counts against it', () => {
    const x = xs(har({ url: `${O}/api/v2/app/version?mx3`, body: '', mime: 'text/plain' }));
    expect(scoreTargets(x, facts([]))[0]!.reasons.join(' ')).toMatch(/-2 response type/);
  });
});

describe('output schemas that hold for the answers to come', () => {
  const ajv = makeAjv(); // (the validator runs check their results with)

  it('records keyed by info-hash are a map: one schema for every value, and a new key fits', () => {
    const s = inferSchema({ torrents: { [H1]: torrent('Orchard', 1, 0), [H2]: torrent('Walnut', 1, 0) }, rid: 3 });
    const map = s.properties.torrents;
    expect(map.properties).toBeUndefined();
    expect(map.additionalProperties.required).toEqual(['name', 'progress', 'ratio', 'size', 'num_seeds']);
    const later = { torrents: { ['1'.repeat(40)]: torrent('Plum', 0.25, 1.5) }, rid: 9 };
    expect(ajv.validate(s, later), JSON.stringify(ajv.errors)).toBe(true);
    // (Still records: a value that is not one is refused.)
    expect(ajv.validate(s, { torrents: { [H1]: 'x' }, rid: 1 })).toBe(false);
  });

  it('keys that are field names stay properties, and a map merges with an empty sample', () => {
    expect(inferSchema({ orchard: { name: 'orchard' }, 'Row number': 3 }).properties).toEqual({
      orchard: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      'Row number': { type: 'integer' },
    });
    const s = inferMerged([{ m: {} }, { m: { 17: { a: 'x' }, 23: { a: 'y' } } }]);
    expect(s.properties.m.additionalProperties).toEqual({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
  });

  it("a registry's package: versions and dates as keys are a map, beside the named fields of the same object", () => {
    const pkg = (name: string, v: string) => ({
      name,
      versions: { [v]: { name, version: v } },
      time: { created: '2026-11-28T23:01:26.000Z', modified: '2026-11-28T23:01:26.000Z', [v]: '2026-11-28T23:01:26.000Z' },
      users: { 'ada@orchard.test': true },
    });
    const s = inferSchema(pkg('apple-grader', '0.3.1'));
    expect(s.properties.versions).toEqual({
      type: 'object',
      additionalProperties: expect.objectContaining({ required: ['name', 'version'] }),
    });
    expect(s.properties.time.required).toEqual(['created', 'modified']);
    expect(s.properties.time.additionalProperties).toEqual({ type: 'string', format: 'date-time' });
    const later = pkg('orchard-utils', '1.1.0-beta.2');
    expect(ajv.validate(s, later), JSON.stringify(ajv.errors)).toBe(true);
    for (const k of ['2026-11-28', '12', 'src/index.js']) expect(inferSchema({ [k]: 1 }).additionalProperties).toBeDefined();
    for (const k of ['v2', 'en-US', 'first_name', 'x1']) expect(inferSchema({ [k]: 1 }).additionalProperties).toBeUndefined();
  });

  it('a package at a version (`name@1.0.0`) is no e-mail address; an address still is one', () => {
    for (const id of ['apple-grader@0.3.1', 'orchard-utils@1.1.0-beta.2', '@orchard/pruning@2.0.0'])
      expect(inferSchema({ _id: id }).properties._id).toEqual({ type: 'string' });
    expect(inferSchema({ by: 'ada@orchard.test' }).properties.by).toEqual({ type: 'string', format: 'email' });
  });

  it('an integer in a field that measures is a number (a rate: whole now, a fraction next time); one that counts stays an integer', () => {
    const s = inferMerged([torrent('A', 0, 0), torrent('B', 1, -1)]);
    expect(s.properties.progress.type).toBe('number');
    expect(s.properties.ratio.type).toBe('number');
    expect(s.properties.num_seeds.type).toBe('integer'); // (a count, 0 in every sample)
    expect(s.properties.size.type).toBe('integer');
    expect(inferSchema({ id: 1, userId: 0, total: 0 }).properties).toEqual({
      id: { type: 'integer' },
      userId: { type: 'integer' },
      total: { type: 'integer' },
    });
    expect(inferMerged([{ n: 0 }, { n: 5 }]).properties.n.type).toBe('number');
    expect(inferSchema({ reductions_details: { rate: 20 } }).properties.reductions_details.properties.rate.type).toBe('number');
    expect(inferSchema({ messages_ready: 12, consumer_count: 2 }).properties).toEqual({
      messages_ready: { type: 'number' },
      consumer_count: { type: 'integer' },
    });
    expect(inferMerged([{ n: 0 }, { n: null }]).properties.n.type).toEqual(['number', 'null']);
    expect(inferSchema([0, 1, 1])).toEqual({ type: 'array', items: { type: 'number' } });
  });

  it("a read's answer: a field may be null in the next record; the record's id and a list's records may not", () => {
    const one = nullableFields(inferSchema({ id: 7, title: 'Pears', assignee: { name: 'Ada' }, tags: ['fruit'], due: '2026-11-28' }));
    expect(ajv.validate(one, { id: 8, title: null, assignee: null, tags: null, due: null }), JSON.stringify(ajv.errors)).toBe(true);
    expect(ajv.validate(one, { id: 8, title: 'Plums', assignee: { name: null }, tags: [], due: '2026-12-01' })).toBe(true);
    expect(ajv.validate(one, { id: null, title: 'x', assignee: null, tags: null, due: null })).toBe(false);
    expect(ajv.validate(one, { id: 8, title: 'x', assignee: null, tags: null })).toBe(false); // (keys still come back)
    const list = nullableFields({ type: 'object', properties: { items: { type: 'array', items: inferMerged([{ id: 1, n: 'a' }]) } } });
    expect(ajv.validate(list, { items: [{ id: 2, n: null }] })).toBe(true);
    expect(ajv.validate(list, { items: [null] })).toBe(false);
  });

  it('a field seen only as null may hold any value next time (a read and a write alike); the keys still come back', () => {
    const answer = { data: { id: 'wf1', name: 'Frost alerts', staticData: null, tags: [{ id: 't1', color: null }] } };
    const next = {
      data: { id: 'wf2', name: 'Harvest', staticData: { 'node:Schedule': { rules: [] } }, tags: [{ id: 't2', color: '#0a0' }] },
    };
    for (const s of [nullableFields(inferSchema(answer)), looseWriteAnswer(inferSchema(answer))]) {
      expect(ajv.validate(s, next), JSON.stringify(ajv.errors)).toBe(true);
      expect(ajv.validate(s, answer)).toBe(true);
    }
    expect(ajv.validate(nullableFields(inferSchema(answer)), { data: { id: 'wf3', name: 'x', tags: [] } })).toBe(false); // (staticData)
    // (Seen with a value once, its kind is known: text, or null.)
    const named = nullableFields(
      inferMerged([
        { id: 1, note: null },
        { id: 2, note: 'ripe' },
      ]),
    );
    expect(ajv.validate(named, { id: 3, note: 4 })).toBe(false);
  });
});

describe("a list's label sets", () => {
  it("an object of text values inside a record is a map: another query's labels fit; a record's other fields stay strict", () => {
    const answer = (metric: Record<string, string>) => ({ status: 'success', data: { result: [{ metric, value: [1767261601.5, '1'] }] } });
    const s = labelSets(nullableFields(inferSchema(answer({ __name__: 'prometheus_build_info', goversion: 'go1.19', branch: 'debian' }))));
    const ajv = makeAjv();
    expect(ajv.validate(s, answer({ __name__: 'up', job: 'orchard-metrics', instance: '127.0.0.1:9' })), JSON.stringify(ajv.errors)).toBe(
      true,
    );
    expect(ajv.validate(s, answer({ __name__: 'up', job: 3 as unknown as string }))).toBe(false);
    expect(ajv.validate(s, { status: 'success', data: { result: [{ metric: { a: 'x', b: 'y' } }] } })).toBe(false); // (value is required)
  });
});

describe('JSON served with another content type', () => {
  it.each(['text/html; charset=UTF-8', 'text/plain', ''])('JSON served as %j is JSON: its records are the result, typed', (mime) => {
    const items = [
      { id: 3, name: 'Apple Atlas', size: 300_019 },
      { id: 7, name: 'Apple Grader', size: 1_024 },
    ];
    const r = synthesize({
      recording: har({ url: `${O}/api.php?action=search&q=apple`, body: { items }, mime }),
      hints: { arguments: { q: 'apple' } },
    });
    const step = (r.definition as any).steps[0];
    expect(Object.values(step.extract)).toEqual([expect.objectContaining({ from: 'json' })]);
    expect(r.output_schema.properties.items.items.properties.size.type).toEqual(['integer', 'null']);
  });
  it('an HTML page that is not JSON stays a page', () => {
    expect(normalize(har({ url: `${O}/p`, html: '<p>[1]</p>' })).exchanges[0]!.mime).toMatch(/html/);
    expect(normalize(har({ url: `${O}/p`, body: '[not json', mime: 'text/plain' })).exchanges[0]!.mime).toBe('text/plain');
  });
});
