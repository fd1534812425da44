// A random id made of letters only (a nanoid-style `XCVSmdXHoZHGpNyU`; one 16-letter id in sixteen
// has no digit — n8n's workflow ids): found in the list that handed it out and read from the record
// the argument names, like any id with a digit. Before, a path segment without a digit was a
// constant, and a run on another record sent the recorded record's id.
import { describe, expect, it } from 'vitest';
import { synthesize } from '../../../src/synth/index.js';
import { randomLetters } from '../../../src/synth/values.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'http://flows.test';

describe('random letters', () => {
  it('are an id when long, in both cases, and broken up too often to be CamelCase words', () => {
    for (const v of ['XCVSmdXHoZHGpNyU', 'qWeRtYuIoPaSdFgH', 'ZxCvBnMaSdFgHjKl']) expect(randomLetters(v), v).toBe(true);
    for (const v of [
      'SearchBooksQuery',
      'GetWorkflowsByName',
      'XMLHttpRequest',
      'abcdefghijklmnop',
      'ABCDEFGHIJKLMNOP',
      'XCVSmd',
      'XCVSmdXHoZHGpN1U',
    ])
      expect(randomLetters(v), v).toBe(false);
  });

  it("in a write's path is read from the record the argument names", () => {
    const flows = [
      { id: 'XCVSmdXHoZHGpNyU', name: 'Frost alerts', active: false },
      { id: 'qWeRtYuIoPaSdFgH', name: 'Harvest calendar', active: false },
    ];
    const rec = har(
      { url: `${O}/rest/workflows`, body: { data: flows }, at: 0 },
      {
        method: 'PATCH',
        url: `${O}/rest/workflows/XCVSmdXHoZHGpNyU`,
        json: { active: true },
        body: { data: { ...flows[0], active: true } },
        at: 2000,
      },
    );
    const r = synthesize({ recording: rec, hints: { arguments: { workflow: 'Frost alerts' }, allow_side_effects: true } });
    const steps = (r.definition as any).steps;
    expect(steps.at(-1).url).toMatch(/^\/rest\/workflows\/\{\{vars\.\w+ \| urlencode\}\}$/);
    expect(JSON.stringify(steps.map((s: any) => [s.url, s.query, s.body]))).not.toContain('XCVSmdXHoZHGpNyU');
  });
});
