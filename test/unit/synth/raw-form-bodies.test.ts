// Bodies a page posts under jQuery's default form content type without being a form (Rspamd's web
// UI: a pasted email to scan, its thresholds as a JSON array), and a password typed by hand that the
// page sends in a header of every call (Rspamd's `Password`), not in a sign-in form.
import { describe, expect, it } from 'vitest';
import { synthesize } from '../../../src/synth/index.js';
import { isFormBody } from '../../../src/synth/slots.js';
import { entry, har } from '../../helpers/har-fragment.js';

const O = 'http://filter.test';
const FORM = 'application/x-www-form-urlencoded; charset=UTF-8';
const EMAIL = 'From: pest@aphid.example\nTo: grower@orchard.example\nSubject: Fire blight warning\n\nCut every infected shoot.\n';
const PASSWORD = 'Filter-admin-pass-1';

/** A POST of `text` under the form content type, with the headers every call of the page sends. */
function raw(path: string, text: string, answer: unknown, headers: Record<string, string>, at: number) {
  const e = entry({ method: 'POST', url: `${O}${path}`, body: answer, headers: { ...headers, 'X-Requested-With': 'XMLHttpRequest' }, at });
  (e.request as any).postData = { mimeType: FORM, text, params: [], _size: text.length, _sha256: '' };
  return e;
}
const recordingOf = (...entries: ReturnType<typeof entry>[]) => {
  const rec = har({ url: `${O}/`, html: '<html><body><textarea id="scanMsgSource"></textarea></body></html>', at: 0 });
  rec.log.entries.push(...entries);
  return rec;
};
const stepOf = (r: ReturnType<typeof synthesize>, path: string) =>
  (r.definition as any).steps.find((s: any) => String(s.url).endsWith(path));

describe('a body sent under the form content type', () => {
  it('is a form only when it reads as one: fields with `=`, no line break, no JSON', () => {
    for (const t of ['a=1&b=two+words', 'items[]=1&items[]=2', 'q=hello world', 'token', ''])
      expect(isFormBody({ mime: FORM, text: t }), t).toBe(true);
    for (const t of [EMAIL, '[15,null,6,4]', '{"name":"north"}', 'hello world', 'line one\r\nline two'])
      expect(isFormBody({ mime: FORM, text: t }), t).toBe(false);
    expect(isFormBody({ mime: 'text/plain', text: 'a=1' })).toBe(false);
  });

  it('raw text: sent as recorded, the argument written inside it, under the type the page used', () => {
    const r = synthesize({
      recording: recordingOf(raw('/checkv2', EMAIL, { score: 11, symbols: { SUBJECT_WORD: { score: 3 } } }, {}, 1000)),
      hints: { arguments: { subject: 'Fire blight warning' } },
    });
    expect(stepOf(r, '/checkv2').body).toEqual({
      text: EMAIL.replace('Fire blight warning', '{{args.subject}}'),
      content_type: FORM,
    });
  });

  it('JSON: a JSON body with the argument at its place, under the type the page used', () => {
    const r = synthesize({
      recording: recordingOf(raw('/saveactions', '[18,null,6,4]', { success: true }, {}, 1000)),
      hints: { arguments: { reject: 18 }, allow_side_effects: true },
    });
    const body = stepOf(r, '/saveactions').body;
    expect(body.content_type).toBe(FORM);
    expect(body.json).toHaveLength(4);
    expect(JSON.stringify(body.json[0])).toContain('{{args.reject');
    expect(body.json.slice(1)).toEqual([null, 6, 4]);
  });
});

describe('a password the page sends in a header', () => {
  const calls = [
    raw('/auth', '', { auth: 'ok' }, { Password: PASSWORD }, 500),
    raw('/checkv2', EMAIL, { score: 11, symbols: { SUBJECT_WORD: { score: 3 } } }, { Password: PASSWORD }, 3000),
  ];

  it('typed by hand into a password input: the login, never a literal of the definition', () => {
    const rec = recordingOf(...calls);
    (rec.log as any)._capture = {
      actions: [
        {
          id: 'a1',
          seq: 1,
          page: 'page_1',
          url: `${O}/`,
          time: '2026-01-01T10:00:00.300Z',
          t_ms: 300,
          type: 'fill',
          value: PASSWORD,
          secret: null,
          target: { tag: 'input', type: 'password', id: 'connectPassword', name: null },
        },
      ],
    };
    const r = synthesize({ recording: rec, hints: { arguments: { subject: 'Fire blight warning' } } });
    expect(JSON.stringify(r.definition)).not.toContain(PASSWORD);
    expect(stepOf(r, '/checkv2').headers.password).toBe('{{secrets.account.password}}');
    expect(r.required_secrets.map((s) => [s.name, s.type])).toEqual([['account', 'login']]);
  });

  it('in a recording without an action log: a header named as a password is a secret too', () => {
    const r = synthesize({ recording: recordingOf(...calls), hints: { arguments: { subject: 'Fire blight warning' } } });
    expect(JSON.stringify(r.definition)).not.toContain(PASSWORD);
    expect(stepOf(r, '/checkv2').headers.password).toBe('{{secrets.password.value}}');
    expect(r.required_secrets.map((s) => [s.name, s.type])).toEqual([['password', 'string']]);
  });
});
