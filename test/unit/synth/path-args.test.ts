// An argument that spans several path segments: a file path in a contents API
// (`/api/contents/notes/orchard.txt`), a nested category. The plan puts it in whole, its slashes
// kept as separators and each segment encoded (`urlpath`), so a run on `cider/recipes 2.txt` asks
// for `/api/contents/cider/recipes%202.txt`.
import { describe, expect, it } from 'vitest';
import type { HttpDefinition } from '../../../src/formats/definition/types.js';
import { renderText } from '../../../src/formats/definition/template.js';
import { synthesize } from '../../../src/synth/index.js';
import { har } from '../../helpers/har-fragment.js';

const O = 'http://lab.test';
const file = (path: string) => ({ name: path.split('/').at(-1), path, type: 'file', content: `text of ${path}` });

describe('an argument over several path segments', () => {
  const r = synthesize({
    recording: har(
      { url: `${O}/tree/notes`, html: '<!doctype html><main><a href="/edit/notes/orchard.txt">orchard.txt</a></main>' },
      { url: `${O}/api/contents/notes?type=directory`, body: { content: [file('notes/orchard.txt')], type: 'directory' } },
      { url: `${O}/api/contents/notes/orchard.txt?type=file&format=text`, body: file('notes/orchard.txt') },
    ),
    hints: { arguments: { path: 'notes/orchard.txt' } },
  });
  const step = (r.definition as HttpDefinition).steps.at(-1)!;

  it('is one hole where its segments were, piped through urlpath', () => {
    expect(step.url).toBe('/api/contents/{{args.path | urlpath}}');
    expect(step.query).toEqual({ type: 'file', format: 'text' });
    expect(r.input_schema.properties.path).toMatchObject({ type: 'string' });
  });

  it('renders each segment encoded and the slashes kept', () => {
    const lookup = (p: string[]) => (p[0] === 'args' && p[1] === 'path' ? 'cider/recipes 2.txt' : undefined);
    expect(renderText(step.url, lookup)).toBe('/api/contents/cider/recipes%202.txt');
  });

  it('a one-segment argument is unchanged (urlencode, a slash in it encoded)', () => {
    const one = synthesize({
      recording: har({ url: `${O}/api/contents/orchard.txt?type=file`, body: file('orchard.txt') }),
      hints: { arguments: { name: 'orchard.txt' } },
    });
    expect((one.definition as HttpDefinition).steps[0].url).toBe('/api/contents/{{args.name | urlencode}}');
  });
});
