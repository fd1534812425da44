// Record a connector (or a new revision of one): describe the task, work in the embedded live
// view of a capture session (paste stored secrets into the focused field), complete, synthesize
// with hints, review what synthesis proposes (arguments, secret slots, result schema, a preview
// run, the plan's steps and warnings), adjust and synthesize again, publish.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type CaptureSession, type Connector, type Secret, api, qs } from '../api.js';
import { useAsync, useInterval } from '../hooks.js';
import { go, href } from '../router.js';
import { ErrorBox, Json, Loading, ProblemList, Title } from '../ui.js';
import { Plan, RunForm, VersionDiff } from './connector.js';

type Step = 'describe' | 'live' | 'completing' | 'hints' | 'synthesizing' | 'review';
interface Hints {
  args: string;
  result: string;
  notes: string;
  prefer_browser: boolean;
  allow_side_effects: boolean;
  allow_empty_result: boolean;
}
const STEPS: [Step[], string][] = [
  [['describe'], 'Describe'],
  [['live', 'completing'], 'Record'],
  [['hints', 'synthesizing'], 'Synthesize'],
  [['review'], 'Review and publish'],
];

export function RecordPage({ connectorId }: { connectorId?: string }) {
  const base = useAsync(
    () => (connectorId ? api<Connector>('GET', `/connectors/${encodeURIComponent(connectorId)}`) : Promise.resolve(null)),
    [connectorId],
  );
  const [step, setStep] = useState<Step>('describe');
  const [task, setTask] = useState({ name: '', purpose: '', website: '' });
  const [session, setSession] = useState<CaptureSession | null>(null);
  const [pasted, setPasted] = useState<string[]>([]);
  const [hints, setHints] = useState<Hints>({
    args: '',
    result: '',
    notes: '',
    prefer_browser: false,
    allow_side_effects: false,
    allow_empty_result: false,
  });
  const [proposal, setProposal] = useState<Connector | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [published, setPublished] = useState(false);
  useEffect(() => {
    if (base.data) setTask({ name: base.data.display_name, purpose: base.data.purpose, website: base.data.website ?? '' });
  }, [base.data]);

  const start = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const url = task.website.trim();
      const startUrl = url && !/^https?:\/\//i.test(url) ? `https://${url}` : url;
      setSession(await api<CaptureSession>('POST', '/capture_sessions', startUrl ? { start_url: startUrl } : {}));
      setStep('live');
    } catch (err) {
      setError(err);
    }
  };
  const complete = async () => {
    if (!session) return;
    setError(null);
    try {
      setSession(await api<CaptureSession>('POST', `/capture_sessions/${session.id}/complete`));
      setStep('completing');
    } catch (err) {
      setError(err);
    }
  };
  const abandon = async () => {
    if (!session) return;
    try {
      await api('POST', `/capture_sessions/${session.id}/abandon`);
    } catch {
      /* gone already: nothing to keep */
    }
    setSession(null);
    setPasted([]);
    setStep('describe');
  };
  // While completing: until the recording is stored. While live: notice a session that ended by itself.
  useInterval(
    async () => {
      if (!session) return;
      try {
        const s = await api<CaptureSession>('GET', `/capture_sessions/${session.id}`);
        setSession(s);
        if (s.state === 'completed') setStep('hints');
        else if (s.state !== 'active' && s.state !== 'completing') setError(new Error(`The capture session ended: ${s.state}.`));
      } catch (err) {
        setError(err);
      }
    },
    step === 'completing' ? 700 : 5000,
    step === 'completing' || step === 'live',
  );

  const synthesize = async (e: Event) => {
    e.preventDefault();
    if (!session) return;
    setError(null);
    setStep('synthesizing');
    const body = { capture_session_id: session.id, hints: hintsBody(hints) };
    try {
      let c: Connector;
      if (connectorId) c = await api<Connector>('POST', `/connectors/${connectorId}/revisions`, body);
      else {
        // Synthesizing again replaces the proposal not yet published.
        if (proposal) await api('DELETE', `/connectors/${proposal.id}`).catch(() => {});
        c = await api<Connector>('POST', '/connectors', { display_name: task.name, purpose: task.purpose, ...body });
      }
      setProposal(c);
      setStep('review');
    } catch (err) {
      setError(err);
      setStep('hints');
    }
  };
  const discard = async () => {
    if (proposal && !connectorId) await api('DELETE', `/connectors/${proposal.id}`).catch(() => {});
    setProposal(null);
    setSession(null);
    setStep('describe');
  };

  if (connectorId && base.loading) return <Loading what="Loading the connector" />;
  if (base.error) return <ErrorBox error={base.error} retry={base.reload} />;
  const current = STEPS.findIndex(([s]) => s.includes(step));
  return (
    <>
      <Title>{connectorId ? `Record again: ${base.data?.display_name}` : 'Record a connector'}</Title>
      <ol class="stepper" aria-label="Steps">
        {STEPS.map(([, label], i) => (
          <li key={label} class={i === current ? 'now' : i < current ? 'done' : ''} aria-current={i === current ? 'step' : undefined}>
            {label}
          </li>
        ))}
      </ol>
      {/* Synthesis problems are listed in the hints form itself. */}
      {!(step === 'hints' && error instanceof ApiError && error.status === 422) && <ErrorBox error={error} />}
      {step === 'describe' && (
        <form class="panel narrow" onSubmit={start}>
          <p>
            {connectorId
              ? 'Do the task again on the website. The new recording becomes the next version of this connector.'
              : 'Say what the connector is for, then do the task once in the browser below: every click and request is recorded.'}
          </p>
          <div class="field">
            <label for="task-name">Name</label>
            <input
              id="task-name"
              required
              disabled={!!connectorId}
              value={task.name}
              onInput={(e) => setTask({ ...task, name: e.currentTarget.value })}
            />
          </div>
          <div class="field">
            <label for="task-purpose">Purpose</label>
            <textarea
              id="task-purpose"
              required
              rows={2}
              disabled={!!connectorId}
              aria-describedby="task-purpose-help"
              value={task.purpose}
              onInput={(e) => setTask({ ...task, purpose: e.currentTarget.value })}
            />
            <p class="help" id="task-purpose-help">
              What it does, in a sentence: “Search the shop's catalogue by a query”.
            </p>
          </div>
          <div class="field">
            <label for="task-website">Website (the page to start on)</label>
            <input
              id="task-website"
              type="url"
              placeholder="https://shop.example.com/login"
              value={task.website}
              onInput={(e) => setTask({ ...task, website: e.currentTarget.value })}
            />
          </div>
          <button type="submit" class="primary" disabled={!task.name.trim() || !task.purpose.trim()}>
            Start recording
          </button>
        </form>
      )}
      {(step === 'live' || step === 'completing') && session && (
        <LiveStep
          session={session}
          completing={step === 'completing'}
          onPasted={(id) => setPasted((p) => [...new Set([...p, id])])}
          onComplete={complete}
          onAbandon={abandon}
        />
      )}
      {(step === 'hints' || step === 'synthesizing') && (
        <form class="panel narrow" onSubmit={synthesize}>
          <h2>What should synthesis know?</h2>
          <p class="muted">
            All optional. What you typed becomes arguments and pasted secrets become secret slots by themselves; hints rename or add to
            that.
          </p>
          {error instanceof ApiError && error.status === 422 && (
            <div class="state error" role="alert">
              <p>Synthesis could not make a connector from this recording:</p>
              <ProblemList problems={error.problems} />
            </div>
          )}
          <HintsFields hints={hints} setHints={setHints} />
          <button type="submit" class="primary" disabled={step === 'synthesizing'}>
            {step === 'synthesizing' ? 'Synthesizing and replaying…' : proposal ? 'Synthesize again' : 'Synthesize'}
          </button>
          {step === 'synthesizing' && <Loading what="Synthesizing, then replaying the plan to check it works" />}
        </form>
      )}
      {step === 'review' && proposal && (
        <Review
          proposal={proposal}
          revision={!!connectorId}
          published={published}
          pasted={pasted}
          onAdjust={() => setStep('hints')}
          onPublish={() => {
            setPublished(true);
            go(`/connectors/${encodeURIComponent(proposal.id)}`);
          }}
          onDiscard={discard}
        />
      )}
    </>
  );
}

