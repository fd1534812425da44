import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Connector, type Problem, type Run, type Secret, api, fieldErrors, qs } from '../api.js';
import { lineDiff } from '../diff.js';
import { useAsync } from '../hooks.js';
import { href } from '../router.js';
import { RunView } from '../run-view.js';
import { type ObjectSchema, SchemaForm, collectArguments, initialValues } from '../schema-form.js';
import { ErrorBox, Json, Loading, ProblemList, Scroll, Title, When } from '../ui.js';

export function ConnectorPage({ id }: { id: string }) {
  const c = useAsync(() => api<Connector>('GET', `/connectors/${encodeURIComponent(id)}`), [id]);
  if (c.loading && !c.data) return <Loading what="Loading the connector" />;
  if (c.error)
    return (
      <>
        <Title>Connector</Title>
        <ErrorBox error={c.error} retry={c.reload} />
        <a href="#/connectors">Back to connectors</a>
      </>
    );
  const conn = c.data!;
  return (
    <>
      <p class="crumbs">
        <a href="#/connectors">Connectors</a> /
      </p>
      <div class="page-head">
        <Title>{conn.display_name}</Title>
        <div class="actions">
          <a class="button" href={`${href('runs')}?connector=${encodeURIComponent(conn.id)}`}>
            Runs
          </a>
          <a class="button" href={href('connectors', conn.id, 'record')}>
            Record again
          </a>
        </div>
      </div>
      <p>{conn.purpose}</p>
      <dl class="facts">
        <dt>Website</dt>
        <dd>{conn.website ?? '—'}</dd>
        <dt>Current version</dt>
        <dd>v{conn.version}</dd>
        <dt>Secret slots</dt>
        <dd>{conn.required_secrets.map((s) => `${s.name} (${s.type}${s.supports_totp ? ', TOTP' : ''})`).join(', ') || 'none'}</dd>
        <dt>Id</dt>
        <dd>
          <code>{conn.id}</code>
        </dd>
      </dl>
      <div class="columns">
        <RunForm connector={conn} />
        <Versions connector={conn} />
      </div>
    </>
  );
}

/**
 * The run form generated from input_schema. `examples` starts it with the recorded example values
 * (the record flow's preview), `preferSecrets` with the secrets pasted while recording.
 */
