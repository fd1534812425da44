// Recorded uploads as arguments: one per file part, named from the part's field, apart from the
// other arguments; the recorded content kept only when the recording holds it.
import { describe, expect, it } from 'vitest';
import type { HttpDefinition, HttpStep } from '../../../src/formats/definition/types.js';
import { type FileArg, fileArgSchema, fileArgsOf, nameFileFields } from '../../../src/synth/file-args.js';
import { synthesize } from '../../../src/synth/index.js';
import { har } from '../../helpers/har-fragment.js';
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

  it("a raw body that is a chosen file byte for byte is the caller's file; the page's own content type is kept when it differs", () => {
    const raw = (id: string, mime: string, sha256: string) =>
      ({ id, method: 'PUT', url: 'http://site.test/dav/x', body: { mime, sha256 } }) as unknown as Exchange;
    const chosen = [
      { name: 'a.pdf', content_type: 'application/pdf', size: 4, sha256: 'aa', data: Buffer.from('%PDF').toString('base64') },
      { name: 'b.txt', content_type: 'text/plain', size: 2, sha256: 'bb' },
    ];
    const got = fileArgsOf(
      [
        raw('e1', 'application/octet-stream', 'aa'),
        raw('e2', 'text/plain;charset=UTF-8', 'bb'),
        // Not a chosen file (another hash); a form body is never a raw file.
        raw('e3', 'application/json', 'cc'),
        raw('e4', 'application/x-www-form-urlencoded', 'aa'),
      ],
      new Set(['file']),
      chosen,
    );
    expect(got.map((f) => [f.name, f.exchange, f.pos, f.fileName, f.sendType, f.data?.toString()])).toEqual([
      ['file_file', 'e1', -1, 'a.pdf', 'application/octet-stream', '%PDF'],
      ['file_file_2', 'e2', -1, 'b.txt', undefined, undefined],
    ]);
    expect(fileArgSchema(got[0]).description).toContain('sent as the request body with its type');
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

describe('nameFileFields', () => {
  it("names the caller's file where the page named the chosen one, from the step that sends it on", () => {
    const f = { name: 'document', fileName: 'plan v2.pdf', contentType: 'application/pdf' } as FileArg;
    const steps: HttpStep[] = [
      // Before the upload: a list that happens to hold the same name stays as it was.
      { id: 'list', url: '/files', query: { q: 'plan v2.pdf' } },
      {
        id: 'put',
        method: 'PUT',
        url: '/dav/home/plan%20v2.pdf?x=1',
        headers: { 'x-file-name': 'plan v2.pdf', 'x-type': 'application/pdf' },
        body: { file: '{{args.document}}' },
      },
      {
        id: 'save',
        method: 'POST',
        url: '/notes',
        body: {
          multipart: [
            { name: 'name', value: 'plan v2.pdf' },
            { name: 'kind', value: 'application/pdf' },
          ],
        },
      },
      // A type on its own, with no name beside it, may be anything: kept.
      { id: 'other', method: 'POST', url: '/x', body: { form: { type: 'application/pdf' } } },
    ];
    nameFileFields(steps, [f]);
    expect(steps[0].query).toEqual({ q: 'plan v2.pdf' });
    expect(steps[1].url).toBe('/dav/home/{{files.document.name | urlencode}}?x=1');
    expect(steps[1].headers).toEqual({ 'x-file-name': '{{files.document.name}}', 'x-type': '{{files.document.content_type}}' });
    expect(steps[2].body!.multipart).toEqual([
      { name: 'name', value: '{{files.document.name}}' },
      { name: 'kind', value: '{{files.document.content_type}}' },
    ]);
    expect(steps[3].body!.form).toEqual({ type: 'application/pdf' });
  });
});

describe('an upload among the background reads of a single-page app', () => {
  it('is the target: the file the person chose is what they gave the flow (the list refreshed after it is not)', () => {
    const O = 'http://app.test';
    const rec = har(
      { url: `${O}/files?limit=25`, body: { data: [{ id: 'a1', title: 'Old plan' }] } },
      { method: 'POST', url: `${O}/files`, body: { data: { id: 'f9', filename_download: 'survey.pdf', filesize: 20015 } } },
      {
        url: `${O}/files?limit=25`,
        body: {
          data: [
            { id: 'f9', title: 'Survey' },
            { id: 'a1', title: 'Old plan' },
          ],
        },
      },
      { url: `${O}/files?aggregate[count]=id`, body: { data: [{ count: 2 }] } },
    );
    (rec.log.entries[1].request as any).postData = {
      mimeType: 'multipart/form-data; boundary=x',
      params: [{ name: 'file', fileName: 'survey.pdf', contentType: 'application/pdf', _size: 20015 }],
    };
    // The file the person chose, as the live view recorded it.
    (rec.log as any)._capture = {
      actions: [
        {
          id: 'a1',
          seq: 1,
          type: 'upload',
          page: 'page_1',
          url: `${O}/files`,
          target: null,
          time: '',
          t_ms: 0,
          files: [
            { name: 'survey.pdf', content_type: 'application/pdf', size: 4, sha256: '', data: Buffer.from('%PDF').toString('base64') },
          ],
        },
      ],
    };
    const r = synthesize({ recording: rec });
    expect(r.report.targets[0].url).toBe(`${O}/files`);
    expect(r.report.targets[0].reasons).toContain('+4 sends the file(s) the person chose: "survey.pdf"');
    expect((r.definition as HttpDefinition).steps.at(-1)!.body).toEqual({ multipart: [{ name: 'file', file: '{{args.file}}' }] });
    // The replay gets the chosen file's bytes; the connector never holds them.
    expect(r.recorded_files.file).toEqual({ name: 'survey.pdf', contentType: 'application/pdf', data: Buffer.from('%PDF') });
    expect(JSON.stringify(r.definition)).not.toContain('JVBERg');
  });
});
