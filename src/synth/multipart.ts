// Multipart bodies as HAR files carry them: Playwright's recordHar (and DevTools for FormData)
// store the raw text with an empty `params` list, so the parts are read back here by the
// boundary named in the content type. File parts keep their filename and content type.
import type { HarPostParam } from '../formats/recording/types.js';

/** The boundary of a multipart content type, or null. */
export function boundaryOf(contentType: string): string | null {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2]) : null;
}

/** Parts of a raw multipart/form-data body, in order (repeated names kept). Null: not parseable. */
export function parseMultipart(text: string, contentType: string): HarPostParam[] | null {
  const boundary = boundaryOf(contentType) ?? /^--([^\r\n]+)\r?\n/.exec(text)?.[1] ?? null;
  if (!boundary) return null;
  const delim = `--${boundary}`;
  const chunks = text.split(delim);
  if (chunks.length < 3) return null;
  const out: HarPostParam[] = [];
  // chunks[0] is the preamble; the last one starts with "--" (the closing delimiter).
  for (const raw of chunks.slice(1)) {
    if (raw.startsWith('--')) break;
    const part = raw.replace(/^\r?\n/, '');
    const sep = /\r?\n\r?\n/.exec(part);
    if (!sep) continue;
    const head = part.slice(0, sep.index);
    // The part ends with the CRLF that precedes the next delimiter.
    const body = part.slice(sep.index + sep[0].length).replace(/\r?\n$/, '');
    const disp = /content-disposition:\s*form-data\s*;([^\r\n]*)/i.exec(head)?.[1] ?? '';
    const name = /(?:^|;)\s*name="((?:[^"\\]|\\.)*)"/i.exec(disp)?.[1] ?? /(?:^|;)\s*name=([^;\s]+)/i.exec(disp)?.[1];
    if (name === undefined) continue;
    const fileName = /filename="((?:[^"\\]|\\.)*)"/i.exec(disp)?.[1];
    const ct = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim();
    out.push({ name, value: body, ...(fileName !== undefined ? { fileName } : {}), ...(ct ? { contentType: ct } : {}) });
  }
  return out;
}
