// A form submission with a file, answered by an immediate redirect, often reaches the recording
// with no body at all: Chromium gives a body holding a file only on request, and by the time the
// recorder asks, the redirect has ended the request ("No post data available"). The page's
// submit event saw the same fields (FormData of the form and its submitter, which is the list
// the browser encodes), so the entry's form parts are taken from it, marked `_from_submit`.
import {
  type HarEntry,
  type HarPostParam,
  SECRET_PLACEHOLDER_RE,
  type SecretField,
  type SubmitAction,
  type UploadAction,
} from '../../formats/recording/types.js';
import { headerValue } from './har-parts.js';

type Timed<T> = T & { ms: number };

/** How long after its submit event a form's request may start (the page's own handlers run first). */
const SUBMIT_TO_REQUEST_MS = 30_000;
/** The page's and the network's clocks are both epoch time, but read at different moments. */
const CLOCK_SLACK_MS = 1_000;

const withoutHash = (u: string) => u.replace(/#.*$/, '');

/**
 * Fills in the form parts of multipart POSTs recorded without a body, from the submit action that
 * sent them (the latest before, same URL, each used once). A file part takes its content type
 * from the file of its name chosen in the live view (`upload` actions); never its content.
 */
export function bodiesFromSubmits(entries: HarEntry[], actions: Timed<{ type: string }>[]): void {
  const submits = actions.filter(
    (a): a is Timed<SubmitAction> =>
      a.type === 'submit' &&
      (a as Timed<SubmitAction>).form?.method === 'post' &&
      /multipart\/form-data/i.test((a as Timed<SubmitAction>).form?.enctype ?? ''),
  );
  if (!submits.length) return;
  const uploads = actions.filter((a): a is Timed<UploadAction> => a.type === 'upload');
  const used = new Set<SubmitAction>();
  for (const e of entries) {
    const ct = headerValue(e.request.headers ?? [], 'content-type') ?? '';
    if (e.request.method.toUpperCase() !== 'POST' || e.request.postData || !/multipart\/form-data/i.test(ct)) continue;
    const t = Date.parse(e.startedDateTime);
    const s = submits
      .filter(
        (a) =>
          !used.has(a) &&
          a.ms <= t + CLOCK_SLACK_MS &&
          t - a.ms <= SUBMIT_TO_REQUEST_MS &&
          withoutHash(a.form.action) === withoutHash(e.request.url),
      )
      .at(-1);
    if (!s) continue;
    used.add(s);
    const params: HarPostParam[] = s.fields.map((f) => {
      if (f.type !== 'file') return { name: f.name, value: f.value };
      // (An empty file input is sent as a part with an empty file name and no content.)
      const chosen = uploads
        .filter((u) => u.ms <= s.ms)
        .flatMap((u) => u.files)
        .filter((x) => x.name === f.value)
        .at(-1);
      return {
        name: f.name,
        fileName: f.value,
        contentType: chosen?.content_type ?? 'application/octet-stream',
        ...(chosen ? { _size: chosen.size, _sha256: chosen.sha256 } : {}),
      };
    });
    e.request.postData = { mimeType: ct, params, _from_submit: s.id };
    // (The submit action was recorded redacted: a pasted secret in a field is its placeholder. The
    // entry is marked as carrying it, as the redactor marks every other entry that sends one.)
    for (const p of params)
      for (const m of (p.value ?? '').matchAll(SECRET_PLACEHOLDER_RE))
        (e._secrets ??= []).push({
          secret_id: m[1]!,
          field: m[2] as SecretField,
          location: 'request.postData',
          encodings: ['raw'],
          field_name: p.name,
        });
  }
}
