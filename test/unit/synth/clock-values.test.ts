// Clock readings a page sends (Prometheus' `time=` of a query, jQuery's `_=` cache-buster, a
// `since` in a JSON body): the run sends its own time in the same form, not the recorded one —
// a connector run a week later must not ask for last week's values.
import { describe, expect, it } from 'vitest';
import { render } from '../../../src/formats/definition/template.js';
import { synthesize } from '../../../src/synth/index.js';
import { nowInside, nowTemplate } from '../../../src/synth/values.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'http://metrics.test';
const T0 = Date.parse('2026-01-01T10:00:00Z'); // (har-fragment's recording time)
const at = T0 + 2000;

describe('a clock reading in a request', () => {
  it('milliseconds, seconds (with a fraction) and ISO date-times near the request are the run clock', () => {
    expect(nowTemplate(String(at), T0)).toBe('{{run.now_ms}}');
    expect(nowTemplate(String(Math.floor(at / 1000)), T0)).toBe('{{run.now_s}}');
    expect(nowTemplate(`${Math.floor(at / 1000)}.482`, T0)).toBe('{{run.now_s}}');
    expect(nowTemplate(new Date(at).toISOString(), T0)).toBe('{{run.now_iso}}');
    expect(nowTemplate('2026-01-01T11:00:01+01:00', T0)).toBe('{{run.now_iso}}');
  });

  it('a time up to a month away (a range that starts an hour ago) is that far from the run, to the minute', () => {
    expect(nowTemplate(String(Math.floor(at / 1000) - 3600), T0)).toBe('{{run.now_s | add:-3600}}');
    expect(nowTemplate(String(at - 3 * 3600_000 - 1234), T0)).toBe('{{run.now_ms | add:-10800000}}');
    expect(nowTemplate(String(Math.floor(at / 1000) + 7 * 86_400), T0)).toBe('{{run.now_s | add:604800}}');
  });

  it("a clock reading behind a word (a page's id of a pending request, `loading<ms>`) keeps the word", () => {
    expect(nowTemplate(`loading${at}`, T0)).toBe('loading{{run.now_ms}}');
    expect(nowTemplate(`req${at - 3600_000}`, T0)).toBe('req{{run.now_ms | add:-3600000}}');
    expect(nowTemplate('loading1234567890123', T0)).toBeNull();
    expect(nowTemplate(`v2${at}`, T0)).toBeNull();
    // A name with a number in it (a page title typed with a timestamp) names that page.
    expect(nowTemplate(`Pantry_${at}`, T0)).toBeNull();
    expect(nowTemplate(`pantry-${at}`, T0)).toBeNull();
  });

  it('a UTC ISO time up to a month away (a silence that ends in two hours) is that far from the run, in the same form', () => {
    expect(nowTemplate(new Date(at + 2 * 3600_000).toISOString(), T0)).toBe('{{run.now_ms | add:7200000 | iso}}');
    expect(nowTemplate('2025-12-31T09:00:00Z', T0)).toBe('{{run.now_ms | add:-90000000 | iso:"s"}}');
    const iso = (v: unknown, arg = '') => render(`{{x | iso${arg}}}`, (p) => (p[0] === 'x' ? v : undefined));
    expect(iso(T0 + 7200_000)).toBe('2026-01-01T12:00:00.000Z');
    expect(iso(String(T0 + 7200_000), ':"s"')).toBe('2026-01-01T12:00:00Z');
    expect(iso('soon')).toBe('soon');
    expect(render('{{run.now_ms | add:7200000 | iso}}', (p) => (p[1] === 'now_ms' ? T0 : undefined))).toBe('2026-01-01T12:00:00.000Z');
  });

  it("a bare date of the request's day (a form's \"today\" filled in by the page), or a day either side, is the run's", () => {
    expect(nowTemplate('2026-01-01', T0)).toBe('{{run.now_ms | iso:"date"}}');
    expect(nowTemplate('2025-12-31', T0)).toBe('{{run.now_ms | add:-86400000 | iso:"date"}}');
    expect(nowTemplate('2026-01-02', T0)).toBe('{{run.now_ms | add:86400000 | iso:"date"}}');
    expect(nowTemplate('2026-01-05', T0)).toBeNull();
    expect(render('{{run.now_ms | iso:"date"}}', (p) => (p[1] === 'now_ms' ? T0 + 13 * 3600_000 : undefined))).toBe('2026-01-01');
  });

  it("the request's time written inside a value (a list's `created_at:<='…'` anchor) is the run's, in the same form", () => {
    const sql = new Date(at).toISOString().slice(0, 19).replace('T', ' ');
    expect(nowInside(`created_at:<='${sql}'`, T0)).toBe(`created_at:<='{{run.now_ms | iso:"datetime"}}'`);
    expect(nowInside(`updated_at:>'${new Date(at).toISOString()}'+status:paid`, T0)).toBe("updated_at:>'{{run.now_iso}}'+status:paid");
    expect(nowInside(`since ${new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z')}`, T0)).toBe('since {{run.now_ms | iso:"s"}}');
    // (Not a time away from the request, nor one without a zone in the ISO form: its zone is unknown.)
    expect(nowInside("created_at:<='2025-06-01 10:00:00'", T0)).toBeNull();
    expect(nowInside(`from ${new Date(at).toISOString().slice(0, 19)}`, T0)).toBeNull();
    expect(render('{{run.now_ms | iso:"datetime"}}', (p) => (p[1] === 'now_ms' ? T0 : undefined))).toBe('2026-01-01 10:00:00');
  });

  it('a time further away, an ISO time with an offset away from the request, or no time at all, is not', () => {
    expect(nowTemplate(String(T0 - 40 * 86_400_000), T0)).toBeNull();
    expect(nowTemplate('2025-12-31T09:00:00+01:00', T0)).toBeNull();
    expect(nowTemplate(new Date(T0 + 40 * 86_400_000).toISOString(), T0)).toBeNull();
    expect(nowTemplate('1234567890123', T0)).toBeNull();
    expect(nowTemplate('17678', T0)).toBeNull();
  });

  it('add: a number (or numeric text) moved by the argument; anything else untouched', () => {
    const add = (v: unknown, arg: unknown) => render(`{{x | add:${JSON.stringify(arg)}}}`, (p) => (p[0] === 'x' ? v : undefined));
    expect(add(1000, -60)).toBe(940);
    expect(add('1000', 60)).toBe(1060);
    expect(add('soon', 60)).toBe('soon');
    expect(add('', 60)).toBe('');
    expect(add(5, 'x')).toBe(5);
  });

  it('synthesized: the query asked "now" sends the run time; the query itself is the argument', () => {
    const result = {
      status: 'success',
      data: { resultType: 'vector', result: [{ metric: { __name__: 'up', job: 'prometheus' }, value: [at / 1000, '1'] }] },
    };
    const r = synthesize({
      recording: har({ url: `${O}/api/v1/query?query=up&time=${(at / 1000).toFixed(3)}&_=${at}`, at: 2000, body: result }),
      hints: { arguments: { query: 'up' } },
    });
    const step = (r.definition as any).steps[0];
    expect(step.query).toEqual({ query: '{{args.query}}', time: '{{run.now_s}}', _: '{{run.now_ms}}' });
  });

  it("synthesized: a range query's start an hour before its end stays an hour before the run's time", () => {
    const end = Math.floor(at / 1000);
    const r = synthesize({
      recording: har({
        url: `${O}/api/v1/query_range?query=up&start=${end - 3600}.5&end=${end}.5&step=14`,
        at: 2000,
        body: { status: 'success', data: { resultType: 'matrix', result: [] } },
      }),
      hints: { arguments: { query: 'up' } },
    });
    expect((r.definition as any).steps[0].query).toMatchObject({ start: '{{run.now_s | add:-3600}}', end: '{{run.now_s}}' });
  });

  it("synthesized: a silence's start (now) and end (two hours on), made by the page's clock, move with the run", () => {
    const r = synthesize({
      recording: har({
        method: 'POST',
        url: `${O}/api/v2/silences`,
        at: 2000,
        json: {
          matchers: [{ name: 'alertname', value: 'DiskFull', isRegex: false }],
          startsAt: new Date(at - 45_000).toISOString(),
          endsAt: new Date(at - 45_000 + 2 * 3600_000).toISOString(),
          createdBy: 'seed',
          comment: 'replacing the disk',
        },
        body: { silenceID: '0b6a1f0e-7a51-4b7e-9d0c-5d3c1a2b4e6f' },
      }),
      hints: { arguments: { alert: 'DiskFull', comment: 'replacing the disk' } },
    });
    const body = (r.definition as any).steps[0].body.json;
    expect(body).toMatchObject({ startsAt: '{{run.now_iso}}', endsAt: '{{run.now_ms | add:7140000 | iso}}' });
  });

  it('a time an earlier answer handed out (a server cursor) is still traced from it', () => {
    const since = String(at - 1000);
    const r = synthesize({
      recording: har(
        { url: `${O}/api/status`, body: { last_event: Number(since), name: 'orchard metrics' } },
        { url: `${O}/api/events?since=${since}&q=apple`, at: 2000, body: { events: [{ id: 1, text: 'apple picked' }] } },
      ),
      hints: { arguments: { q: 'apple' } },
    });
    const step = (r.definition as any).steps.at(-1);
    expect(step.query.since).toMatch(/^\{\{vars\./);
  });
});