export function RunForm({
  connector,
  examples = false,
  preferSecrets = [],
  title = 'Run it',
}: {
  connector: Connector;
  examples?: boolean;
  preferSecrets?: string[];
  title?: string;
}) {
  const schema = connector.input_schema as ObjectSchema;
  const [values, setValues] = useState(() => initialValues(schema, examples));
  const [bindings, setBindings] = useState<Record<string, string>>({});
  const [mode, setMode] = useState<'async' | 'sync'>('async');
  const [errors, setErrors] = useState<{ args: Record<string, string>; slots: Record<string, string>; rest: Problem[] }>({
    args: {},
    slots: {},
    rest: [],
  });
  const [failure, setFailure] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [run, setRun] = useState<Run | null>(null);
  const secrets = useAsync(() => api<Secret[]>('GET', '/secrets'), []);
  useEffect(() => {
    // Preselect a slot's secret when exactly one fits.
    const next: Record<string, string> = {};
    for (const slot of connector.required_secrets) {
      const fit = (secrets.data ?? []).filter((s) => s.secret_type === slot.type);
      const preferred = fit.find((s) => preferSecrets.includes(s.id));
      if (preferred) next[slot.name] = preferred.id;
      else if (fit.length === 1) next[slot.name] = fit[0].id;
    }
    setBindings((b) => ({ ...next, ...b }));
  }, [secrets.data, connector.required_secrets]);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setFailure(null);
    setErrors({ args: {}, slots: {}, rest: [] });
    setRun(null);
    try {
      const secret_bindings = Object.fromEntries(Object.entries(bindings).filter(([, v]) => v));
      const body = { connector_id: connector.id, arguments: collectArguments(schema, values), secret_bindings, async: mode === 'async' };
      setRun(await api<Run>('POST', '/runs', body));
    } catch (err) {
      if (err instanceof ApiError && err.status === 422) {
        const a = fieldErrors(err.problems, ['body', 'arguments']);
        const s = fieldErrors(a.rest, ['body', 'secret_bindings']);
        setErrors({ args: a.fields, slots: s.fields, rest: s.rest });
        // Focus the first field the API complained about.
        const first = Object.keys(a.fields)[0] ?? Object.keys(s.fields)[0];
        if (first) document.getElementById(a.fields[first] ? `arg-${first}` : `slot-${first}`)?.focus();
      } else setFailure(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="panel" aria-labelledby="run-title">
      <h2 id="run-title">{title}</h2>
      <form onSubmit={submit} noValidate>
        <fieldset>
          <legend>Arguments</legend>
          <SchemaForm
            schema={schema}
            values={values}
            errors={errors.args}
            idPrefix="arg"
            onChange={(k, v) => setValues((old) => ({ ...old, [k]: v }))}
          />
        </fieldset>
        {connector.required_secrets.length > 0 && (
          <fieldset>
            <legend>Secrets</legend>
            {secrets.loading && <Loading what="Loading your secrets" />}
            <ErrorBox error={secrets.error} retry={secrets.reload} />
            {connector.required_secrets.map((slot) => {
              const fit = (secrets.data ?? []).filter((s) => s.secret_type === slot.type);
              const err = errors.slots[slot.name];
              return (
                <div class={`field${err ? ' invalid' : ''}`} key={slot.name}>
                  <label for={`slot-${slot.name}`}>
                    {slot.name} <span class="type">{slot.type} secret</span>
                  </label>
                  <select
                    id={`slot-${slot.name}`}
                    value={bindings[slot.name] ?? ''}
                    aria-invalid={err ? 'true' : undefined}
                    aria-describedby={err ? `slot-${slot.name}-err` : undefined}
                    onChange={(e) => setBindings((b) => ({ ...b, [slot.name]: e.currentTarget.value }))}
                  >
                    <option value="">Choose a secret…</option>
                    {fit.map((s) => (
                      <option key={s.id} value={s.id}>
                        {s.name}
                        {s.has_totp ? ' (TOTP)' : ''}
                      </option>
                    ))}
                  </select>
                  {secrets.data && fit.length === 0 && (
                    <p class="help">
                      No {slot.type} secret yet: <a href="#/secrets">create one</a>.
                    </p>
                  )}
                  {err && (
                    <p class="field-error" id={`slot-${slot.name}-err`}>
                      {err}
                    </p>
                  )}
                </div>
              );
            })}
          </fieldset>
        )}
        <fieldset class="radios">
          <legend>How to wait</legend>
          <label>
            <input type="radio" name="mode" value="async" checked={mode === 'async'} onChange={() => setMode('async')} /> In the background,
            with live logs
          </label>
          <label>
            <input type="radio" name="mode" value="sync" checked={mode === 'sync'} onChange={() => setMode('sync')} /> Wait for the result
            (sync)
          </label>
        </fieldset>
        {errors.rest.length > 0 && (
          <div class="state error" role="alert">
            <ProblemList problems={errors.rest} />
          </div>
        )}
        {Object.keys(errors.args).length + Object.keys(errors.slots).length > 0 && (
          <p class="field-error" role="alert">
            The service did not accept some fields; see the messages above.
          </p>
        )}
        <ErrorBox error={failure} />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? (mode === 'sync' ? 'Running…' : 'Starting…') : 'Run'}
        </button>
      </form>
      {run && <RunView run={run} />}
    </section>
  );
}

function Versions({ connector }: { connector: Connector }) {
  const revs = useAsync(() => api<{ data: Connector[] }>('GET', `/connectors/${connector.id}/revisions`), [connector.id]);
  const [shown, setShown] = useState(connector.version);
  const def = useAsync(
    () => api<{ definition: unknown }>('GET', `/connectors/${connector.id}/definition${qs({ version: shown })}`),
    [shown],
  );
  const versions = (revs.data?.data ?? []).map((r) => r.version);
  return (
    <section class="panel" aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      {revs.loading && <Loading what="Loading versions" />}
      <ErrorBox error={revs.error} retry={revs.reload} />
      {revs.data && (
        <ul class="versions">
          {revs.data.data.map((r) => (
            <li key={r.version}>
              <button
                type="button"
                class={shown === r.version ? 'selected' : 'quiet'}
                aria-pressed={shown === r.version}
                onClick={() => setShown(r.version)}
              >
                v{r.version}
              </button>{' '}
              <When at={r.created_at} /> · {Object.keys((r.input_schema as any).properties ?? {}).join(', ') || 'no arguments'}
            </li>
          ))}
        </ul>
      )}
      <h3>Definition of v{shown}</h3>
      {def.loading && <Loading what="Loading the definition" />}
      <ErrorBox error={def.error} retry={def.reload} />
      {def.data && <Plan definition={def.data.definition} />}
      {def.data && (
        <details>
          <summary>Whole definition (JSON)</summary>
          <Json value={def.data.definition} label={`Definition of version ${shown}`} />
        </details>
      )}
      {versions.length > 1 && <VersionDiff id={connector.id} versions={versions} initialTo={connector.version} />}
    </section>
  );
}

