// Files the recording uploaded — multipart parts with a filename, or a whole body that is a file
// the person chose in the live view — become arguments of format file-id: the caller uploads their
// own file (POST /v1beta/files) and names it, and the connector sends its bytes, name and type in
// the recorded one's place, and names it where the page named the recorded one. The recorded bytes,
// when the recording holds them, are kept aside for the replay, never put in the connector.
import type { HttpStep } from '../formats/definition/types.js';
import { isFormBody } from './slots.js';
import type { Exchange } from './types.js';

export interface FileArg {
  /** The argument's name (from the part's field name). */
  name: string;
  exchange: string;
  /** The part's position in its request's multipart body; RAW_BODY when the file is the whole body. */
  pos: number;
  /** The multipart field (empty for a raw body). */
  part: string;
  fileName: string;
  contentType?: string;
  size?: number;
  /** The recorded content: the part's own (a HAR that keeps it), or the file chosen in the live view. */
  data?: Buffer;
  /** A raw body's content type when the page sent another than the file's (a fixed octet-stream). */
  sendType?: string;
}

/** A file the person chose through a capture session's live view (the recording's `upload` actions). */
export interface ChosenUpload {
  name: string;
  content_type: string;
  size: number;
  sha256?: string;
  data?: string;
}

/** The position of a file sent as a request's whole body (a PUT of the bytes, an XHR of a File). */
export const RAW_BODY = -1;

/** A field name as an argument name: `files[]` → files, `async-upload` → async_upload. */
function argName(part: string): string {
  const n = part
    .replace(/\[\]$/, '')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
  return /^[a-z]/.test(n) ? n : `file${n ? `_${n}` : ''}`;
}

/**
 * One argument per uploaded file part of these requests (in order), named apart from `taken`. A
 * part whose content the recording lacks takes it from the file of its name chosen in the live view.
 */
export function fileArgsOf(steps: Exchange[], taken: ReadonlySet<string>, chosen: readonly ChosenUpload[] = []): FileArg[] {
  const used = new Set(taken);
  const out: FileArg[] = [];
  const named = (field: string) => {
    let name = argName(field);
    if (used.has(name)) name = `${name}_file`;
    for (let i = 2; used.has(name); i++) name = `${name.replace(/_\d+$/, '')}_${i}`;
    used.add(name);
    return name;
  };
  for (const x of steps) {
    // A whole body that is, byte for byte, a file the person chose (its hash): the caller's file.
    const raw = rawFile(x, chosen);
    if (raw) {
      out.push({
        name: named('file'),
        exchange: x.id,
        pos: RAW_BODY,
        part: '',
        fileName: raw.name,
        contentType: raw.content_type,
        size: raw.size,
        ...(raw.data !== undefined ? { data: Buffer.from(raw.data, 'base64') } : {}),
        ...(sent(x) && sent(x) !== raw.content_type.toLowerCase() ? { sendType: x.body!.mime } : {}),
      });
      continue;
    }
    for (const { p, pos } of fileParts(x)) {
      const name = named(p.name);
      // (A browser's own recording holds the form's parts but not the file's content: an empty
      // part is a file whose bytes were not recorded. A text file's recorded bytes are kept.)
      const pick = p.value ? undefined : [...chosen].reverse().find((c) => c.name === p.fileName && c.data !== undefined);
      const data = p.value ? Buffer.from(p.value) : pick ? Buffer.from(pick.data!, 'base64') : undefined;
      const contentType = p.contentType ?? pick?.content_type;
      const size = data?.length ?? (p._size || undefined);
      out.push({
        name,
        exchange: x.id,
        pos,
        part: p.name,
        fileName: p.fileName,
        ...(contentType ? { contentType } : {}),
        ...(size !== undefined ? { size } : {}),
        ...(data ? { data } : {}),
      });
    }
  }
  return out;
}

type Part = NonNullable<NonNullable<Exchange['body']>['params']>[number];

/** The file parts a request uploads, with their positions in its multipart body. */
export function fileParts(x: Exchange): { p: Part & { fileName: string }; pos: number }[] {
  if (!x.body || !/multipart\/form-data/i.test(x.body.mime)) return [];
  return (x.body.params ?? []).flatMap((p, pos) =>
    // (A form's empty file input is sent as a part with no filename and no content.)
    p.fileName === undefined || (p.fileName === '' && !p.value) ? [] : [{ p: p as Part & { fileName: string }, pos }],
  );
}

const sent = (x: Exchange) => x.body?.mime.split(';')[0].trim().toLowerCase();

/** The chosen file a request sends as its whole body (not a form, not multipart), if any. */
export function rawFile(x: Exchange, chosen: readonly ChosenUpload[]): ChosenUpload | undefined {
  const b = x.body;
  if (!b?.sha256 || /multipart\/form-data/i.test(b.mime) || isFormBody(b)) return undefined;
  return [...chosen].reverse().find((c) => c.sha256 === b.sha256 && c.size > 0);
}

/** The input_schema property of a file argument. */
export function fileArgSchema(f: FileArg): Record<string, unknown> {
  const recorded = [f.fileName && JSON.stringify(f.fileName), f.contentType, f.size !== undefined ? `${f.size} bytes` : '']
    .filter(Boolean)
    .join(', ');
  return {
    type: 'string',
    format: 'file-id',
    description: `id of an uploaded file (POST /v1beta/files, then complete), sent ${f.pos === RAW_BODY ? 'as the request body with its type' : `as the "${f.part}" part with its name and type`}${recorded ? `; the recording uploaded ${recorded}` : ''}`,
  };
}

/**
 * Where the page named the file it sent — its name in the upload's query (Redmine's
 * `uploads.js?filename=`), in a form field beside it (plupload's `name`), in the form that names
 * the upload later — the connector names the caller's file (`{{files.<argument>.name}}`), and its
 * type where the same step named both. From the step that sends the file on; exact values only.
 */
export function nameFileFields(steps: HttpStep[], fileArgs: readonly FileArg[]): void {
  for (const f of fileArgs) {
    if (f.fileName.length < 3) continue;
    const sends = steps.findIndex((s) => JSON.stringify(s.body ?? {}).includes(`{{args.${f.name}}}`));
    if (sends < 0) continue;
    for (const s of steps.slice(sends)) {
      let named = false;
      const as = (v: string, field: 'name' | 'content_type') => {
        const want = field === 'name' ? f.fileName : f.contentType;
        if (!want || v !== want) return v;
        if (field === 'name') named = true;
        return `{{files.${f.name}.${field}}}`;
      };
      for (const field of ['name', 'content_type'] as const) {
        // (The type only where the name was found: a bare "application/pdf" may be anything.)
        if (field === 'content_type' && !named) break;
        const swap = (o: Record<string, string> | undefined) => {
          for (const [k, v] of Object.entries(o ?? {})) o![k] = as(v, field);
        };
        swap(s.query);
        swap(s.headers);
        swap(s.body?.form);
        for (const p of s.body?.multipart ?? []) if (p.value !== undefined) p.value = as(p.value, field);
        if (field === 'name') {
          // A path segment that is the file's name (a WebDAV PUT to /files/<name>).
          const enc = encodeURIComponent(f.fileName);
          const seg = s.url.split('?')[0].split('/').indexOf(enc);
          if (seg >= 0) {
            const [path, ...q] = s.url.split('?');
            const parts = path.split('/');
            parts[seg] = `{{files.${f.name}.name | urlencode}}`;
            s.url = [parts.join('/'), ...q].join('?');
            named = true;
          }
        }
      }
    }
  }
}
