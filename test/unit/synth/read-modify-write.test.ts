// Read-modify-write (src/synth/read-modify-write.ts, `$patch` in template.ts): a settings page
// that reads a whole document and PUTs it back with one record's label changed — and, doing so,
// sorts the records, adds its own bookkeeping fields and carries the stored password hash it read
// (Syncthing's PUT /rest/config: test/acceptance/syncthing.test.ts).
import { describe, expect, it } from 'vitest';
import { PatchMiss, renderJson, TemplateError } from '../../../src/formats/definition/template.js';
import { validateDefinition } from '../../../src/formats/definition/validate.js';
import { synthesize } from '../../../src/synth/index.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'http://settings.test';
const HASH = '$2a$10$abcdefghijklmnopqrstuu5q0oVdW3C2f1nqJxYqRrEo7YcFfE3kq';
const config = () => ({
  version: 36,
  folders: [
    { id: 'photos', label: 'Family Photos', path: '/srv/photos', rescanIntervalS: 3600, paused: false },
    { id: 'invoices', label: 'Invoices 2026', path: '/srv/invoices', rescanIntervalS: 3600, paused: false },
    { id: 'recipes', label: 'Recipes', path: '/srv/recipes', rescanIntervalS: 60, paused: true },
  ],
  gui: { user: 'seed', password: HASH, theme: 'default' },
  options: { listenAddresses: ['tcp://127.0.0.1:0'], relaysEnabled: false },
});

/** The page's PUT: the document with the photos folder relabelled, the list sorted by label, its own `_editing` flag and `$$hashKey`s. */
function sentBack() {
  const c = config();
  const [photos, invoices, recipes] = c.folders;
  return {
    ...c,
    folders: [
      { ...photos, label: 'Family Photos 2026', _editing: 'existing' },
      { ...invoices, $$hashKey: 'object:455' },
      { ...recipes, $$hashKey: 'object:456' },
    ],
  };
}

const recording = () =>
  har(
    { url: `${O}/rest/config`, body: config() },
    { url: `${O}/rest/db/status?folder=photos`, body: { state: 'idle', localFiles: 1 } },
    { method: 'PUT', url: `${O}/rest/config`, json: sentBack(), body: '', mime: 'text/plain' },
  );
const hints = { arguments: { folder: 'photos', label: 'Family Photos 2026' } };

describe('a document read and sent back changed', () => {
  const r = synthesize({ recording: recording(), hints });
  const put = (r.definition as any).steps.find((s: any) => s.method === 'PUT');

  it('is written as the document read again with only the changed leaves set, the record found by the argument', () => {
    expect(put.body.json).toEqual({
      $patch: '{{vars.config}}',
      set: [
        { at: ['folders', { id: '{{args.folder}}' }, 'label'], value: '{{args.label}}' },
        { at: ['folders', { id: '{{args.folder}}' }, '_editing'], value: 'existing' },
      ],
    });
    const get = (r.definition as any).steps.find((s: any) => s.url === '/rest/config' && !s.method);
    expect(get.extract.config).toMatchObject({ from: 'json', path: '$' });
    expect(validateDefinition(r.definition, { inputSchema: r.input_schema, requiredSecrets: r.required_secrets })).toEqual([]);
  });

  it('the stored password hash it carries back is no login typed by hand, and stays out of the definition', () => {
    expect(r.required_secrets).toEqual([]);
    expect(JSON.stringify(r.definition)).not.toContain(HASH);
  });

  it('run on ANOTHER record: that record changes, every other value is what the site holds now', () => {
    const now = config();
    now.folders.push({ id: 'music', label: 'Music', path: '/srv/music', rescanIntervalS: 60, paused: false });
    now.options.relaysEnabled = true; // (changed on the site since the recording)
    const scope: Record<string, Record<string, unknown>> = {
      vars: { config: now },
      args: { folder: 'invoices', label: 'Invoices (paid)' },
    };
    const body = renderJson(put.body.json, (p) => scope[p[0]!]?.[p[1]!]) as any;
    expect(body.folders.map((f: { label: string }) => f.label)).toEqual(['Family Photos', 'Invoices (paid)', 'Recipes', 'Music']);
    expect(body.options.relaysEnabled).toBe(true);
    expect(body.gui.password).toBe(HASH);
    expect(now.folders[1]!.label).toBe('Invoices 2026'); // (the document read is not changed in place)
  });
});

