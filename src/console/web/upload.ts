// One upload through the files API, as the Files page and a run form's file argument do it:
// create (name, size, type), PUT the bytes to the signed URL, complete.
import { ApiError, type Schemas, api } from './api.js';

/** What `complete` answers: the stored file's id, name, size, type and CRC32C. */
export type Uploaded = Schemas['CompleteFileUploadResponse'];

/** PUT to the signed URL with XMLHttpRequest: fetch reports no upload progress. */
function put(url: string, headers: Record<string, string>, file: File, onProgress: (f: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const x = new XMLHttpRequest();
    x.open('PUT', url);
    for (const [k, v] of Object.entries(headers)) x.setRequestHeader(k, v);
    x.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    x.onload = () => (x.status < 300 ? resolve() : reject(new ApiError(x.status, x.responseText || x.statusText)));
    x.onerror = () => reject(new ApiError(0, 'The upload was interrupted.'));
    x.send(file);
  });
}

/** Uploads `file`; `onSent` is called once the bytes are in, before the server checks them. */
export async function uploadFile(file: File, onProgress: (f: number) => void, onSent: () => void = () => {}): Promise<Uploaded> {
  const init = await api<{ file_id: string; upload_url: string; upload_headers: Record<string, string> }>('POST', '/files', {
    name: file.name,
    size_bytes: file.size,
    content_type: file.type || 'application/octet-stream',
  });
  await put(init.upload_url, init.upload_headers, file, onProgress);
  onSent();
  return api<Uploaded>('POST', `/files/${init.file_id}/complete`);
}
