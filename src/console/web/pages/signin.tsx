import { useState } from 'preact/hooks';
import { ApiError, api } from '../api.js';

/** Sign-in with an API key, checked against the API; kept in sessionStorage only. */
export function SignIn({ onSignedIn, expired }: { onSignedIn: (key: string) => void; expired: boolean }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await api('GET', '/connectors?limit=1', undefined, key.trim());
      onSignedIn(key.trim());
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? 'That key was not accepted (unknown or revoked).' : (err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin" id="main">
      <h1>Connector Service</h1>
      <p>Sign in with an API key. It stays in this browser tab only and is forgotten when the tab closes.</p>
      {expired && (
        <p class="state error" role="alert">
          Your key is no longer accepted. Sign in again.
        </p>
      )}
      <form onSubmit={submit}>
        <div class={`field${error ? ' invalid' : ''}`}>
          <label for="api-key">API key</label>
          <input
            id="api-key"
            type="password"
            autoComplete="off"
            spellcheck={false}
            required
            value={key}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={error ? 'api-key-err' : 'api-key-help'}
            onInput={(e) => setKey(e.currentTarget.value)}
          />
          <p class="help" id="api-key-help">
            The first start of the service prints one (<code>csk_…</code>); <code>npm run cli -- keys create --user &lt;id&gt;</code> makes
            more.
          </p>
          {error && (
            <p class="field-error" id="api-key-err" role="alert">
              {error}
            </p>
          )}
        </div>
        <button type="submit" class="primary" disabled={busy || !key.trim()}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
