import { useState } from 'preact/hooks';
import { type Task, api, qs } from '../api.js';
import { useAsync } from '../hooks.js';
import { Badge, Empty, ErrorBox, Loading, Title, When, Scroll } from '../ui.js';

/** The older task-based family, shown for what it is: read-only here, built on the same parts. */
export function TasksPage() {
  const [cursor, setCursor] = useState<string | null>(null);
  const list = useAsync(
    () => api<{ data: Task[]; has_more: boolean; next_cursor: string | null }>('GET', `/tasks${qs({ limit: 20, cursor })}`),
    [cursor],
  );
  return (
    <>
      <Title>Tasks</Title>
      <p class="lead">
        Tasks are the older, task-based API family (<code>/v1beta/tasks</code>): describe a task, a capture session is started for it, and a
        connector is made behind the scenes. New work is easier as a connector: <a href="#/record">record one</a>. Tasks stay listed here so
        you can see their state.
      </p>
      {list.loading && <Loading what="Loading tasks" />}
      <ErrorBox error={list.error} retry={list.reload} />
      {list.data && list.data.data.length === 0 && (
        <Empty>
          <p>No tasks.</p>
        </Empty>
      )}
      {list.data && list.data.data.length > 0 && (
        <Scroll class="table-wrap" label="Tasks">
          <table class="data">
            <caption class="sr-only">Tasks</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">State</th>
                <th scope="col">Website</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((t) => (
                <tr key={t.id}>
                  <td>
                    {t.display_name}
                    <div class="small muted">{t.task}</div>
                  </td>
                  <td>
                    <Badge status={t.current_state} />
                    {t.failure_info && <div class="small">{t.failure_info.message}</div>}
                  </td>
                  <td>{t.website}</td>
                  <td>
                    <When at={t.updated_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
      {list.data?.next_cursor && (
        <button type="button" onClick={() => setCursor(list.data!.next_cursor)}>
          Older tasks
        </button>
      )}
    </>
  );
}
