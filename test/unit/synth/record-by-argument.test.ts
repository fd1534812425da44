// A value read from a record of a JSON list is read from the record the arguments name
// (src/synth/record-by-argument.ts, src/runtime/worker/engines/record-where.ts): the synthesized
// extractor, the runtime's choice of record, and the publish-time checks of `where`.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { validateDefinition } from '../../../src/formats/definition/validate.js';
import { extractValue, View } from '../../../src/runtime/worker/engines/extract.js';
import { RunFailure } from '../../../src/runtime/shared/failure.js';
import { synthesize } from '../../../src/synth/index.js';
import { normalize } from '../../../src/synth/normalize.js';
import { hrefPattern, linkedRecord } from '../../../src/synth/html-record-link.js';
import { pathSegments, recordByArgument } from '../../../src/synth/record-by-argument.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'http://books.test';
const LIST = {
  data: [
    { id: 31, title: 'The Broken Fence', shelf: { name: 'Fences' }, tags: [{ id: 1, name: 'wood' }] },
    { id: 7, title: 'Orchard Notes', shelf: { name: 'Trees' }, tags: [{ id: 2, name: 'apple' }] },
    { id: 52, title: 'Quince and Medlar', shelf: { name: 'Trees' }, tags: [] },
  ],
};

describe('synthesis', () => {
  const recording = () =>
    har(
      { url: `${O}/api/books`, body: LIST },
      { url: `${O}/api/books/7`, body: { data: { ...LIST.data[1], year: 2011 } } },
      { method: 'PATCH', url: `${O}/api/books/7`, json: { year: 2012 }, body: { data: { id: 7, year: 2012 } } },
    );

  it('reads the id from the record whose title is the argument, and keeps the argument', () => {
    const r = synthesize({ recording: recording(), hints: { arguments: { title: 'Orchard Notes', year: 2012 } } });
    const steps = (r.definition as any).steps as any[];
    const list = steps.find((s) => s.url === '/api/books' || s.url?.endsWith('/api/books'));
    const [x] = Object.values(list.extract) as any[];
    expect(x).toMatchObject({ from: 'json', path: '$.data[*]', where: { title: '{{args.title}}' }, select: '$.id', type: 'json' });
    expect(Object.keys(r.input_schema.properties!).sort()).toEqual(['title', 'year']);
    expect(validateDefinition(r.definition, { inputSchema: r.input_schema, requiredSecrets: r.required_secrets })).toEqual([]);
  });

  it('without an argument naming the record, the id is read by its place, as before (the control)', () => {
    const r = synthesize({ recording: recording(), hints: { arguments: { year: 2012 } } });
    expect(JSON.stringify(r.definition)).not.toContain('"where"');
    expect(JSON.stringify(r.definition)).toContain('$.data[1].id');
  });

  it("an id in a member's path is read from its collection's answer, not from another list that holds it", () => {
    // (Directus loads its field definitions again as the item opens: the seventh's `meta.id` is 7 too.)
    const fields = { data: Array.from({ length: 8 }, (_, i) => ({ field: `f${i}`, meta: { id: i + 1 } })) };
    const rec = har(
      { url: `${O}/api/books?limit=25&fields[]=id&fields[]=title`, body: LIST },
      { url: `${O}/api/fields`, body: fields },
      { method: 'PATCH', url: `${O}/api/books/7`, json: { year: 2012 }, body: { data: { id: 7, year: 2012 } } },
    );
    const r = synthesize({ recording: rec, hints: { arguments: { title: 'Orchard Notes', year: 2012 } } });
    const steps = (r.definition as any).steps as any[];
    expect(steps.map((st) => st.url.split('?')[0])).toEqual(['/api/books', '/api/books/{{vars.book_id | urlencode}}']);
    expect(steps[0].extract.book_id).toMatchObject({ path: '$.data[*]', where: { title: '{{args.title}}' } });
  });

  it("an element of a body's id list is traced, from the list whose records the argument names (not a refresh without names)", () => {
    // (Transmission: the web UI lists torrents with their names, refreshes them without, and asks
    // for the chosen one's details with `"ids": [3]`.)
    const torrents = [
      { id: 1, name: 'Pruning Guide', status: 0 },
      { id: 2, name: 'Cider Press Manual', status: 0 },
      { id: 3, name: 'Orchard Survey 2026', status: 0 },
    ];
    const rpc = `${O}/transmission/rpc`;
    const rec = har(
      {
        method: 'POST',
        url: rpc,
        json: { method: 'torrent-get', arguments: { fields: ['id', 'name'] } },
        body: { arguments: { torrents } },
      },
      {
        method: 'POST',
        url: rpc,
        json: { method: 'torrent-get', arguments: { fields: ['id', 'status'] } },
        body: { arguments: { torrents: torrents.map(({ id, status }) => ({ id, status })) } },
      },
      {
        method: 'POST',
        url: rpc,
        json: { method: 'torrent-get', arguments: { fields: ['id', 'files'], ids: [3] } },
        body: { arguments: { torrents: [{ id: 3, files: [{ name: 'data.bin' }] }] } },
      },
    );
    const r = synthesize({ recording: rec, hints: { arguments: { torrent: 'Orchard Survey 2026' } } });
    const steps = (r.definition as any).steps as any[];
    expect(steps.at(-1).body.json.arguments.ids).toEqual(['{{vars.id | int}}']);
    expect(steps.at(-2).extract.id).toMatchObject({ path: '$.arguments.torrents[*]', where: { name: '{{args.torrent}}' }, select: '$.id' });
    expect(steps.at(-2).body.json.arguments.fields).toEqual(['id', 'name']);
  });

  const x = { from: 'json' as const, path: '$.data[1].id' };
  it('a field another record shares names no record; a nested field or the innermost list may', () => {
    expect(recordByArgument(x, LIST, [{ name: 'shelf', example: 'Trees' }])).toBeNull();
    expect(recordByArgument(x, LIST, [{ name: 'shelf', example: 'Fences' }])).toBeNull();
    const two = { data: [LIST.data[0], { ...LIST.data[1], shelf: { name: 'Orchard' } }] };
    expect(recordByArgument(x, two, [{ name: 'shelf', example: 'Orchard' }])?.extractor).toEqual({
      from: 'json',
      path: '$.data[*]',
      where: { 'shelf.name': '{{args.shelf}}' },
      select: '$.id',
    });
    // The tag's id: the tag named "apple" in the book's tags, the innermost list first.
    const tag = recordByArgument({ from: 'json', path: '$.data[1].tags[0].id' }, LIST, [{ name: 'tag', example: 'apple' }]);
    expect(tag?.extractor).toMatchObject({ path: '$.data[1].tags[*]', where: { name: '{{args.tag}}' }, select: '$.id' });
    // The traced field itself is no name for its record.
    expect(recordByArgument(x, LIST, [{ name: 'book', example: '7' }])).toBeNull();
    expect(pathSegments('$.a[2]["b c"].d')).toEqual(['a', 2, 'b c', 'd']);
    expect(pathSegments('$..a')).toBeNull();
  });
});

