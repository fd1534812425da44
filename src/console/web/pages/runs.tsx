import { useState } from 'preact/hooks';
import { type Connector, type Run, api, qs } from '../api.js';
import { useAsync } from '../hooks.js';
import { go, href, routeQuery } from '../router.js';
import { RunView } from '../run-view.js';
import { Badge, Empty, ErrorBox, Loading, Title, When, Scroll } from '../ui.js';

interface RunsPage {
  data: Run[];
  has_more: boolean;
  next_cursor: string | null;
}

/** Runs of one connector (the API lists runs per connector), by version, newest first, cursor paged. */
export function RunsPage() {
  const q = routeQuery();
  const connectorId = q.get('connector') ?? '';
  const version = q.get('version') ?? '';
  const connectors = useAsync(() => api<{ data: Connector[] }>('GET', '/connectors?limit=100'), []);
  const chosen = connectorId || connectors.data?.data[0]?.id || '';
  const current = connectors.data?.data.find((c) => c.id === chosen);
  const [pages, setPages] = useState<string[]>([]); // cursors of the pages before this one
  const [cursor, setCursor] = useState<string | null>(null);
  const runs = useAsync(async () => {
    if (!chosen) return null;
    return api<RunsPage>('GET', `/runs${qs({ connector_id: chosen, version, limit: 20, cursor })}`);
  }, [chosen, version, cursor]);
  const setFilter = (c: string, v: string) => {
    setPages([]);
    setCursor(null);
    go(`/runs${qs({ connector: c, version: v })}`);
  };
  return (
    <>
      <Title>Runs</Title>
      {connectors.loading && <Loading what="Loading connectors" />}
      <ErrorBox error={connectors.error} retry={connectors.reload} />
      {connectors.data && connectors.data.data.length === 0 && (
        <Empty>
          <p>
            No connectors, so no runs yet. <a href="#/record">Record a connector</a> first.
          </p>
        </Empty>
      )}
      {connectors.data && connectors.data.data.length > 0 && (
        <form class="filters" onSubmit={(e) => e.preventDefault()}>
          <div class="field inline">
            <label for="runs-connector">Connector</label>
            <select id="runs-connector" value={chosen} onChange={(e) => setFilter(e.currentTarget.value, '')}>
              {connectors.data.data.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.display_name}
                </option>
              ))}
            </select>
          </div>
          <div class="field inline">
            <label for="runs-version">Version</label>
            <select id="runs-version" value={version} onChange={(e) => setFilter(chosen, e.currentTarget.value)}>
              <option value="">newest{current ? ` (v${current.version})` : ''}</option>
              {current &&
                Array.from({ length: current.version }, (_, i) => current.version - i).map((v) => (
                  <option key={v} value={String(v)}>
                    v{v}
                  </option>
                ))}
            </select>
          </div>
        </form>
      )}
      {runs.loading && <Loading what="Loading runs" />}
      <ErrorBox error={runs.error} retry={runs.reload} />
      {runs.data && runs.data.data.length === 0 && (
        <Empty>
          <p>No runs of this version yet. {current && <a href={href('connectors', current.id)}>Run {current.display_name}</a>}</p>
        </Empty>
      )}
      {runs.data && runs.data.data.length > 0 && (
        <>
          <Scroll class="table-wrap" label="Runs">
            <table class="data">
              <caption class="sr-only">Runs</caption>
              <thead>
                <tr>
                  <th scope="col">Run</th>
                  <th scope="col">Status</th>
                  <th scope="col">Arguments</th>
                  <th scope="col">Started</th>
                  <th scope="col">Finished</th>
                </tr>
              </thead>
              <tbody>
                {runs.data.data.map((r) => (
                  <tr key={r.id}>
                    <td>
                      <a href={href('runs', r.id)}>…{r.id.slice(-8)}</a>
                    </td>
                    <td>
                      <Badge status={r.status} />
                      {r.error && <div class="small muted">{r.error.type}</div>}
                    </td>
                    <td>
                      <code class="small">{JSON.stringify(r.arguments)}</code>
                    </td>
                    <td>
                      <When at={r.created_at} />
                    </td>
                    <td>
                      <When at={r.finished_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scroll>
          <nav class="pager" aria-label="Pages of runs">
            <button
              type="button"
              disabled={pages.length === 0}
              onClick={() => {
                setCursor(pages.at(-1) || null);
                setPages((p) => p.slice(0, -1));
              }}
            >
              Newer
            </button>
            <button
              type="button"
              disabled={!runs.data.next_cursor}
              onClick={() => {
                setPages((p) => [...p, cursor ?? '']);
                setCursor(runs.data!.next_cursor);
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

export function RunPage({ id }: { id: string }) {
  const run = useAsync(() => api<Run>('GET', `/runs/${encodeURIComponent(id)}`), [id]);
  return (
    <>
      <p class="crumbs">
        <a href="#/runs">Runs</a> /
      </p>
      <Title>Run …{id.slice(-8)}</Title>
      {run.loading && !run.data && <Loading what="Loading the run" />}
      <ErrorBox error={run.error} retry={run.reload} />
      {run.data && (
        <>
          <p>
            Connector <a href={href('connectors', run.data.connector_id)}>{run.data.connector_id}</a>
          </p>
          <RunView run={run.data} />
        </>
      )}
    </>
  );
}
