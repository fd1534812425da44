import { useRef, useState } from 'preact/hooks';
import { type FileMeta, api, qs } from '../api.js';
import { fileCrc32c } from '../crc32c.js';
import { useAsync } from '../hooks.js';
import { type Uploaded, uploadFile } from '../upload.js';
import { Empty, ErrorBox, Loading, Title, When, Scroll } from '../ui.js';

interface FilesPage {
  data: FileMeta[];
  has_more: boolean;
  next_cursor: string | null;
}

const size = (n: number) => (n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`);

interface Upload {
  name: string;
  progress: number;
  phase: 'uploading' | 'checking' | 'done' | 'failed';
  file?: Uploaded;
  localCrc?: string;
  error?: unknown;
}

export function FilesPage() {
  const [cursor, setCursor] = useState<string | null>(null);
  const [prev, setPrev] = useState<string[]>([]);
  const list = useAsync(() => api<FilesPage>('GET', `/files${qs({ limit: 20, cursor })}`), [cursor]);
  const [upload, setUpload] = useState<Upload | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const [dlError, setDlError] = useState<unknown>(null);

  const start = async (e: Event) => {
    e.preventDefault();
    const file = input.current?.files?.[0];
    if (!file) return;
    setUpload({ name: file.name, progress: 0, phase: 'uploading' });
    try {
      const crc = fileCrc32c(file);
      const done = await uploadFile(
        file,
        (p) => setUpload((u) => u && { ...u, progress: p }),
        () => setUpload((u) => u && { ...u, progress: 1, phase: 'checking' }),
      );
      const localCrc = await crc;
      setUpload((u) => u && { ...u, phase: 'done', file: done, localCrc });
      if (input.current) input.current.value = '';
      list.reload();
    } catch (err) {
      setUpload((u) => u && { ...u, phase: 'failed', error: err });
    }
  };
  const download = async (f: FileMeta) => {
    setDlError(null);
    try {
      const { url } = await api<{ url: string }>('GET', `/files/${f.id}/download_url`);
      const a = document.createElement('a');
      a.href = url;
      a.download = f.name;
      document.body.append(a);
      a.click();
      a.remove();
    } catch (err) {
      setDlError(err);
    }
  };
  const remove = async (f: FileMeta) => {
    if (!confirm(`Delete ${f.name}?`)) return;
    try {
      await api('DELETE', `/files/${f.id}`);
      list.reload();
    } catch (err) {
      setDlError(err);
    }
  };
  return (
    <>
      <Title>Files</Title>
      <section class="panel" aria-labelledby="upload-title">
        <h2 id="upload-title">Upload a file</h2>
        <form onSubmit={start} class="filters">
          <div class="field inline">
            <label for="upload-file">File</label>
            <input id="upload-file" type="file" ref={input} />
          </div>
          <button type="submit" class="primary" disabled={upload?.phase === 'uploading' || upload?.phase === 'checking'}>
            Upload
          </button>
        </form>
        {upload && (
          <div class="upload" aria-live="polite">
            <label for="upload-progress">
              {upload.name}: {upload.phase === 'uploading' ? `${Math.round(upload.progress * 100)} %` : upload.phase}
            </label>
            <progress id="upload-progress" max={1} value={upload.progress} />
            {upload.phase === 'done' && upload.file && (
              <p data-testid="upload-result">
                Stored {size(upload.file.size_bytes)}. CRC32C <code data-testid="upload-crc">{upload.file.crc32c}</code>{' '}
                {upload.localCrc === upload.file.crc32c ? (
                  <span class="ok">matches the file on this computer</span>
                ) : (
                  <strong class="bad">differs from this computer's {upload.localCrc}: the upload was corrupted</strong>
                )}
              </p>
            )}
            <ErrorBox error={upload.error} />
          </div>
        )}
      </section>
      <h2>Your files</h2>
      {list.loading && <Loading what="Loading files" />}
      <ErrorBox error={list.error} retry={list.reload} />
      <ErrorBox error={dlError} />
      {list.data && list.data.data.length === 0 && (
        <Empty>
          <p>No files yet. Upload one above; runs that save files show theirs here too.</p>
        </Empty>
      )}
      {list.data && list.data.data.length > 0 && (
        <>
          <Scroll class="table-wrap" label="Files">
            <table class="data">
              <caption class="sr-only">Files</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Size</th>
                  <th scope="col">Type</th>
                  <th scope="col">From</th>
                  <th scope="col">CRC32C</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.data.data.map((f) => (
                  <tr key={f.id}>
                    <td>{f.name}</td>
                    <td>{size(f.size_bytes)}</td>
                    <td>{f.content_type}</td>
                    <td>{f.source === 'UPLOAD' ? 'upload' : f.run_id ? `run …${f.run_id.slice(-8)}` : f.source.toLowerCase()}</td>
                    <td>
                      <code>{f.crc32c}</code>
                    </td>
                    <td>
                      <When at={f.created_at} />
                    </td>
                    <td class="row-actions">
                      <button type="button" onClick={() => download(f)} aria-label={`Download ${f.name}`}>
                        Download
                      </button>
                      <button type="button" class="quiet" onClick={() => remove(f)} aria-label={`Delete ${f.name}`}>
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scroll>
          <nav class="pager" aria-label="Pages of files">
            <button
              type="button"
              disabled={prev.length === 0}
              onClick={() => {
                setCursor(prev.at(-1) || null);
                setPrev((p) => p.slice(0, -1));
              }}
            >
              Newer
            </button>
            <button
              type="button"
              disabled={!list.data.next_cursor}
              onClick={() => {
                setPrev((p) => [...p, cursor ?? '']);
                setCursor(list.data!.next_cursor);
              }}
            >
              Older
            </button>
          </nav>
        </>
      )}
    </>
  );
}