function hintsBody(h: Hints) {
  const args: Record<string, string | number | boolean> = {};
  for (const line of h.args.split('\n')) {
    const i = line.indexOf('=');
    if (i <= 0) continue;
    const v = line.slice(i + 1).trim();
    args[line.slice(0, i).trim()] = /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
  }
  const result = h.result
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return {
    ...(Object.keys(args).length ? { arguments: args } : {}),
    ...(result.length ? { result } : {}),
    ...(h.notes.trim() ? { notes: h.notes.trim() } : {}),
    ...(h.prefer_browser ? { prefer_browser: true } : {}),
    ...(h.allow_side_effects ? { allow_side_effects: true } : {}),
    ...(h.allow_empty_result ? { allow_empty_result: true } : {}),
  };
}

function HintsFields({ hints, setHints }: { hints: Hints; setHints: (h: Hints) => void }) {
  const check = (k: 'prefer_browser' | 'allow_side_effects' | 'allow_empty_result', label: string, help: string) => (
    <div class="field check">
      <input
        id={`hint-${k}`}
        type="checkbox"
        checked={hints[k]}
        aria-describedby={`hint-${k}-help`}
        onChange={(e) => setHints({ ...hints, [k]: e.currentTarget.checked })}
      />
      <label for={`hint-${k}`}>{label}</label>
      <p class="help" id={`hint-${k}-help`}>
        {help}
      </p>
    </div>
  );
  return (
    <>
      <div class="field">
        <label for="hint-args">Arguments</label>
        <textarea
          id="hint-args"
          rows={3}
          placeholder="query = gamma"
          aria-describedby="hint-args-help"
          value={hints.args}
          onInput={(e) => setHints({ ...hints, args: e.currentTarget.value })}
        />
        <p class="help" id="hint-args-help">
          One per line: <code>name = value as you typed it</code>.
        </p>
      </div>
      <div class="field">
        <label for="hint-result">Values you want back</label>
        <textarea
          id="hint-result"
          rows={2}
          aria-describedby="hint-result-help"
          value={hints.result}
          onInput={(e) => setHints({ ...hints, result: e.currentTarget.value })}
        />
        <p class="help" id="hint-result-help">
          One per line, as the page showed them: the result must contain them.
        </p>
      </div>
      <div class="field">
        <label for="hint-notes">Notes</label>
        <textarea id="hint-notes" rows={2} value={hints.notes} onInput={(e) => setHints({ ...hints, notes: e.currentTarget.value })} />
      </div>
      {check('prefer_browser', 'Drive the pages in a browser', 'For sites that refuse plain HTTP clients; slower.')}
      {check(
        'allow_side_effects',
        'The task changes something (creates, sends, buys)',
        'Replays it once to check it, which does it again.',
      )}
      {check('allow_empty_result', 'Publish even if the replay returns no data', 'The problem is listed as a warning instead.')}
    </>
  );
}

