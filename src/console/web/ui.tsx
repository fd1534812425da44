// Small building blocks shared by the pages: states (loading, empty, error), titles that take
// focus on navigation (screen readers hear the new page), JSON and result views.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { ApiError, type Problem, type Schemas } from './api.js';

export function Title({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

export const Loading = ({ what = 'Loading' }: { what?: string }) => (
  <p class="state loading" role="status">
    <span class="spinner" aria-hidden="true" /> {what}…
  </p>
);

export const Empty = ({ children }: { children: ComponentChildren }) => <div class="state empty">{children}</div>;

export function ErrorBox({ error, retry }: { error: unknown; retry?: () => void }) {
  if (!error) return null;
  const e = error as Error;
  const status = e instanceof ApiError && e.status ? ` (HTTP ${e.status})` : '';
  return (
    <div class="state error" role="alert">
      <p>
        <strong>Something went wrong{status}.</strong> {e instanceof ApiError && Array.isArray(e.detail) ? '' : e.message}
      </p>
      {e instanceof ApiError && e.problems.length > 0 && <ProblemList problems={e.problems} />}
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export const ProblemList = ({ problems }: { problems: Problem[] }) => (
  <ul class="problems">
    {problems.map((p) => (
      <li key={`${p.loc.join('.')}:${p.msg}`}>
        <code>{p.loc.filter((x) => x !== 'body').join('.')}</code> {p.msg}
      </li>
    ))}
  </ul>
);

/** A box that may scroll: keyboard users reach it with Tab and scroll it with the arrow keys. */
export const Scroll = ({ label, children, class: cls }: { label: string; children: ComponentChildren; class?: string }) => (
  // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be focusable to be scrolled without a mouse (WCAG 2.1.1)
  <section class={`scroll ${cls ?? ''}`} tabIndex={0} aria-label={label}>
    {children}
  </section>
);

export const Json = ({ value, label }: { value: unknown; label?: string }) => (
  <Scroll label={label ?? 'JSON'}>
    <pre class="json">{JSON.stringify(value, null, 2)}</pre>
  </Scroll>
);

export const When = ({ at }: { at: string | null | undefined }) =>
  at ? <time dateTime={at}>{new Date(at).toLocaleString()}</time> : <span class="muted">—</span>;

export const Badge = ({ status }: { status: string }) => <span class={`badge s-${status}`}>{status.replace(/_/g, ' ')}</span>;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isTable = (v: unknown): v is unknown[] => Array.isArray(v) && v.length > 0 && v.every(isRecord);
const cell = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

export function Table({ rows, caption }: { rows: Record<string, unknown>[]; caption: string }) {
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return (
    <Scroll class="table-wrap" label={caption}>
      <table class="data">
        <caption>{caption}</caption>
        <thead>
          <tr>
            {cols.map((c) => (
              <th scope="col" key={c}>
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              {cols.map((c) => (
                <td key={c}>{cell(r[c])}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </Scroll>
  );
}

/** A list is a table; an object holding lists shows each as a table and the rest as JSON. */
export function ResultView({ value }: { value: unknown }) {
  if (isTable(value)) return <Table rows={value as Record<string, unknown>[]} caption={`Result: ${value.length} rows`} />;
  if (isRecord(value)) {
    const lists = Object.entries(value).filter(([, v]) => isTable(v));
    if (lists.length) {
      const rest = Object.fromEntries(Object.entries(value).filter(([, v]) => !isTable(v)));
      return (
        <div>
          {lists.map(([k, v]) => (
            <Table key={k} rows={v as Record<string, unknown>[]} caption={`${k}: ${(v as unknown[]).length} rows`} />
          ))}
          {Object.keys(rest).length > 0 && <Json value={rest} label="Other result fields" />}
        </div>
      );
    }
  }
  return <Json value={value} label="Result" />;
}

const ERROR_TYPES: Record<string, string> = {
  auth_required: 'The site asked for a login the connector could not complete. Check the secret bound to the run.',
  invalid_input: 'The site refused the arguments (for example a value it does not know).',
  site_unavailable: 'The site could not be reached, or answered with a server error.',
  anti_bot: 'The site blocked automated access (a challenge or a block page).',
  site_changed: 'The site no longer looks like the recording. Record the task again to publish a new revision.',
  internal_error: 'The service itself failed while running (for example the process running it stopped).',
  crash: 'The connector crashed (it ran out of memory, or its code threw).',
  unhandled: 'The connector failed in a way it does not classify.',
};

export function RunErrorView({ error }: { error: Schemas['RunError'] }) {
  const retry =
    error.retryable === true
      ? 'Retryable: the same call may work later.'
      : error.retryable === false
        ? 'Not retryable: the same call will fail the same way until something changes.'
        : 'Whether a retry helps is unknown.';
  return (
    <div class="state error run-error" role="alert">
      <p>
        <strong>{error.type.replace(/_/g, ' ')}</strong>: {error.message}
      </p>
      <p>{ERROR_TYPES[error.type] ?? ''}</p>
      <p>{retry}</p>
      {error.details && <Json value={error.details} label="Error details" />}
    </div>
  );
}