describe('a record added to a list inside the document', () => {
  it('is appended whole at run time, with the typed values as arguments; nothing else is set', () => {
    const c = config();
    const music = { id: 'music', label: 'Songs and albums', path: '/srv/music', rescanIntervalS: 3600, paused: false };
    const rec = har(
      { url: `${O}/rest/config`, body: c },
      { method: 'PUT', url: `${O}/rest/config`, json: { ...c, folders: [...c.folders, music] }, body: '', mime: 'text/plain' },
    );
    const r = synthesize({ recording: rec, hints: { arguments: { folder: 'music', label: 'Songs and albums' } } });
    const put = (r.definition as any).steps.find((s: any) => s.method === 'PUT');
    expect(put.body.json.set).toEqual([
      {
        at: ['folders'],
        append: { id: '{{args.folder}}', label: '{{args.label}}', path: '/srv/{{args.folder}}', rescanIntervalS: 3600, paused: false },
      },
    ]);
    const scope: Record<string, Record<string, unknown>> = { vars: { config: config() }, args: { folder: 'films', label: 'Films' } };
    const body = renderJson(put.body.json, (p) => scope[p[0]!]?.[p[1]!]) as any;
    expect(body.folders.map((f: { id: string }) => f.id)).toEqual(['photos', 'invoices', 'recipes', 'films']);
    expect(body.folders[3]).toMatchObject({ label: 'Films', path: '/srv/films' });
  });
});

describe('$patch at run time', () => {
  const doc = {
    items: [
      { id: 7, name: 'a' },
      { id: 8, name: 'b' },
      { id: 8, name: 'c' },
    ],
    meta: { n: 1 },
  };
  const patch = (at: unknown[], value: unknown = 'x', d: unknown = doc) =>
    renderJson({ $patch: '{{vars.doc}}', set: [{ at, value }] }, (p) => (p[0] === 'vars' ? d : undefined));

  it('a record is selected by its fields as text (an id given as a string finds a number)', () => {
    expect((patch(['items', { id: '7' }, 'name']) as any).items[0].name).toBe('x');
    expect((patch(['items', 1, 'name']) as any).items[1].name).toBe('x');
  });

  it('no record, or several, is the caller asking for something the site does not have', () => {
    expect(() => patch(['items', { id: '9' }, 'name'])).toThrow(PatchMiss);
    expect(() => patch(['items', { id: '8' }, 'name'])).toThrow(/several items record/);
    expect(() => patch(['meta', 'missing', 'deep'])).toThrow(PatchMiss);
    expect(() => patch(['x'], 1, 'not a document')).toThrow(TemplateError);
  });

  it("keys that reach a prototype are refused, and nothing's prototype changes", () => {
    expect(() => patch(['__proto__', 'polluted'], true)).toThrow(/not allowed/);
    expect(() => patch(['meta', 'constructor', 'prototype', 'polluted'], true)).toThrow(TemplateError);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a malformed $patch is a 422 at publish time', () => {
    const def = {
      format: 'connector-definition/v1',
      engine: 'http',
      steps: [
        { id: 's', method: 'PUT', url: 'http://a.test/', body: { json: { $patch: 'literal', set: [{ at: ['__proto__'] }, { at: [] }] } } },
      ],
      result: null,
    };
    const msgs = validateDefinition(def, { inputSchema: {}, requiredSecrets: [] }).map((p) => `${p.loc.join('.')}: ${p.msg}`);
    expect(msgs).toEqual([
      'body.definition.steps.0.body.json.$patch: Value error, $patch must be a template of the document to edit, e.g. "{{vars.config}}"',
      'body.definition.steps.0.body.json.set.0.at: Value error, `at` is a non-empty list of keys, indexes and {field: value} record selectors',
      'body.definition.steps.0.body.json.set.0.value: Value error, each set needs a `value` (or an `append` to a list)',
      'body.definition.steps.0.body.json.set.1.at: Value error, `at` is a non-empty list of keys, indexes and {field: value} record selectors',
      'body.definition.steps.0.body.json.set.1.value: Value error, each set needs a `value` (or an `append` to a list)',
    ]);
  });
});

describe('not a read-modify-write', () => {
  it('a small body that happens to repeat an answer, or one sending back nothing changed, stays as recorded', () => {
    const small = har(
      { url: `${O}/api/item/1`, body: { id: 1, name: 'a' } },
      { method: 'PUT', url: `${O}/api/item/1`, json: { id: 1, name: 'b' }, body: {} },
    );
    const r = synthesize({ recording: small, hints: { arguments: { name: 'b' } } });
    expect(JSON.stringify(r.definition)).not.toContain('$patch');
  });
});