function LiveStep(p: {
  session: CaptureSession;
  completing: boolean;
  onPasted: (id: string) => void;
  onComplete: () => void;
  onAbandon: () => void;
}) {
  const secrets = useAsync(() => api<Secret[]>('GET', '/secrets'), []);
  const logins = (secrets.data ?? []).filter((s) => s.secret_type === 'login');
  const [secretId, setSecretId] = useState('');
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>(null);
  const chosen = logins.find((s) => s.id === secretId) ?? (logins.length === 1 ? logins[0] : undefined);
  // Pick mode ("pick what you want back", docs/live-view.md): commands go to the live view's
  // window at its origin; its events are believed only from that window and origin.
  const frame = useRef<HTMLIFrameElement>(null);
  const [picking, setPicking] = useState(false);
  const [picked, setPicked] = useState<string[]>([]);
  const liveOrigin = p.session.iframe_url ? new URL(p.session.iframe_url, location.href).origin : null;
  const liveSrc = p.session.iframe_url
    ? `${p.session.iframe_url}${p.session.iframe_url.includes('?') ? '&' : '?'}parent_origin=${encodeURIComponent(location.origin)}`
    : null;
  useEffect(() => {
    const onMessage = (e: MessageEvent) => {
      if (e.origin !== liveOrigin || e.source !== frame.current?.contentWindow) return;
      const m = e.data as { source?: string; type?: string; on?: boolean; text?: string | null };
      if (m?.source !== 'connector-live-view') return;
      if (m.type === 'pick_mode') setPicking(!!m.on);
      if (m.type === 'pick') {
        setPicked((xs) => [...xs, m.text ?? '(a field without its value)']);
        setNote(`Picked: ${m.text ?? '(a field without its value)'}`);
      }
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [liveOrigin]);
  const setPickMode = (on: boolean) => {
    setPicking(on);
    if (liveOrigin) frame.current?.contentWindow?.postMessage({ type: 'pick', on }, liveOrigin);
  };
  const paste = async (field: 'username' | 'password' | 'totp') => {
    if (!chosen) return;
    setError(null);
    try {
      await api('POST', `/capture_sessions/${p.session.id}/paste`, { field, secret_id: chosen.id });
      p.onPasted(chosen.id);
      setNote(`Pasted the ${field === 'totp' ? 'current TOTP code' : field} of ${chosen.name} into the focused field.`);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-label="Recording">
      <div class="live-tools">
        <div class="field inline">
          <label for="paste-secret">Paste from</label>
          <select id="paste-secret" value={chosen?.id ?? ''} onChange={(e) => setSecretId(e.currentTarget.value)} disabled={p.completing}>
            {logins.length !== 1 && (
              <option value="">{secrets.loading ? 'Loading…' : logins.length ? 'Choose a login…' : 'No login secrets'}</option>
            )}
            {logins.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </div>
        <div class="button-group">
          <button type="button" disabled={!chosen || p.completing} onClick={() => paste('username')}>
            Paste username
          </button>
          <button type="button" disabled={!chosen || p.completing} onClick={() => paste('password')}>
            Paste password
          </button>
          <button type="button" disabled={!chosen?.has_totp || p.completing} onClick={() => paste('totp')}>
            Paste TOTP code
          </button>
        </div>
        <div class="field check">
          <input
            id="pick-mode"
            type="checkbox"
            checked={picking}
            disabled={p.completing}
            aria-describedby="pick-mode-help"
            onChange={(e) => setPickMode(e.currentTarget.checked)}
          />
          <label for="pick-mode">Pick what you want back</label>
          <span class="help" id="pick-mode-help">
            {picked.length ? `${picked.length} picked` : 'click a value, or shift-click a row'}
          </span>
        </div>
        <div class="button-group end">
          <button type="button" class="quiet" onClick={p.onAbandon} disabled={p.completing}>
            Abandon
          </button>
          <button type="button" class="primary" onClick={p.onComplete} disabled={p.completing}>
            {p.completing ? 'Saving the recording…' : 'Done: complete the recording'}
          </button>
        </div>
      </div>
      <p class="muted small" role="status">
        {note || 'Click into a field of the page, then paste: the value goes from the vault to the page, never through this browser.'}
      </p>
      <ErrorBox error={error} />
      {/* The box keeps its size whether the live view is there yet or not: nothing below it moves. */}
      <div class="live-box">
        {p.session.iframe_url && !p.completing ? (
          <iframe ref={frame} title="Live view of the remote browser" src={liveSrc ?? undefined} />
        ) : (
          <Loading what={p.completing ? 'Saving the recording' : 'Starting the browser'} />
        )}
      </div>
    </section>
  );
}

function Review(p: {
  proposal: Connector;
  revision: boolean;
  published: boolean;
  pasted: string[];
  onAdjust: () => void;
  onPublish: () => void;
  onDiscard: () => void;
}) {
  const c = p.proposal;
  const def = useAsync(
    () => api<{ definition: any }>('GET', `/connectors/${c.id}/definition${qs({ version: c.version })}`),
    [c.id, c.version],
  );
  const props = Object.entries<any>((c.input_schema as any).properties ?? {});
  const required: string[] = (c.input_schema as any).required ?? [];
  return (
    <div class="review">
      <section class="panel" aria-labelledby="proposal-title">
        <h2 id="proposal-title">What synthesis proposes</h2>
        <p class="muted">
          Synthesis replayed the plan and stored it as version {c.version}
          {p.revision ? ' of this connector' : ''} so it can be tried here. Publish keeps it;
          {p.revision ? ' a recording again makes a further version.' : ' Discard deletes it.'}
        </p>
        <h3>Arguments</h3>
        {props.length === 0 ? (
          <p class="muted">None: the connector always does the same thing.</p>
        ) : (
          <table class="data">
            <caption class="sr-only">Arguments</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Example (as recorded)</th>
                <th scope="col">Required</th>
              </tr>
            </thead>
            <tbody>
              {props.map(([k, s]) => (
                <tr key={k}>
                  <td>
                    <code>{k}</code>
                  </td>
                  <td>{Array.isArray(s.type) ? s.type.join(' | ') : (s.type ?? 'any')}</td>
                  <td>{s.examples?.length ? JSON.stringify(s.examples[0]) : s.default !== undefined ? JSON.stringify(s.default) : '—'}</td>
                  <td>{required.includes(k) ? 'yes' : 'no'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <h3>Secret slots</h3>
        {c.required_secrets.length === 0 ? (
          <p class="muted">None.</p>
        ) : (
          <ul>
            {c.required_secrets.map((s) => (
              <li key={s.name}>
                <code>{s.name}</code>: {s.type}
                {s.supports_totp ? ' with TOTP' : ''}
                {s.description ? ` — ${s.description}` : ''}
              </li>
            ))}
          </ul>
        )}
        <details>
          <summary>Result schema</summary>
          <Json value={c.output_schema} label="Result schema" />
        </details>
        <h3>Plan</h3>
        {def.loading && <Loading what="Loading the plan" />}
        <ErrorBox error={def.error} retry={def.reload} />
        {def.data && <Plan definition={def.data.definition} />}
        {p.revision && c.version > 1 && (
          <VersionDiff id={c.id} versions={Array.from({ length: c.version }, (_, i) => c.version - i)} initialTo={c.version} />
        )}
        <div class="button-group">
          <button type="button" class="primary" onClick={p.onPublish}>
            Publish
          </button>
          <button type="button" onClick={p.onAdjust}>
            Adjust hints and synthesize again
          </button>
          {!p.revision && (
            <button type="button" class="quiet" onClick={p.onDiscard}>
              Discard
            </button>
          )}
          <a class="button quiet" href={href('connectors', c.id)}>
            Open the connector
          </a>
        </div>
      </section>
      <RunForm connector={c} examples preferSecrets={p.pasted} title="Preview the result" key={`${c.id}:${c.version}`} />
    </div>
  );
}
