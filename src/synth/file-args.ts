// Files the recording uploaded (multipart parts with a filename) become arguments of format
// file-id: the caller uploads their own file (POST /v1beta/files) and names it, and the connector
// sends its bytes, name and type in the part's place. The recorded bytes, when the recording holds
// them (text files), are kept aside for the replay; a binary file's are not recorded.
import type { Exchange } from './types.js';

export interface FileArg {
  /** The argument's name (from the part's field name). */
  name: string;
  exchange: string;
  /** The part's position in its request's multipart body. */
  pos: number;
  part: string;
  fileName: string;
  contentType?: string;
  size?: number;
  /** The recorded content (text files only). */
  value?: string;
}

/** A field name as an argument name: `files[]` → files, `async-upload` → async_upload. */
function argName(part: string): string {
  const n = part
    .replace(/\[\]$/, '')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
  return /^[a-z]/.test(n) ? n : `file${n ? `_${n}` : ''}`;
}

/** One argument per uploaded file part of these requests (in order), named apart from `taken`. */
export function fileArgsOf(steps: Exchange[], taken: ReadonlySet<string>): FileArg[] {
  const used = new Set(taken);
  const out: FileArg[] = [];
  for (const x of steps) {
    if (!x.body || !/multipart\/form-data/i.test(x.body.mime)) continue;
    (x.body.params ?? []).forEach((p, pos) => {
      if (p.fileName === undefined) return;
      // (A form's empty file input is sent as a part with no filename and no content.)
      if (p.fileName === '' && !p.value) return;
      let name = argName(p.name);
      if (used.has(name)) name = `${name}_file`;
      for (let i = 2; used.has(name); i++) name = `${name.replace(/_\d+$/, '')}_${i}`;
      used.add(name);
      out.push({
        name,
        exchange: x.id,
        pos,
        part: p.name,
        fileName: p.fileName,
        ...(p.contentType ? { contentType: p.contentType } : {}),
        ...(p.value ? { size: Buffer.byteLength(p.value) } : p._size ? { size: p._size } : {}),
        // (A browser's own recording holds the form's parts but not the file's content: an empty
        // part is a file whose bytes were not recorded. A text file's recorded bytes are kept.)
        ...(p.value ? { value: p.value } : {}),
      });
    });
  }
  return out;
}

/** The input_schema property of a file argument. */
export function fileArgSchema(f: FileArg): Record<string, unknown> {
  const recorded = [f.fileName && JSON.stringify(f.fileName), f.contentType, f.size !== undefined ? `${f.size} bytes` : '']
    .filter(Boolean)
    .join(', ');
  return {
    type: 'string',
    format: 'file-id',
    description: `id of an uploaded file (POST /v1beta/files, then complete), sent as the "${f.part}" part with its name and type${recorded ? `; the recording uploaded ${recorded}` : ''}`,
  };
}
