// A write answered with one bare id (WordPress's async upload answers `25`): the result is that
// id, named as the page then sent it, not a bare status and URL.
import { describe, expect, it } from 'vitest';
import type { HttpDefinition } from '../../../src/formats/definition/types.js';
import { synthesize } from '../../../src/synth/index.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'http://site.test';

describe('a write answered with a bare id', () => {
  it('returns the id, named as a later request sent it', () => {
    const r = synthesize({
      recording: har(
        { url: `${O}/notes/new`, html: '<form method=post><input name=title></form>' },
        { method: 'POST', url: `${O}/notes/save`, form: { title: 'Pear grafting' }, body: ' 25\n', mime: 'text/plain' },
        { method: 'POST', url: `${O}/notes/show`, form: { note_id: '25', view: 'card' }, html: '<div>Pear grafting</div>' },
      ),
      hints: { arguments: { title: 'Pear grafting' } },
    });
    expect(r.report.targets[0].url).toBe(`${O}/notes/save`);
    expect((r.definition as HttpDefinition).result).toEqual({ note_id: '{{vars.note_id}}', status: '{{vars.status}}' });
    expect(r.output_schema.properties.note_id).toEqual({ type: 'integer' });
  });

  it('calls it id when nothing later sends it, and leaves a read answered by a number alone', () => {
    const w = synthesize({
      recording: har({ method: 'POST', url: `${O}/notes/save`, form: { title: 'Plums' }, body: '7', mime: 'text/plain' }),
      hints: { arguments: { title: 'Plums' } },
    });
    expect((w.definition as HttpDefinition).result).toEqual({ id: '{{vars.id}}', status: '{{vars.status}}' });
    expect(() =>
      synthesize({
        recording: har({ url: `${O}/notes/count?q=plums`, body: '7', mime: 'text/plain' }),
        hints: { arguments: { q: 'plums' } },
      }),
    ).toThrow(/returns no data/);
  });
});
