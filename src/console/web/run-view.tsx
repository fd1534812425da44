// One run: status, result (table or JSON), error explained, logs that follow a running run.
import { useEffect, useState } from 'preact/hooks';
import { type Run, api } from './api.js';
import { useInterval } from './hooks.js';
import { href } from './router.js';
import { Badge, ErrorBox, Json, ResultView, RunErrorView, Scroll, When } from './ui.js';

export const TERMINAL = new Set(['success', 'connector_error', 'timed_out', 'result_too_large', 'internal_error', 'cancelled']);

export function RunView({ run: initial, onChange }: { run: Run; onChange?: (r: Run) => void }) {
  const [run, setRun] = useState(initial);
  const [logs, setLogs] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => setRun(initial), [initial]);
  const live = !TERMINAL.has(run.status);
  const refresh = async () => {
    try {
      const [r, l] = await Promise.all([api<Run>('GET', `/runs/${run.id}`), api<{ logs: string }>('GET', `/runs/${run.id}/logs`)]);
      // A sync run's result is delivered once, to the caller that waited: keep it.
      setRun((old) => (r.result === null && old.result !== null ? { ...r, result: old.result } : r));
      setLogs(l.logs);
      onChange?.(r);
      setError(null);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => void refresh(), [run.id]);
  useInterval(refresh, 1000, live);
  const cancel = async () => {
    try {
      setRun(await api<Run>('POST', `/runs/${run.id}/cancel`));
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section class="run" aria-labelledby={`run-${run.id}`}>
      <h3 id={`run-${run.id}`}>
        Run <a href={href('runs', run.id)}>{run.id.slice(-8)}</a> <Badge status={run.status} />
      </h3>
      <p class="muted small" aria-live="polite">
        Version {run.connector_version} · started <When at={run.created_at} />
        {run.finished_at ? (
          <>
            {' '}
            · finished <When at={run.finished_at} />
          </>
        ) : (
          ' · running…'
        )}
      </p>
      {live && (
        <button type="button" onClick={cancel}>
          Cancel run
        </button>
      )}
      <ErrorBox error={error} />
      {run.status === 'success' &&
        (run.result !== null ? (
          <ResultView value={run.result} />
        ) : (
          <p class="muted">
            {run.result_stored
              ? 'The result is empty.'
              : `The result (${run.result_size_bytes ?? '?'} bytes) was not stored: too large to keep.`}
          </p>
        ))}
      {run.error && <RunErrorView error={run.error} />}
      <details open={live || run.status !== 'success'}>
        <summary>Arguments</summary>
        <Json value={run.arguments} label="Run arguments" />
      </details>
      <details open>
        <summary>Logs{live ? ' (updating)' : ''}</summary>
        <Scroll label="Run logs" class="logs-box">
          <pre class="logs">{logs === null ? 'Loading logs…' : logs || '(no log lines yet)'}</pre>
        </Scroll>
      </details>
    </section>
  );
}
