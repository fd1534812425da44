// The console's entry: sign-in gate, header navigation, hash routes. Every page is a client of
// the public API (./api.ts); nothing here imports server code.
import './style.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { session, setUnauthorizedHandler } from './api.js';
import { useRoute } from './router.js';
import { SignIn } from './pages/signin.js';
import { ConnectorsPage } from './pages/connectors.js';
import { ConnectorPage } from './pages/connector.js';
import { RecordPage } from './pages/record.js';
import { RunsPage, RunPage } from './pages/runs.js';
import { FilesPage } from './pages/files.js';
import { SecretsPage } from './pages/secrets.js';
import { TasksPage } from './pages/tasks.js';
import { Title } from './ui.js';

const NAV: [string, string][] = [
  ['connectors', 'Connectors'],
  ['record', 'Record'],
  ['runs', 'Runs'],
  ['files', 'Files'],
  ['secrets', 'Secrets'],
  ['tasks', 'Tasks'],
];

function Page({ route }: { route: string[] }) {
  const [a, b, c] = route;
  switch (a) {
    case undefined:
    case 'connectors':
      if (b && c === 'record') return <RecordPage connectorId={b} />;
      return b ? <ConnectorPage id={b} /> : <ConnectorsPage />;
    case 'record':
      return <RecordPage />;
    case 'runs':
      return b ? <RunPage id={b} /> : <RunsPage />;
    case 'files':
      return <FilesPage />;
    case 'secrets':
      return <SecretsPage />;
    case 'tasks':
      return <TasksPage />;
    default:
      return (
        <>
          <Title>Page not found</Title>
          <p>
            There is no page at <code>#{location.hash.slice(1)}</code>. <a href="#/connectors">Go to connectors</a>.
          </p>
        </>
      );
  }
}

function App() {
  const route = useRoute();
  const [key, setKey] = useState(session.key());
  const [expired, setExpired] = useState(false);
  useEffect(() => {
    setUnauthorizedHandler(() => {
      session.clear();
      setExpired(true);
      setKey(null);
    });
  }, []);
  if (!key)
    return (
      <SignIn
        expired={expired}
        onSignedIn={(k) => {
          session.set(k);
          setExpired(false);
          setKey(k);
        }}
      />
    );
  const section = route[0] === 'connectors' && route[2] === 'record' ? 'record' : (route[0] ?? 'connectors');
  return (
    <>
      <button type="button" class="skip" onClick={() => document.getElementById('main')?.focus()}>
        Skip to content
      </button>
      <header class="top">
        <span class="brand">Connector Service</span>
        <nav aria-label="Main">
          <ul>
            {NAV.map(([id, label]) => (
              <li key={id}>
                <a href={`#/${id}`} aria-current={section === id ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button
          type="button"
          class="quiet"
          onClick={() => {
            session.clear();
            setKey(null);
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1} key={route.join('/')}>
        <Page route={route} />
      </main>
    </>
  );
}

const root = document.getElementById('app')!;
root.textContent = ''; // the "Loading the console…" placeholder of the HTML page
render(<App />, root);
