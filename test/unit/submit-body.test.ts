// Form parts of a multipart POST recorded without a body, taken from the submit event that sent
// it (src/browser/recording/submit-body.ts): only the same URL, the latest submit before, once.
import { describe, expect, it } from 'vitest';
import { bodiesFromSubmits } from '../../src/browser/recording/submit-body.js';
import type { HarEntry } from '../../src/formats/recording/types.js';

const T = Date.parse('2026-11-30T10:00:00Z');
const entry = (url: string, at: number, extra: Partial<HarEntry['request']> = {}): HarEntry =>
  ({
    _id: `e${at}`,
    startedDateTime: new Date(T + at).toISOString(),
    request: {
      method: 'POST',
      url,
      headers: [{ name: 'Content-Type', value: 'multipart/form-data; boundary=----x' }],
      ...extra,
    },
  }) as unknown as HarEntry;
const submit = (id: string, action: string, at: number, fields: { name: string; value: string; type: string }[]) => ({
  id,
  type: 'submit',
  ms: T + at,
  form: { action, method: 'post', enctype: 'multipart/form-data' },
  fields,
});
const upload = (at: number, name: string) => ({
  id: 'u',
  type: 'upload',
  ms: T + at,
  files: [{ name, content_type: 'image/png', size: 7, sha256: 'ab'.repeat(32) }],
});

describe('bodies from submit events', () => {
  it('fills the parts of the POST to the form action, files by name and chosen type', () => {
    const e = entry('http://site.test/up?x=1', 100);
    bodiesFromSubmits(
      [e],
      [
        upload(10, 'cat.png'),
        submit('a1', 'http://site.test/up?x=1', 50, [
          { name: 'csrf', value: 'k', type: 'hidden' },
          { name: 'pic', value: 'cat.png', type: 'file' },
          { name: 'extra', value: '', type: 'file' },
        ]),
      ],
    );
    expect(e.request.postData).toEqual({
      mimeType: 'multipart/form-data; boundary=----x',
      _from_submit: 'a1',
      params: [
        { name: 'csrf', value: 'k' },
        { name: 'pic', fileName: 'cat.png', contentType: 'image/png', _size: 7, _sha256: 'ab'.repeat(32) },
        { name: 'extra', fileName: '', contentType: 'application/octet-stream' },
      ],
    });
  });

  it('marks the entry as carrying a secret pasted into one of its fields (the submit action holds its placeholder)', () => {
    const e = entry('http://site.test/up', 100);
    bodiesFromSubmits(
      [e],
      [
        submit('a1', 'http://site.test/up', 50, [
          { name: 'confirm_password', value: '{{secret:sec-1:password}}', type: 'password' },
          { name: 'note', value: 'plain', type: 'text' },
        ]),
      ],
    );
    expect(e._secrets).toEqual([
      { secret_id: 'sec-1', field: 'password', location: 'request.postData', encodings: ['raw'], field_name: 'confirm_password' },
    ]);
  });

  it('leaves alone a POST to another URL, one with a body, one long after, and uses a submit once', () => {
    const other = entry('http://site.test/elsewhere', 100);
    const withBody = entry('http://site.test/up', 100, { postData: { mimeType: 'multipart/form-data', text: 'x' } });
    const late = entry('http://site.test/late', 60_000);
    const first = entry('http://site.test/up', 200);
    const second = entry('http://site.test/up', 300);
    bodiesFromSubmits(
      [other, withBody, late, first, second],
      [
        submit('a1', 'http://site.test/up#top', 150, [{ name: 'q', value: '1', type: 'text' }]),
        submit('a2', 'http://site.test/late', 10, []),
      ],
    );
    expect(other.request.postData).toBeUndefined();
    expect(withBody.request.postData).toEqual({ mimeType: 'multipart/form-data', text: 'x' });
    expect(late.request.postData).toBeUndefined();
    expect(first.request.postData).toMatchObject({ _from_submit: 'a1', params: [{ name: 'q', value: '1' }] });
    expect(second.request.postData).toBeUndefined();
  });
});