describe("a list keyed by id (an object whose keys are the records' ids)", () => {
  // (qBittorrent's and Deluge's torrent lists: `{"torrents": {"<info-hash>": {"name": …}}}`; the
  // write sends the hash of the torrent the person chose by its name.)
  const h = (c: string) => createHash('sha1').update(c).digest('hex');
  const maindata = {
    rid: 1,
    full_update: true,
    torrents: {
      [h('a')]: { name: 'Pruning Guide', progress: 1 },
      [h('b')]: { name: 'Orchard Survey 2026', progress: 1 },
      [h('c')]: { name: 'Cider Press Manual', progress: 0.5 },
    },
  };
  const rec = (write: Parameters<typeof har>[0]) =>
    har(
      { url: `${O}/api/v2/sync/maindata?rid=0`, body: maindata },
      // (A later poll holds only what changed: the key, without the name.)
      { url: `${O}/api/v2/sync/maindata?rid=1`, body: { rid: 2, torrents: { [h('b')]: { progress: 1 } } } },
      write,
    );

  it("a form write's id is read from the record the argument names, by its key (select ~)", () => {
    const r = synthesize({
      recording: rec({ method: 'POST', url: `${O}/api/v2/torrents/rename`, form: { hash: h('b'), name: 'Survey (read)' } }),
      hints: { arguments: { torrent: 'Orchard Survey 2026', name: 'Survey (read)' } },
    });
    const steps = (r.definition as any).steps as any[];
    const [x] = Object.values(steps[0].extract) as any[];
    expect(x).toMatchObject({ from: 'json', path: '$.torrents[*]', where: { name: '{{args.torrent}}' }, select: '~' });
    expect(steps[0].query).toEqual({ rid: '0' });
    expect(JSON.stringify(steps.at(-1))).not.toContain(h('b'));
    expect(Object.keys(r.input_schema.properties!).sort()).toEqual(['name', 'torrent']);
    expect(validateDefinition(r.definition, { inputSchema: r.input_schema, requiredSecrets: r.required_secrets })).toEqual([]);
  });

  it("a JSON-RPC body's id too (its method name stays a literal, though a method list held it), and a field path through the list is rewritten", () => {
    const rpc = {
      method: 'POST' as const,
      url: `${O}/json`,
      json: { method: 'core.pause_torrent', params: [[h('b')]], id: 7 },
      body: { result: null, error: null, id: 7 },
    };
    // (Deluge's page first asks for the API's method names: a list whose order moves between starts.)
    const methods = ['auth.login', 'core.resume_torrent', 'core.pause_torrent', 'web.update_ui'];
    const listed = {
      method: 'POST' as const,
      url: `${O}/json`,
      json: { method: 'system.listMethods', params: [], id: 0 },
      body: { result: methods, error: null, id: 0 },
    };
    const r = synthesize({
      recording: har(
        listed,
        { method: 'POST', url: `${O}/json`, json: { method: 'web.update_ui', params: [['name'], {}], id: 3 }, body: { result: maindata } },
        rpc,
      ),
      hints: { arguments: { torrent: 'Orchard Survey 2026' } },
    });
    const steps = (r.definition as any).steps as any[];
    expect(steps[0].body.json.method).toBe('web.update_ui');
    expect(steps[0].extract).toEqual({ torrent_id: expect.objectContaining({ path: '$.result.torrents[*]', select: '~' }) });
    expect(steps.at(-1).body.json).toEqual({ method: 'core.pause_torrent', params: [['{{vars.torrent_id}}']], id: 7 });
    expect(steps).toHaveLength(2);
    // (qBittorrent 4.5's records carry their hash as `infohash_v1` as well: the key is still read;
    // a field path through a keyed list, when one is traced, is rewritten the same way.)
    const withField = structuredClone(maindata) as any;
    for (const [k, t] of Object.entries(withField.torrents)) (t as any).infohash_v1 = k;
    const r2 = synthesize({
      recording: har({ url: `${O}/api/v2/sync/maindata?rid=0`, body: withField }, rpc),
      hints: { arguments: { torrent: 'Orchard Survey 2026' } },
    });
    const [x2] = Object.values(((r2.definition as any).steps as any[])[0].extract) as any[];
    expect(x2).toMatchObject({ path: '$.torrents[*]', where: { name: '{{args.torrent}}' }, select: '~' });
    const field = { from: 'json' as const, path: `$.torrents["${h('b')}"].infohash_v1` };
    expect(recordByArgument(field, withField, [{ name: 'torrent', example: 'Orchard Survey 2026' }])?.extractor).toMatchObject({
      path: '$.torrents[*]',
      where: { name: '{{args.torrent}}' },
      select: '$.infohash_v1',
    });
  });

  it("a hash that happens to hold another argument's digits (a speed of 30 beside ...3630...) is still the record's id", () => {
    const hash = h('b');
    const digits = /\d\d/.exec(hash.slice(1))![0];
    const r = synthesize({
      recording: har(
        { method: 'POST', url: `${O}/json`, json: { method: 'web.update_ui', params: [['name'], {}], id: 3 }, body: { result: maindata } },
        {
          method: 'POST',
          url: `${O}/json`,
          json: { method: 'core.set_torrent_options', params: [[hash], { max_download_speed: Number(digits) }], id: 12 },
          body: { result: null, error: null, id: 12 },
        },
      ),
      hints: { arguments: { torrent: 'Orchard Survey 2026', speed: Number(digits) } },
    });
    const steps = (r.definition as any).steps as any[];
    expect(steps[0].extract).toEqual({ torrent_id: expect.objectContaining({ path: '$.result.torrents[*]', select: '~' }) });
    expect(steps.at(-1).body.json.params[0]).toEqual(['{{vars.torrent_id}}']);
    expect(Object.keys(r.input_schema.properties!).sort()).toEqual(['speed', 'torrent']);
  });

  it('controls: no argument names it, two records share the name, keys that are words, one record only', () => {
    const write = { method: 'POST' as const, url: `${O}/api/v2/torrents/rename`, form: { hash: h('b'), name: 'Survey (read)' } };
    const none = synthesize({ recording: rec(write), hints: { arguments: { name: 'Survey (read)' } } });
    expect(JSON.stringify(none.definition)).not.toContain('"select"');
    // (Still read from the answer, by its key: before, no earlier response "contained" it, and the
    // synthesis of a write sending a random-looking id failed.)
    const noneSteps = (none.definition as any).steps as any[];
    expect(noneSteps.at(-1).body.form.hash).toMatch(/^\{\{vars\./);
    expect(Object.values(noneSteps[0].extract)).toContainEqual(expect.objectContaining({ path: `$.torrents.${h('b')}~` }));
    const doc = (torrents: object) => ({ torrents });
    const key = { from: 'json' as const, path: `$.torrents["${h('b')}"]~` };
    const args = [{ name: 'torrent', example: 'Orchard Survey 2026' }];
    expect(recordByArgument(key, maindata, args)?.extractor).toEqual({
      from: 'json',
      path: '$.torrents[*]',
      where: { name: '{{args.torrent}}' },
      select: '~',
    });
    const twice = doc({ ...maindata.torrents, [h('d')]: { name: 'Orchard Survey 2026' } });
    expect(recordByArgument(key, twice, args)).toBeNull();
    expect(recordByArgument(key, doc({ [h('b')]: maindata.torrents[h('b')] }), args)).toBeNull();
    // Sections of a settings document are named, not keyed by id: no record list.
    const settings = { general: { title: 'Orchard Survey 2026', token: 'k7Qx9' }, mail: { title: 'Mail', token: 'z1' } };
    expect(recordByArgument({ from: 'json', path: '$.general.token' }, settings, args)).toBeNull();
  });

  it('the runtime reads the key of the record the argument names (exactly, then loosely), and refuses ~ outside json', () => {
    const view = new View({ url: O, status: 200, text: JSON.stringify(maindata) });
    const x = { from: 'json' as const, path: '$.torrents[*]', where: { name: '{{args.torrent}}' }, select: '~' };
    const lookup = (t: string) => (p: string[]) => (p[0] === 'args' ? t : undefined);
    expect(extractValue(x, view, 'x', lookup('Cider Press Manual'))).toBe(h('c'));
    expect(extractValue(x, view, 'x', lookup('  pruning GUIDE'))).toBe(h('a'));
    expect(() => extractValue(x, view, 'x', lookup('Walnut Harvest'))).toThrow(/no record with name = "Walnut Harvest" among the 3/);
    // (Over an array, ~ is the record's place.)
    const arr = new View({ url: O, status: 200, text: JSON.stringify(LIST) });
    expect(extractValue({ ...x, path: '$.data[*]', where: { title: '{{args.torrent}}' } }, arr, 'x', lookup('Orchard Notes'))).toBe(1);
    const def = (extractor: object) => ({
      format: 'connector-definition/v1',
      engine: 'http',
      steps: [{ id: 's', url: 'http://a.test/', extract: { a: extractor } }],
      result: null,
    });
    const opts = { inputSchema: { type: 'object', properties: { t: { type: 'string' } } }, requiredSecrets: [] };
    expect(validateDefinition(def({ from: 'json', path: '$[*]', where: { name: '{{args.t}}' }, select: '~' }), opts)).toEqual([]);
    const css = { from: 'css', selector: 'tr', fields: { name: { selector: 'td' } }, where: { name: '{{args.t}}' }, select: '~' };
    expect(validateDefinition(def(css), opts).map((p) => p.msg)).toEqual([
      "Value error, a JSONPath starts with '$' (or, for json, '~': the record's key)",
    ]);
  });
});

describe('a named record on a later page of its list', () => {
  const books = (n: number) => ({ data: Array.from({ length: n }, (_, i) => ({ id: i + 1, title: `Volume ${i + 1}` })) });
  const rec = (listUrl: string, n: number) =>
    har(
      { url: listUrl, body: books(n) },
      { method: 'PATCH', url: `${O}/api/books/2`, json: { year: 2012 }, body: { data: { id: 2, year: 2012 } } },
    );
  const stepsOf = (listUrl: string, n: number) =>
    (synthesize({ recording: rec(listUrl, n), hints: { arguments: { title: 'Volume 2', year: 2012 } } }).definition as any).steps as any[];

  it("a full page of a JSON list pages by its own parameter until the record is found (the target doesn't)", () => {
    const [list, write] = stepsOf(`${O}/api/books?limit=3&page=1`, 3);
    expect(list.extract.book_id).toMatchObject({ where: { title: '{{args.title}}' } });
    expect(list.paginate).toMatchObject({ mode: 'page', param: 'page', start: 1, until_found: true, max_pages: 20 });
    expect(write.paginate).toBeUndefined();
    // An offset with the page size beside it.
    expect(stepsOf(`${O}/api/books?offset=0&per_page=3`, 3)[0].paginate).toMatchObject({
      mode: 'page',
      param: 'offset',
      start: 0,
      step: 3,
    });
  });

  it('controls: a list shorter than its page size, a list without a page parameter, an offset without a size', () => {
    expect(stepsOf(`${O}/api/books?limit=25&page=1`, 3)[0].paginate).toBeUndefined();
    expect(stepsOf(`${O}/api/books`, 3)[0].paginate).toBeUndefined();
    expect(stepsOf(`${O}/api/books?offset=0`, 3)[0].paginate).toBeUndefined();
  });

  it('an HTML list follows its next-page link', () => {
    const row = (id: number) => `<tr><td><a href="/books/${id}/edit">Volume ${id}</a></td><td>${1990 + id}</td></tr>`;
    const page = `<html><body><table><tbody>${[1, 2, 3].map(row).join('')}</tbody></table><a rel="next" href="/books/?p=2">Next</a></body></html>`;
    const form = '<html><body><form method=post action="/books/2/edit"><input name=year value="1992"></form></body></html>';
    const r = synthesize({
      recording: har(
        { url: `${O}/books/`, html: page },
        { url: `${O}/books/2/edit`, html: form },
        { method: 'POST', url: `${O}/books/2/edit`, form: { year: '2012' }, status: 302, location: '/books/' },
      ),
      hints: { arguments: { title: 'Volume 2', year: 2012 } },
    });
    const list = ((r.definition as any).steps as any[]).find((st) => st.url === '/books/');
    expect(Object.values(list.extract)).toContainEqual(expect.objectContaining({ from: 'css', where: { name: '{{args.title}}' } }));
    expect(list.paginate).toMatchObject({
      mode: 'next_url',
      next: { from: 'css', selector: 'a[rel~=next][href]', attr: 'href' },
      until_found: true,
    });
  });

  /** The list step of a recorded edit of "Volume 2", picked from a list of rows by `row` with `pager` below them. */
  const listStep = (row: (id: number) => string, pager: string) => {
    const page = `<html><body><table><tbody>${[1, 2, 3].map(row).join('')}</tbody></table>${pager}</body></html>`;
    const form = '<html><body><form method=post action="/books/2/change/"><input name=year value="1992"></form></body></html>';
    const r = synthesize({
      recording: har(
        { url: `${O}/books/`, html: page },
        { url: `${O}/books/2/change/`, html: form },
        { method: 'POST', url: `${O}/books/2/change/`, form: { year: '2012' }, status: 302, location: '/books/' },
      ),
      hints: { arguments: { title: 'Volume 2', year: 2012 } },
    });
    return ((r.definition as any).steps as any[]).find((st) => st.url === '/books/');
  };

  it("an HTML list with numbered page links only (Django's admin) pages by their parameter", () => {
    const listFor = (pager: string) =>
      listStep((id) => `<tr><td><a href="/books/${id}/change/">Volume ${id}</a></td><td>${1990 + id}</td></tr>`, pager);
    const django = '<p class="paginator"><span class="this-page">1</span> <a href="?p=2">2</a> <a href="?p=3">3</a></p>';
    expect(listFor(django).paginate).toMatchObject({ mode: 'page', param: 'p', start: 1, until_found: true, max_pages: 20 });
    expect(listFor(django).paginate.step).toBeUndefined();
    // 0-based, and an offset counted in records; a pager element makes any parameter name a page's.
    expect(listFor('<div class=pages><a href="?pg=1">2</a></div>').paginate).toMatchObject({ param: 'pg', start: 0 });
    expect(listFor('<a href="?start=25">2</a><a href="?start=50">3</a>').paginate).toMatchObject({
      param: 'start',
      start: 0,
      step: 25,
    });
    expect(listFor('<nav aria-label="Pagination"><a href="?seite=2">2</a><a href="?seite=3">3</a></nav>').paginate).toMatchObject({
      param: 'seite',
      start: 1,
    });
  });

  it('controls: numbered links that are no pager (ids, out of step, another path) leave the list one page', () => {
    const listFor = (extra: string) =>
      listStep(
        (id) => `<tr><td><a href="/books/?id=${id}">${id}</a></td><td><a href="/books/${id}/change/">Volume ${id}</a></td></tr>`,
        extra,
      );
    expect(listFor('').paginate).toBeUndefined();
    expect(listFor('<p class="paginator"><a href="?p=2">2</a><a href="?p=7">3</a></p>').paginate).toBeUndefined();
    expect(listFor('<p class="paginator"><a href="/other/?p=2">2</a></p>').paginate).toBeUndefined();
  });
});

describe('the runtime', () => {
  const view = new View({ url: `${O}/api/books`, status: 200, text: JSON.stringify(LIST) });
  const args: Record<string, unknown> = {};
  const lookup = (p: string[]) => (p[0] === 'args' ? args[p[1]!] : undefined);
  const byTitle = { from: 'json' as const, path: '$.data[*]', where: { title: '{{args.title}}' }, select: '$.id' };

  it('reads the record the argument names; loosely only when none is equal as text', () => {
    args.title = 'Quince and Medlar';
    expect(extractValue(byTitle, view, 'list.extract.id', lookup)).toBe(52);
    args.title = '  the broken   FENCE ';
    expect(extractValue(byTitle, view, 'list.extract.id', lookup)).toBe(31);
    expect(extractValue({ ...byTitle, select: undefined }, view, 'x', lookup)).toMatchObject({ id: 31 });
  });

  it('no such record: invalid_input naming it (not_found), or the default when not required', () => {
    args.title = 'Medlars of Kent';
    let err: unknown;
    try {
      extractValue(byTitle, view, 'list.extract.id', lookup);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RunFailure);
    expect((err as RunFailure).type).toBe('invalid_input');
    expect((err as RunFailure).message).toBe('list.extract.id: no record with title = "Medlars of Kent" among the 3 the site listed');
    expect((err as RunFailure).opts.details).toMatchObject({ not_found: true });
    expect(extractValue({ ...byTitle, required: false, default: 0 }, view, 'x', lookup)).toBe(0);
    // An empty list is the site's answer of nothing: site_changed as any extractor that finds none.
    const empty = new View({ url: O, status: 200, text: '{"data":[]}' });
    expect(() => extractValue(byTitle, empty, 'x', lookup)).toThrow(/nothing matched JSONPath \$\.data\[\*\] then \$\.id/);
  });

  it('publish refuses a secret in where, an unknown argument, a select that is no JSONPath and a prototype key', () => {
    const def = {
      format: 'connector-definition/v1',
      engine: 'http',
      steps: [
        {
          id: 's',
          url: 'http://a.test/',
          extract: {
            a: { from: 'json', path: '$[*]', where: { name: '{{secrets.account.username}}' } },
            b: { from: 'json', path: '$[*]', where: { name: '{{args.nope}}' }, select: 'id' },
            c: { from: 'json', path: '$[*]', where: { 'x.__proto__': '{{args.title}}' } },
          },
        },
      ],
      result: null,
    };
    const msgs = validateDefinition(def, {
      inputSchema: { type: 'object', properties: { title: { type: 'string' } } },
      requiredSecrets: [{ name: 'account', type: 'login' }],
    }).map((p) => `${p.loc.slice(2).join('.')}: ${p.msg}`);
    expect(msgs.sort()).toEqual(
      [
        "steps.0.extract.b.select: Value error, a JSONPath starts with '$' (or, for json, '~': the record's key)",
        'steps.0.extract.c.where.x.__proto__: Value error, a field is a key or a dotted path of keys inside the record',
        'steps.0.extract.a.where.name: Value error, {{secrets.account.username}}: a record is chosen by {{args.…}} or {{vars.…}} only',
        "steps.0.extract.b.where.name: Value error, {{args.nope}}: 'nope' is not a property of input_schema",
      ].sort(),
    );
  });
});

describe('a row of an HTML list, by the link the person clicked', () => {
  const row = (id: number, title: string, year: number) =>
    `<tr><td><input type=checkbox name=_selected value="${id}"></td><th><a href="/admin/book/${id}/change/?_f=q%3D1">${title}</a></th><td>${year}</td></tr>`;
  const list = (rows: string) =>
    `<html><body><div id=content><table id=result_list><thead><tr><th>Title</th><th>Year</th></tr></thead><tbody>${rows}</tbody></table></div></body></html>`;
  const page = list(row(31, 'The Broken Fence', 1988) + row(7, 'Orchard Notes', 2011) + row(52, 'Quince and Medlar', 1975));
  const form = `<html><body><form method=post action="/admin/book/7/change/"><input name=title value="Orchard Notes"><input name=year value="2011"><input type=submit name=_save value=Save></form></body></html>`;
  const recording = (listHtml = page) =>
    har(
      { url: `${O}/admin/book/`, html: listHtml },
      { url: `${O}/admin/book/7/change/`, html: form },
      {
        method: 'POST',
        url: `${O}/admin/book/7/change/`,
        form: { title: 'Orchard Notes', year: '2012', _save: 'Save' },
        status: 302,
        location: '/admin/book/',
      },
    );

  it('the id in the form URL is read from the row the title names, at run time', () => {
    const r = synthesize({
      recording: recording(),
      hints: { arguments: { title: 'Orchard Notes', year: 2012 }, allow_side_effects: true },
    });
    const steps = (r.definition as any).steps as any[];
    const x = steps.find((s) => s.url === '/admin/book/').extract.book_id;
    expect(x).toMatchObject({
      from: 'css',
      selector: '#result_list tbody > tr',
      fields: { name: { selector: '> th > a' }, link: { selector: '> th > a', attr: 'href', pattern: '^/admin/book/([^/?#]+)' } },
      where: { name: '{{args.title}}' },
      select: '$.link',
    });
    expect(steps.at(-1).url).toBe('/admin/book/{{vars.book_id | urlencode}}/change/');
    expect(validateDefinition(r.definition, { inputSchema: r.input_schema, requiredSecrets: r.required_secrets })).toEqual([]);
    // The runtime reads the row the run names.
    const args: Record<string, unknown> = { title: 'quince and medlar' };
    const view = new View({ url: `${O}/admin/book/`, status: 200, text: page });
    expect(extractValue(x, view, 'x', (p) => (p[0] === 'args' ? args[p[1]!] : undefined))).toBe('52');
  });

  it('no link from the row, two rows of that title, or a value that holds the argument: not this rule (controls)', () => {
    const twice = list(row(31, 'Orchard Notes', 1988) + row(7, 'Orchard Notes', 2011));
    const unlinked = page.replace(/<a href="[^"]*">|<\/a>/g, '');
    for (const rec of [twice, unlinked]) {
      const r = synthesize({
        recording: recording(rec),
        hints: { arguments: { title: 'Orchard Notes', year: 2012 }, allow_side_effects: true },
      });
      expect(JSON.stringify(r.definition)).not.toContain('"where"');
    }
    expect(linkedRecord([], '7', [{ name: 'title', example: 'Orchard Notes' }])).toBeNull();
    // A value every row's link shares (the users' backend) names no row.
    const users = `<ul>${['alice', 'bob', 'cora'].map((u) => `<li><a href="/user/show?backend=db2&user=${u}">${u}</a></li>`).join('')}</ul>`;
    const y = har({ url: `${O}/user/list`, html: `<html><body>${users}</body></html>` });
    const [x] = normalize(y).exchanges;
    expect(linkedRecord([x!], 'db2', [{ name: 'user', example: 'bob' }])).toBeNull();
    expect(linkedRecord([x!], 'bob', [{ name: 'name', example: 'bob' }])).toBeNull(); // (the value holds the argument)
    // Only the recorded row links anywhere: nothing shows the value is a row's own.
    const lone = `<ul><li><a href="/user/7">alice</a></li><li>bob</li><li>cora</li></ul>`;
    const [z] = normalize(har({ url: `${O}/user/list`, html: `<html><body>${lone}</body></html>` })).exchanges;
    expect(linkedRecord([z!], '7', [{ name: 'user', example: 'alice' }])).toBeNull();
    expect(hrefPattern('/admin/book/7/change/', '7')).toBe('^/admin/book/([^/?#]+)');
    expect(hrefPattern('list.php?table=mailbox&id=7&token=abc', '7')).toBe('[?&;]id=([^&;#]+)');
    expect(hrefPattern('/admin/book/17/', '7')).toBeNull();
  });
});

describe('a write that sends only the id of the row an argument names', () => {
  // (Zabbix: "Disable" in the row of the host "Cold store north" posts `hostids[0]=10561`; the
  // page then polls its notifications. The name is never sent.)
  const hosts = [
    [10560, 'Apple press 2'],
    [10561, 'Cold store north'],
    [10562, 'Cold store south'],
  ] as const;
  const page = `<html><body><main><form><table><tbody>${hosts
    .map(
      ([id, n]) =>
        `<tr><td><input type=checkbox name="hostids[${id}]" value="${id}"></td><td><a href="zabbix.php?action=host.edit&hostid=${id}">${n}</a></td><td><a href="#">Enabled</a></td></tr>`,
    )
    .join('')}</tbody></table></form></main></body></html>`;
  const rec = har(
    { url: `${O}/zabbix.php?action=host.list`, html: page },
    { method: 'POST', url: `${O}/zabbix.php?action=host.massupdate&hostids[0]=10561&status=1`, form: { sid: 'abc' }, html: page },
    { method: 'POST', url: `${O}/zabbix.php?action=notifications.get&output=ajax`, form: { sid: 'abc' }, body: { notifications: [] } },
  );

  it('is the target, and its id is read from the row the run names', () => {
    const r = synthesize({ recording: rec, hints: { arguments: { host: 'Cold store north' }, allow_side_effects: true } });
    const steps = (r.definition as any).steps as any[];
    const target = steps.at(-1);
    expect(target.query).toMatchObject({ action: 'host.massupdate', 'hostids[0]': '{{vars.hostid}}' });
    expect(steps.at(-2).extract.hostid).toMatchObject({ where: { name: '{{args.host}}' }, select: '$.link' });
    expect(Object.keys(r.input_schema.properties!)).toEqual(['host']);
  });
});

describe('a search, then the hit the person opened (read)', () => {
  it("stays the list-then-detail hop: the run's first hit, not only a hit whose title is exactly the query", () => {
    const hits = `<html><body><ul class=hits>${[
      [7, 'Orchard Notes'],
      [8, 'Orchard Notes 2'],
    ]
      .map(([id, t]) => `<li class=hit><a href="/books/${id}">${t}</a></li>`)
      .join('')}</ul></body></html>`;
    const rec = har(
      { url: `${O}/search?q=Orchard+Notes`, html: hits },
      { url: `${O}/books/7`, html: '<html><body><h1>Orchard Notes</h1><p class=year>2011</p></body></html>' },
    );
    const r = synthesize({ recording: rec, hints: { arguments: { q: 'Orchard Notes' }, result: ['2011'] } });
    expect(JSON.stringify(r.definition)).not.toContain('"where"');
  });
});

describe('other carriers of a row id', () => {
  const books = [
    [31, 'The Broken Fence'],
    [7, 'Orchard Notes'],
    [52, 'Quince and Medlar'],
  ] as const;

  it("a bulk action: the box ticked in the row the title names (Django's _selected_action)", () => {
    const list = `<html><body><form id=changelist-form method=post><select name=action><option value="">---</option><option value=archive_selected>Archive</option></select><table id=result_list><tbody>${books
      .map(
        ([id, t]) =>
          `<tr><td><input type=checkbox name=_selected_action value="${id}"></td><th><a href="/admin/book/${id}/change/">${t}</a></th></tr>`,
      )
      .join('')}</tbody></table><button name=index value=0>Go</button></form></body></html>`;
    const rec = har(
      { url: `${O}/admin/book/`, html: list },
      {
        method: 'POST',
        url: `${O}/admin/book/`,
        form: { action: 'archive_selected', _selected_action: '7', index: '0' },
        status: 302,
        location: '/admin/book/',
      },
    );
    const r = synthesize({ recording: rec, hints: { arguments: { title: 'Orchard Notes' }, allow_side_effects: true } });
    const steps = (r.definition as any).steps as any[];
    expect(steps.at(-1).body.form._selected_action).toBe('{{vars.selected_action}}');
    const x = steps[0].extract.selected_action;
    expect(x).toMatchObject({
      fields: { ref: { selector: '> td > input', attr: 'value' } },
      where: { name: '{{args.title}}' },
      select: '$.ref',
    });
    const view = new View({ url: `${O}/admin/book/`, status: 200, text: list });
    expect(extractValue(x, view, 'x', (p) => (p[1] === 'title' ? 'Quince and Medlar' : undefined))).toBe('52');
  });

  it('a card whose data-id the write addresses', () => {
    const board = `<html><body><ul class=cards>${books.map(([id, t]) => `<li class=card data-id="${id}"><h3>${t}</h3><button>Archive</button></li>`).join('')}</ul></body></html>`;
    const rec = har({ url: `${O}/board`, html: board }, { method: 'POST', url: `${O}/api/cards/7/archive`, json: {}, body: { ok: true } });
    const r = synthesize({ recording: rec, hints: { arguments: { title: 'Orchard Notes' }, allow_side_effects: true } });
    const steps = (r.definition as any).steps as any[];
    expect(steps.at(-1).url).toBe('/api/cards/{{vars.card_id | urlencode}}/archive');
    expect(steps[0].extract.card_id).toMatchObject({
      selector: 'body ul > li.card',
      fields: { name: { selector: '> h3' }, ref: { attr: 'data-id' } },
      where: { name: '{{args.title}}' },
    });
  });
});

describe('striped rows', () => {
  it('are one list: the selector keeps the classes every row has', () => {
    const items = [
      [31, 'The Broken Fence', 'odd'],
      [7, 'Orchard Notes', 'even selected'],
      [52, 'Quince and Medlar', 'odd'],
    ] as const;
    const page = `<html><body><ul id=books>${items.map(([id, t, c]) => `<li class="book ${c}"><a href="/books/${id}/edit">${t}</a></li>`).join('')}</ul></body></html>`;
    const [x] = normalize(har({ url: `${O}/books`, html: page })).exchanges;
    const got = linkedRecord([x!], '7', [{ name: 'title', example: 'Orchard Notes' }]);
    expect(got?.f.extractor).toMatchObject({ selector: '#books > li.book' });
    const view = new View({ url: `${O}/books`, status: 200, text: page });
    expect(extractValue(got!.f.extractor, view, 'x', (p) => (p[1] === 'title' ? 'Quince and Medlar' : undefined))).toBe('52');
  });
});
