import { useState } from 'preact/hooks';
import { type Connector, api, qs } from '../api.js';
import { useAsync } from '../hooks.js';
import { go, href, routeQuery } from '../router.js';
import { Empty, ErrorBox, Loading, Title, When, Scroll } from '../ui.js';

interface Page {
  data: Connector[];
  has_more: boolean;
  next_cursor: string | null;
}

/** Connectors, newest first, filtered by domain (the API's `domain`), paged with its cursor. */
export function ConnectorsPage() {
  const domain = routeQuery().get('domain') ?? '';
  // What is typed belongs to the filter it was typed under: "Clear", back/forward and a submitted
  // filter start from the new one. Derived at render, not reset by an effect: an effect runs after
  // the paint, and would overwrite what someone typed right after the page changed.
  const [typed, setTyped] = useState({ under: domain, text: domain });
  const draft = typed.under === domain ? typed.text : domain;
  const [more, setMore] = useState<Connector[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [moreError, setMoreError] = useState<unknown>(null);
  const list = useAsync(async () => {
    const p = await api<Page>('GET', `/connectors${qs({ domain, limit: 20 })}`);
    setMore([]);
    setCursor(p.next_cursor);
    return p;
  }, [domain]);
  const loadMore = async () => {
    try {
      const p = await api<Page>('GET', `/connectors${qs({ domain, limit: 20, cursor })}`);
      setMore((m) => [...m, ...p.data]);
      setCursor(p.next_cursor);
    } catch (e) {
      setMoreError(e);
    }
  };
  const rows = [...(list.data?.data ?? []), ...more];
  return (
    <>
      <div class="page-head">
        <Title>Connectors</Title>
        <a class="button primary" href="#/record">
          Record a connector
        </a>
      </div>
      <form
        class="filters"
        aria-label="Filter connectors"
        onSubmit={(e) => {
          e.preventDefault();
          go(`/connectors${draft.trim() ? `?domain=${encodeURIComponent(draft.trim())}` : ''}`);
        }}
      >
        <div class="field inline">
          <label for="domain">Website domain</label>
          <input
            id="domain"
            type="search"
            placeholder="shop.example.com"
            value={draft}
            onInput={(e) => setTyped({ under: domain, text: e.currentTarget.value })}
          />
        </div>
        <button type="submit">Filter</button>
        {domain && (
          <a class="button quiet" href="#/connectors">
            Clear
          </a>
        )}
      </form>
      {list.loading && <Loading what="Loading connectors" />}
      <ErrorBox error={list.error} retry={list.reload} />
      {list.data && rows.length === 0 && (
        <Empty>
          {domain ? (
            <p>No connector for {domain} or its subdomains.</p>
          ) : (
            <p>
              No connectors yet. <a href="#/record">Record one</a>: do the task once on the website, and it becomes an API.
            </p>
          )}
        </Empty>
      )}
      {rows.length > 0 && (
        <Scroll class="table-wrap" label="Connectors">
          <table class="data">
            <caption class="sr-only">Connectors</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Website</th>
                <th scope="col">Version</th>
                <th scope="col">Arguments</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((c) => (
                <tr key={c.id}>
                  <td>
                    <a href={href('connectors', c.id)}>{c.display_name}</a>
                    <div class="muted small">{c.purpose}</div>
                  </td>
                  <td>{c.website ?? <span class="muted">—</span>}</td>
                  <td>v{c.version}</td>
                  <td>{Object.keys((c.input_schema as any).properties ?? {}).join(', ') || <span class="muted">none</span>}</td>
                  <td>
                    <When at={c.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
      <ErrorBox error={moreError} />
      {cursor && (
        <button type="button" onClick={loadMore}>
          Load more
        </button>
      )}
    </>
  );
}