/** The plan's steps with their notes, and what synthesis was unsure about. */
export function Plan({ definition }: { definition: any }) {
  const steps: any[] = Array.isArray(definition?.steps) ? definition.steps : [];
  const login: any[] = Array.isArray(definition?.login?.steps) ? definition.login.steps : [];
  const warnings: string[] = definition?.meta?.warnings ?? [];
  const validation = definition?.meta?.validation;
  return (
    <div class="plan">
      <p>
        Engine: <strong>{definition?.engine ?? '?'}</strong>
        {validation && (
          <>
            {' '}
            · {validation.replayed ? 'validated by a replay' : 'not replayed'}
            {validation.reason ? ` (${validation.reason})` : ''}
          </>
        )}
      </p>
      {warnings.length > 0 && (
        <div class="state warn">
          <h4>Warnings</h4>
          <ul>
            {warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </div>
      )}
      {login.length > 0 && (
        <>
          <h4>Sign-in steps{definition.login.slot ? ` (secret slot ${definition.login.slot})` : ''}</h4>
          {definition.login.note && <p class="note">{definition.login.note}</p>}
          <Steps steps={login} />
        </>
      )}
      {steps.length > 0 && (
        <>
          <h4>Steps</h4>
          <Steps steps={steps} />
        </>
      )}
    </div>
  );
}

function Steps({ steps }: { steps: any[] }) {
  return (
    <ol class="steps">
      {steps.map((s, i) => (
        <li key={s.id ?? i}>
          <strong>{s.id ?? s.action ?? s.kind ?? `step ${i + 1}`}</strong>{' '}
          {s.request || s.method ? (
            <code>
              {s.request?.method ?? s.method ?? 'GET'} {s.request?.url ?? s.url}
            </code>
          ) : s.url ? (
            <code>{s.url}</code>
          ) : s.selector ? (
            <code>{s.selector}</code>
          ) : null}
          {s.note && <div class="note">{s.note}</div>}
        </li>
      ))}
    </ol>
  );
}

/** Two versions side by side as a line diff of their schemas and definitions. */
export function VersionDiff({ id, versions, initialTo }: { id: string; versions: number[]; initialTo: number }) {
  const [from, setFrom] = useState(Math.max(1, initialTo - 1));
  const [to, setTo] = useState(initialTo);
  const p = { id, versions, from, to, setFrom, setTo };
  const diff = useAsync(async () => {
    const get = (v: number) => api<{ definition: unknown }>('GET', `/connectors/${p.id}/definition${qs({ version: v })}`);
    const revs = await api<{ data: Connector[] }>('GET', `/connectors/${p.id}/revisions`);
    const pick = (v: number) => {
      const r = revs.data.find((x) => x.version === v);
      return r ? { input_schema: r.input_schema, output_schema: r.output_schema, required_secrets: r.required_secrets } : {};
    };
    const [a, b] = await Promise.all([get(p.from), get(p.to)]);
    const text = (d: unknown, v: number) => JSON.stringify({ ...pick(v), definition: stripVolatile(d) }, null, 2);
    return lineDiff(text(a.definition, p.from), text(b.definition, p.to));
  }, [p.id, p.from, p.to]);
  const opt = (v: number) => (
    <option key={v} value={v}>
      v{v}
    </option>
  );
  return (
    <div class="diff-box">
      <h3>Compare versions</h3>
      <div class="filters">
        <div class="field inline">
          <label for="diff-from">From</label>
          <select id="diff-from" value={p.from} onChange={(e) => p.setFrom(Number(e.currentTarget.value))}>
            {p.versions.map(opt)}
          </select>
        </div>
        <div class="field inline">
          <label for="diff-to">To</label>
          <select id="diff-to" value={p.to} onChange={(e) => p.setTo(Number(e.currentTarget.value))}>
            {p.versions.map(opt)}
          </select>
        </div>
      </div>
      {diff.loading && <Loading what="Comparing" />}
      <ErrorBox error={diff.error} retry={diff.reload} />
      {diff.data &&
        (diff.data.every((l) => l.kind === ' ' || l.kind === '…') ? (
          <p class="muted">The two versions are the same.</p>
        ) : (
          <Scroll label={`Changes from v${p.from} to v${p.to}`}>
            <pre class="diff">
              {diff.data.map((l, i) => (
                <span key={i} class={l.kind === '+' ? 'add' : l.kind === '-' ? 'del' : l.kind === '…' ? 'gap' : ''}>
                  {l.kind === '+' ? <span class="sr-only">added: </span> : l.kind === '-' ? <span class="sr-only">removed: </span> : null}
                  {l.kind === '…' ? '  …' : `${l.kind} ${l.text}`}
                  {'\n'}
                </span>
              ))}
            </pre>
          </Scroll>
        ))}
    </div>
  );
}

/** Provenance, ids and timings differ in every synthesis and would bury the real changes. */
const VOLATILE = new Set(['provenance', 'recording_file_id', 'capture_session_id', 'synthesized_at', 'generated_at', 'ms']);
function stripVolatile(d: unknown): unknown {
  if (Array.isArray(d)) return d.map(stripVolatile);
  if (!d || typeof d !== 'object') return d;
  return Object.fromEntries(
    Object.entries(d)
      .filter(([k]) => !VOLATILE.has(k))
      .map(([k, v]) => [k, stripVolatile(v)]),
  );
}
