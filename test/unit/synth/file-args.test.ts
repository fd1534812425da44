// Recorded uploads as arguments: one per file part, named from the part's field, apart from the
// other arguments; the recorded content kept only when the recording holds it.
import { describe, expect, it } from 'vitest';
import { fileArgSchema, fileArgsOf } from '../../../src/synth/file-args.js';
import type { Exchange } from '../../../src/synth/types.js';

const upload = (id: string, params: NonNullable<Exchange['body']>['params']) =>
  ({ id, method: 'POST', url: 'http://site.test/up', body: { mime: 'multipart/form-data; boundary=x', params } }) as unknown as Exchange;

describe('fileArgsOf', () => {
  it('names an argument per file part, apart from the others, and keeps only recorded content', () => {
    const got = fileArgsOf(
      [
        upload('e1', [
          { name: 'title', value: 'Q3' },
          { name: 'files[]', fileName: 'a.txt', contentType: 'text/plain', value: 'hello' },
          { name: 'files[]', fileName: 'b.png', contentType: 'image/png', _size: 900 },
          // An empty file input (no file chosen) is sent as the browser sent it.
          { name: 'extra', fileName: '', value: '' },
        ]),
        upload('e2', [{ name: 'async-upload', fileName: 'c.pdf', value: '' }]),
        upload('e3', [{ name: '0', fileName: 'd.bin' }]),
      ],
      new Set(['title', 'files']),
    );
    expect(got.map((f) => [f.name, f.exchange, f.pos, f.data?.toString()])).toEqual([
      ['files_file', 'e1', 1, 'hello'],
      ['files_file_2', 'e1', 2, undefined],
      // An empty part is a file whose content the browser did not record, not an empty file.
      ['async_upload', 'e2', 0, undefined],
      ['file_0', 'e3', 0, undefined],
    ]);
  });

  it('describes the argument with what the recording uploaded', () => {
    const [f] = fileArgsOf([upload('e1', [{ name: 'doc', fileName: 'plan.pdf', contentType: 'application/pdf' }])], new Set());
    expect(fileArgSchema(f)).toEqual({
      type: 'string',
      format: 'file-id',
      description:
        'id of an uploaded file (POST /v1beta/files, then complete), sent as the "doc" part with its name and type; the recording uploaded "plan.pdf", application/pdf',
    });
  });
});
