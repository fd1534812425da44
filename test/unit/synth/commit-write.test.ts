// A flow the caller says changes something (hints.allow_side_effects) whose change carries no more
// than the record's name: Unleash's archive reads the flag's page (a full JSON answer naming the
// flag), checks the archive (`POST …/archive/validate`, a JSON answer) and then sends a bare
// `DELETE …/features/<name>` with an empty answer. The DELETE is the point, not the read or the check.
import { describe, expect, it } from 'vitest';
import type { HttpDefinition } from '../../../src/formats/definition/types.js';
import { synthesize } from '../../../src/synth/index.js';
import { har } from '../../helpers/har-fragment.js';
import { recordNamingArgs } from '../../../src/modules/connectors/replay.js';

const O = 'http://site.test';
const flagPage = {
  url: `${O}/api/admin/projects/default/features/cider-press?env=1`,
  body: {
    name: 'cider-press',
    description: 'The new press scheduler',
    type: 'release',
    environments: [{ name: 'development', enabled: false }],
    stale: false,
  },
};
const validate = {
  method: 'POST',
  url: `${O}/api/admin/projects/default/archive/validate`,
  json: { features: ['cider-press'] },
  body: { parentsWithChildFeatures: [], hasDeletedDependencies: false },
};
const archive = { method: 'DELETE', url: `${O}/api/admin/projects/default/features/cider-press`, body: '', mime: '' };
const listAfter = { url: `${O}/api/admin/search/features?offset=0&limit=25`, body: { features: [{ name: 'frost-alerts' }] } };

describe('the last write carrying every typed value, when the caller allowed side effects', () => {
  it('is the target: a DELETE with an empty answer over the read of the record and the check before it', () => {
    const r = synthesize({
      recording: har(flagPage, validate, archive, listAfter),
      hints: { arguments: { flag: 'cider-press' }, allow_side_effects: true },
    });
    expect(r.report.targets[0].url).toBe(archive.url);
    const d = r.definition as HttpDefinition;
    expect(d.steps.at(-1)).toMatchObject({ method: 'DELETE', url: '/api/admin/projects/default/features/{{args.flag | urlencode}}' });
    // (The deletion names the record it deletes: the validation replay never makes it a fresh name.)
    expect([...recordNamingArgs(d)]).toEqual(['flag']);
  });

  it('a write that only checks (…/validate) is not the change, even as the last write', () => {
    const r = synthesize({
      recording: har(flagPage, archive, { ...validate, url: `${O}/api/admin/features/validate` }),
      hints: { arguments: { flag: 'cider-press' }, allow_side_effects: true },
    });
    expect(r.report.targets[0].url).toBe(archive.url);
  });

  it('without the caller saying so, the read of the record stays the target (opening a page writes nothing)', () => {
    const r = synthesize({ recording: har(flagPage, validate, archive, listAfter), hints: { arguments: { flag: 'cider-press' } } });
    expect(r.report.targets[0].url).not.toBe(archive.url);
  });

  it("not the app saving a search: a search flow with side effects allowed keeps the search's answer", () => {
    const search = { url: `${O}/api/search?q=pear`, body: { hits: [{ name: 'pear-pruning' }, { name: 'pear-grafting' }] } };
    const saveView = { method: 'PUT', url: `${O}/api/user/views/flags`, json: { query: 'pear' }, body: { ok: true } };
    const r = synthesize({ recording: har(search, saveView), hints: { arguments: { query: 'pear' }, allow_side_effects: true } });
    expect(r.report.targets[0].url).toBe(search.url);
  });
});
