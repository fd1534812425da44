import { useState } from 'preact/hooks';
import { ApiError, type Problem, type Secret, api, fieldErrors } from '../api.js';
import { useAsync } from '../hooks.js';
import { Empty, ErrorBox, Loading, ProblemList, Title, When } from '../ui.js';

type Kind = 'login' | 'string';
const EMPTY = { name: '', username: '', password: '', totp_secret: '', value: '' };

/** Create, list and delete secrets. Values go in once and never come back; TOTP codes on demand. */
export function SecretsPage() {
  const list = useAsync(() => api<Secret[]>('GET', '/secrets'), []);
  const [kind, setKind] = useState<Kind>('login');
  const [form, setForm] = useState(EMPTY);
  const [errors, setErrors] = useState<{ fields: Record<string, string>; rest: Problem[] }>({ fields: {}, rest: [] });
  const [failure, setFailure] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState('');
  const [codes, setCodes] = useState<Record<string, string>>({});
  const [rowError, setRowError] = useState<unknown>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setFailure(null);
    setCreated('');
    setErrors({ fields: {}, rest: [] });
    const body =
      kind === 'login'
        ? { name: form.name, secret_type: 'login', username: form.username, password: form.password, totp_secret: form.totp_secret || null }
        : { name: form.name, secret_type: 'string', value: form.value };
    try {
      const s = await api<Secret>('POST', '/secrets', body);
      setForm(EMPTY); // the values leave the page as soon as the service has them
      setCreated(s.name);
      list.reload();
    } catch (err) {
      if (err instanceof ApiError && err.status === 422) {
        const f = fieldErrors(err.problems, ['body']);
        setErrors(f);
        const first = Object.keys(f.fields)[0];
        if (first) document.getElementById(`secret-${first}`)?.focus();
      } else setFailure(err);
    } finally {
      setBusy(false);
    }
  };
  const totp = async (s: Secret) => {
    setRowError(null);
    try {
      const r = await api<{ code: string }>('POST', `/secrets/${s.id}/totp`);
      setCodes((c) => ({ ...c, [s.id]: r.code }));
    } catch (err) {
      setRowError(err);
    }
  };
  const remove = async (s: Secret) => {
    if (!confirm(`Delete the secret ${s.name}? Connectors bound to it will fail to run.`)) return;
    setRowError(null);
    try {
      await api('DELETE', `/secrets/${s.id}`);
      list.reload();
    } catch (err) {
      setRowError(err);
    }
  };
  const field = (name: keyof typeof EMPTY, label: string, props: Record<string, unknown> = {}, help?: string) => {
    const id = `secret-${name}`;
    const err = errors.fields[name];
    return (
      <div class={`field${err ? ' invalid' : ''}`}>
        <label for={id}>{label}</label>
        <input
          id={id}
          autoComplete="off"
          value={form[name]}
          aria-invalid={err ? 'true' : undefined}
          aria-describedby={[help ? `${id}-help` : '', err ? `${id}-err` : ''].filter(Boolean).join(' ') || undefined}
          onInput={(e) => setForm((f) => ({ ...f, [name]: e.currentTarget.value }))}
          {...props}
        />
        {help && (
          <p class="help" id={`${id}-help`}>
            {help}
          </p>
        )}
        {err && (
          <p class="field-error" id={`${id}-err`}>
            {err}
          </p>
        )}
      </div>
    );
  };
  return (
    <>
      <Title>Secrets</Title>
      <p class="lead">
        Logins and other values connectors need. The service keeps them encrypted; nobody can read them back, not even here.
      </p>
      <div class="columns">
        <section class="panel" aria-labelledby="new-secret">
          <h2 id="new-secret">New secret</h2>
          <form onSubmit={submit} noValidate>
            <fieldset class="radios">
              <legend>Kind</legend>
              <label>
                <input type="radio" name="kind" checked={kind === 'login'} onChange={() => setKind('login')} /> Login (username and
                password)
              </label>
              <label>
                <input type="radio" name="kind" checked={kind === 'string'} onChange={() => setKind('string')} /> A single value (token,
                key)
              </label>
            </fieldset>
            {field('name', 'Name', { required: true })}
            {kind === 'login' ? (
              <>
                {field('username', 'Username', { required: true })}
                {field('password', 'Password', { type: 'password', required: true })}
                {field(
                  'totp_secret',
                  'TOTP seed (optional)',
                  { spellcheck: false },
                  'The base32 key behind a two-factor app (often shown as "enter this key manually").',
                )}
              </>
            ) : (
              field('value', 'Value', { type: 'password', required: true })
            )}
            {errors.rest.length > 0 && (
              <div class="state error" role="alert">
                <ProblemList problems={errors.rest} />
              </div>
            )}
            <ErrorBox error={failure} />
            {created && (
              <p class="ok" role="status">
                Saved “{created}”.
              </p>
            )}
            <button type="submit" class="primary" disabled={busy}>
              {busy ? 'Saving…' : 'Save secret'}
            </button>
          </form>
        </section>
        <section class="panel" aria-labelledby="your-secrets">
          <h2 id="your-secrets">Your secrets</h2>
          {list.loading && <Loading what="Loading secrets" />}
          <ErrorBox error={list.error} retry={list.reload} />
          <ErrorBox error={rowError} />
          {list.data && list.data.length === 0 && (
            <Empty>
              <p>No secrets yet.</p>
            </Empty>
          )}
          {list.data && list.data.length > 0 && (
            <ul class="secret-list">
              {list.data.map((s) => (
                <li key={s.id}>
                  <div>
                    <strong>{s.name}</strong>{' '}
                    <span class="muted small">
                      {s.secret_type}
                      {s.has_totp ? ' · TOTP' : ''} · added <When at={s.created_at} />
                    </span>
                    {codes[s.id] && (
                      <div aria-live="polite">
                        Current code: <code class="totp">{codes[s.id]}</code>
                      </div>
                    )}
                  </div>
                  <div class="row-actions">
                    {s.has_totp && (
                      <button type="button" onClick={() => totp(s)} aria-label={`Show the current TOTP code of ${s.name}`}>
                        TOTP code
                      </button>
                    )}
                    <button type="button" class="quiet" onClick={() => remove(s)} aria-label={`Delete ${s.name}`}>
                      Delete
                    </button>
                  </div>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
    </>
  );
}
