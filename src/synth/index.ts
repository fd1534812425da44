// The synthesizer: a recording (capture-session HAR or plain HAR) + hints → a connector-definition/v1
// http plan with input/output schemas and secret slots. Pure: no I/O; secret values arrive
// resolved in `secretValues` and never leave (checked before returning).
import type { Har } from '../formats/recording/types.js';
import { makeAjv } from '../lib/json-schema.js';
import type { ConnectorDefinition, Extractor, HttpDefinition, HttpStep, SecretSlot } from '../formats/definition/types.js';
import { validateDefinition } from '../formats/definition/validate.js';
import { deterministicAdvisor, type SynthAdvisor } from './advisor.js';
import { diffRecordings } from './diff.js';
import { buildStep } from './emit.js';
import { loginPageMarkers } from './html-extract.js';
import { browserFallback, downloadFallback } from './fallback.js';
import { withParsedPages } from './html-load.js';
import { buildBrowserPlan } from './browser-plan.js';
import { filterNoise } from './noise.js';
import { choicesOf, withChoices } from './choices.js';
import { isHtml, isRead, normalize } from './normalize.js';
import { bareId, buildOutput, outputMissing, outputValues } from './output.js';
import { looseWriteAnswer, type Schema } from './schema-infer.js';
import { allNeedles, PASSWORD_FIELD, pagePasswordFields, planSecrets, type SecretPlan } from './secrets.js';
import { detectPaging, scoreTargets, type Candidate } from './target.js';
import { traceChain } from './trace.js';
import { fileArgSchema, fileArgsOf, nameFileFields, RAW_BODY } from './file-args.js';
import { recordsNamed } from './named-records.js';
import { namedListPaging } from './named-list-paging.js';
import { isFormBody, isManagedHeader, parseJson, requestSlots } from './slots.js';
import { type ArgValue, needlesForField, type SecretNeedle } from './substitute.js';
import { secretsPattern } from '../lib/secret-forms.js';
import { SynthError, type Exchange, type Hints, type RecordedSecrets, type Recording, type SecretValues } from './types.js';
import { argumentValues, findDetail, flatValues, isPlainObject, landing, lastActionTime, listEntries, prefixed } from './facts.js';
import { encodings, preview } from './values.js';
import { argType, fractionalFields } from './arg-types.js';
import { safeDecode } from './producers.js';
import { pickDecision, pickedResultValues, pickPreference, picksOf } from './picks.js';

export const SYNTH_VERSION = 'synth/1.0';

export interface SynthInput {
  recording: Har;
  /** A second recording of the same flow (revisions): separates constants from dynamic values. */
  previous?: Har | null;
  hints?: Hints;
  secretValues?: SecretValues;
  purpose?: string;
  source?: { capture_session_id?: string; recording_file_id?: string };
  advisor?: SynthAdvisor;
  now?: () => Date;
  /** Use the browser fallback even where HTTP replay works (benchmarks, anti-bot sites). */
  forceBrowser?: boolean;
  /** Why the browser is forced (meta.decisions.engine.why), e.g. the HTTP plan did not replay. */
  browserReason?: string;
  /** Receives credentials typed by hand in the recording, for a replay; they are never part of the result. */
  onRecordedSecrets?: (s: RecordedSecrets) => void;
}

export interface SynthResult {
  definition: ConnectorDefinition;
  input_schema: Schema;
  output_schema: Schema;
  required_secrets: SecretSlot[];
  /**
   * The files the recording uploaded, by argument (text files only: a binary one's bytes are not
   * recorded), for the replay to send in their place. Never part of the published connector.
   */
  recorded_files: Record<string, { name: string; contentType: string; data: Buffer }>;
  report: {
    targets: { id: string; url: string; score: number; reasons: string[] }[];
    candidates: { id: string; url: string; score: number }[];
    dropped: number;
    warnings: string[];
    /** Exchanges the plan replays, by role. */
    login: string[];
    steps: string[];
    side_effects: boolean;
    /** Present when values are computed in page JS: the plan can't be replayed over HTTP alone. */
    computed: { exchange: string; message: string }[];
    /** A script connector replaced the http plan: a download saved as a file, or a browser for page-JS values. */
    fallback: 'download-script' | 'browser' | null;
    /** Slot → stored secret id the recording used (hints.secrets, pasted secrets). */
    secret_ids: Record<string, string>;
    /** The output's extractors find data on the recorded target response (the replay must too). */
    recorded_data: boolean;
  };
}

export function synthesize(inp: SynthInput): SynthResult {
  return withParsedPages(() => synthesizeNow(inp));
}

function synthesizeNow(inp: SynthInput): SynthResult {
  const hints = inp.hints ?? {};
  const advisor = inp.advisor ?? deterministicAdvisor;
  const purpose = inp.purpose ?? '';
  let rec: Recording;
  try {
    rec = normalize(inp.recording);
  } catch (e) {
    throw new SynthError([{ stage: 'read', message: (e as Error).message }]);
  }
  const noise = filterNoise(rec.exchanges);
  const xs = noise.kept;
  if (!xs.length)
    throw new SynthError([
      {
        stage: 'noise',
        message: `the recording has no request that could be a target (${noise.dropped.length} static/analytics/failed requests only)`,
      },
    ]);
  const warnings: string[] = [];
  const secrets = planSecrets(rec, xs, hints, inp.secretValues ?? {});
  // (A choice given as the label a person reads in a drop-down is matched by the code the site sent.)
  // (A sign-in typed by hand — not pasted — is the login's, never an argument of the task.)
  const typed = listEntries(argumentValues(rec, hints, advisor, purpose), xs, (x) => requestSlots(x).map((s) => s.value));
  const given = withoutCredentials(typed, hints, inp.secretValues ?? {}, secrets);
  const choices = choicesOf(xs, given);
  const args = given.map((a) => (choices.has(a.name) ? { ...a, example: choices.get(a.name)!.code } : a));
  // What a request sends of its own: cookies are state the server handed out (a session cookie
  // may hold the username, e.g. `user|expiry|hmac`), replayed by the engine's jar, so a request
  // is not login traffic for sending one back.
  const sent = (x: Exchange) => JSON.stringify([x.url, x.body?.text, x.body?.params, x.reqHeaders.filter((h) => !isManagedHeader(h.name))]);
  // A credential only in a header (`Authorization: Basic …`, an API key) goes with every request
  // to the site: that makes no request a sign-in step. A login sends its secret in the URL or body.
  const sentOutsideHeaders = (x: Exchange) => JSON.stringify([x.url, x.body?.text, x.body?.params]);
  const carries = (x: Exchange, n: SecretNeedle) =>
    n.key || n.exact
      ? requestSlots(x).some((s) => s.where !== 'header' && needlesForField([n], s).length > 0)
      : n.needle.length >= 2 && sentOutsideHeaders(x).includes(n.needle);
  // A username alone is a login step when it is a field of its own (an identifier-first sign-in);
  // inside a record (a post's `authors[0].email`) it is data about the person, not login traffic.
  const ownField = (x: Exchange, name: string) =>
    requestSlots(x).some((s) => s.value === name && s.where !== 'path' && !(s.where === 'json' && s.key.includes('.')));
  const typedForTask = args.map((a) => a.example).filter((v) => v.length >= 2);
  const sendsTyped = (x: Exchange) => requestSlots(x).some((s) => typedForTask.includes(s.value));
  const carried = new Map(xs.map((x) => [x.id, secrets.needlesFor(x).filter((n) => carries(x, n))]));
  // The requests that send a login's password (or other credential), and those logins' slots:
  // the recording holds a sign-in.
  const credentialsOf = (x: Exchange) => carried.get(x.id)!.filter((n) => n.field !== 'username');
  const signIns = new Set(xs.filter((x) => credentialsOf(x).length > 0).map((x) => x.id));
  const signedIn = new Set(xs.flatMap((x) => credentialsOf(x).map((n) => n.slot)));
  const carriers = new Set(
    xs
      .filter((x) => {
        const mine = carried.get(x.id)!;
        if (signIns.has(x.id) || /\{\{secret:/.test(sent(x))) return true;
        // (A form that sends the account's name beside what the person typed for the task — an
        // admin form's `user=seed` — is the task, not an identifier-first sign-in. Nor is a
        // username in a recording where no request sends that login's password: the browser
        // signed in out of sight, HTTP Basic, and `creator: seed` is data about the person.)
        return mine.some((n) => signedIn.has(n.slot) && ownField(x, n.needle)) && !sendsTyped(x);
      })
      .map((x) => x.id),
  );
  // The files the person chose in the live view (file arguments; a request sending one is the point).
  const chosen = rec.actions.flatMap((a) => (a.type === 'upload' ? a.files : []));
  // What the person picked in the live view counts like hints.result (picks.ts).
  const picks = picksOf(rec);
  const resultValues = [...new Set([...(hints.result === undefined ? [] : flatValues(hints.result)), ...pickedResultValues(picks)])];
  // Where a login POST landed is a candidate of its own (fetched again after the login chain).
  const all = [...xs, ...xs.filter((x) => carriers.has(x.id) && x.hops.length && x.text).map(landing)].sort((a, b) => a.index - b.index);
  let cands = scoreTargets(all, {
    argValues: args.map((a) => a.example.toLowerCase()),
    resultValues,
    secretCarriers: carriers,
    lastActionTime: lastActionTime(rec),
    pickedUrls: picks.map((p) => p.url),
    namedBy: recordsNamed(all, args),
    chosenFiles: chosen,
    sideEffects: hints.allow_side_effects === true,
  });
  cands = advisor.rankTargets(cands, { purpose });
  const best: Candidate | undefined = cands[0];
  // Being the last request is no reason on its own (a session that only opened a sign-in page).
  if (!best || best.score <= 0 || best.evidence <= 0)
    throw new SynthError([
      {
        stage: 'target',
        message: `no request looks like the task's target (best: ${best ? `${best.exchange.method} ${best.exchange.url} scored ${best.score}: ${best.reasons.join('; ')}` : 'none'}); give hints.arguments or hints.result with values that appear in the target request/response`,
      },
    ]);
  let { paging, samples } = detectPaging(best.exchange, all);
  // The person named the page parameter as an argument ({"page": 2}): one page per run, theirs to choose.
  const pageParam = paging?.mode !== 'next_url' && paging?.in !== 'json' ? paging?.param : undefined;
  const pageArg = pageParam
    ? args.find((a) =>
        samples.some((x) => new URL(x.url).searchParams.get(pageParam) === a.example && hints.arguments?.[a.name] !== undefined),
      )
    : undefined;
  if (pageParam && pageArg) {
    samples = [samples.find((x) => new URL(x.url).searchParams.get(pageParam) === pageArg.example)!];
    paging = null;
  }
  const first = samples[0];
  let diff: { constants: Set<string>; dynamics: Set<string> } | undefined;
  if (inp.previous) diff = diffRecordings(xs, filterNoise(normalize(inp.previous).exchanges).kept);
  const detail = paging ? null : findDetail(first, all, carriers);
  // Every request carrying a secret joins the chain (a login may keep state on the server
  // that no value in the traffic shows, e.g. a password step before a TOTP step).
  const loginCarriers = xs.filter((x) => carriers.has(x.id) && x.index < first.index);
  const chain = traceChain({
    all,
    start: [first, ...(detail ? [detail] : []), ...loginCarriers],
    args,
    secrets,
    pagingParam:
      paging && paging.mode !== 'next_url'
        ? {
            exchange: first.id,
            param: paging.param,
            ...(paging.in === 'json' ? { body: paging.mode === 'page' ? 'page.number' : 'page.cursor' } : {}),
          }
        : undefined,
    constants: diff?.constants,
    dynamics: diff?.dynamics,
    signIns,
  });
  warnings.push(...chain.warnings);
  // Files the recording uploaded: the caller's own, named by an argument of format file-id.
  const fileArgs = fileArgsOf(
    [...chain.steps.keys()].flatMap((id) => all.filter((y) => y.id === id)),
    new Set(given.map((a) => a.name)),
    chosen,
  );
  // A request whose body is not in the recording would be replayed empty: say so instead.
  const bodiless = [...chain.steps.keys()].map((id) => all.find((x) => x.id === id)).filter((x) => x?.body?.missing);
  if (bodiless.length) {
    throw new SynthError(
      bodiless.map((x) => ({
        stage: 'read',
        exchange: x!.id,
        message: `${x!.method} ${x!.url} sent a ${x!.body!.mime.split(';')[0]} body that the recording does not hold (browsers record no bytes for form data that carries a file); the connector would post an empty form. Record the upload with a tool that keeps request bodies, or write this step by hand`,
      })),
    );
  }

  // Arguments typed but not found in what the plan replays.
  // (The recording as text once: a single-page app's first page can be megabytes.)
  let recorded: string | undefined;
  for (const a of args) {
    if (chain.usedArgs.has(a.name)) continue;
    recorded ??= JSON.stringify(inp.recording).toLowerCase();
    const anywhere = encodings(a.example).some((e) => recorded!.includes(e.form.toLowerCase()));
    warnings.push(
      `argument ${a.name} (${JSON.stringify(a.example)}) ${anywhere ? 'appears in the recording but not in any request the connector replays' : 'was typed but appears in no request'}; it is not part of the connector`,
    );
  }

  // Split the chain: login sub-chain = secret carriers (login slots) and everything they need.
  const byId = new Map(all.map((x) => [x.id, x]));
  const chainIds = [...chain.steps.keys()].sort((p, q) => byId.get(p)!.index - byId.get(q)!.index);
  const loginSlot = secrets.slots.find((s) => s.type === 'login' && chain.usedSecrets.has(s.name));
  const loginIds = new Set<string>();
  if (loginSlot) {
    const stack = chainIds.filter((id) => carriers.has(id) && id !== first.id);
    while (stack.length) {
      const id = stack.pop()!;
      if (loginIds.has(id)) continue;
      loginIds.add(id);
      for (const d of chain.deps.get(id) ?? []) stack.push(d);
    }
  }
  const typedValues = args.map((a) => a.example);
  const origin = new URL(first.url).origin;
  // The site's other pages (what they share with the target is its template): never the page being
  // read itself, another page of its own list (paging), or the same URL visited again.
  const ownUrls = new Set([first, ...samples].map((x) => x.url.replace(/#.*$/, '')));
  const sitePages = all.filter(
    (x) => !samples.includes(x) && x !== first && x.mime.includes('html') && x.text && new URL(x.url).origin === origin,
  );
  const texts = (xs: Exchange[]) => xs.map((x) => x.text as string).slice(-6);
  // (The record a read's address ends with: `/printers/Orchard_Laser`, the argument typed last.)
  const lastSegment = safeDecode(new URL(first.url).pathname.split('/').filter(Boolean).at(-1) ?? '');
  const named = isRead(first) ? typedValues.find((v) => v.length >= 2 && v.toLowerCase() === lastSegment.toLowerCase()) : undefined;
  const out = buildOutput(samples, !!paging, resultValues, {
    typed: typedValues,
    named,
    prefer: pickPreference(picks),
    otherPages: texts(sitePages.filter((x) => !ownUrls.has(x.url.replace(/#.*$/, '')))),
    write: !isRead(first),
    // (For a write's message, every other page counts: the form's own page, at the same URL, shows none.)
    sitePages: texts(sitePages),
    idSentAs: isRead(first) ? undefined : fieldSentLater(all, first, bareId(first.text)),
  });
  // Never publish an empty promise: a read flow must return data from the page, and every hinted
  // result value must come out of the chosen rule on the recorded response.
  const reads = isRead(first);
  const missing = outputMissing(out, first, resultValues);
  const emptyProblems: string[] = [];
  if (reads && out.kind === 'none')
    emptyProblems.push(
      `the target ${first.method} ${first.url} returns no data the connector could extract (only status and URL); a connector returning a status code is a stub`,
    );
  if (missing.length)
    emptyProblems.push(
      `the result rule (${out.why}) does not produce the hinted result value(s) ${missing.map((m) => JSON.stringify(preview(m))).join(', ')} on the recorded response`,
    );
  if (emptyProblems.length && !hints.allow_empty_result) {
    throw new SynthError(
      emptyProblems.map((m) => ({
        stage: 'output',
        message: `${m}; give hints.result with values the page shows, record the page that shows them, or set hints.allow_empty_result to publish anyway`,
        exchange: first.id,
      })),
    );
  }
  for (const m of emptyProblems) warnings.push(`published with hints.allow_empty_result: ${m}`);
  const detailOut = detail ? prefixed(buildOutput([detail], false, resultValues), 'detail_') : null;
  const targetExtract = new Map<string, Record<string, Extractor>>([
    [first.id, out.extract],
    ...(detail && detailOut ? [[detail.id, detailOut.extract] as [string, Record<string, Extractor>]] : []),
  ]);
  const resultTpl = detailOut
    ? { ...(isPlainObject(out.result) ? (out.result as object) : { data: out.result }), detail: detailOut.result }
    : out.result;
  const outSchema: Schema = detailOut
    ? out.schema.type === 'object' && out.schema.properties && isPlainObject(out.result)
      ? {
          ...out.schema,
          properties: { ...out.schema.properties, detail: detailOut.schema },
          required: [...(out.schema.required ?? []), 'detail'],
        }
      : { type: 'object', properties: { data: out.schema, detail: detailOut.schema }, required: ['data', 'detail'] }
    : out.schema;
  const extractsFor = new Map<string, Record<string, Extractor>>();
  for (const v of chain.vars) {
    const m = extractsFor.get(v.producer) ?? {};
    m[v.name] = {
      ...v.extractor,
      note: `traced: ${v.how}`,
      provenance: {
        entries: [v.producer.replace(/~final$/, '')],
        reason: `the recorded value was sent later; found in this response (${v.how})`,
      },
    };
    extractsFor.set(v.producer, m);
  }
  const provenanceBase = { ...(inp.source ?? {}) };
  const stepIds = new Set<string>();
  const mkStep = (id: string, role: string): HttpStep => {
    const x = byId.get(id)!;
    const path = new URL(x.url).pathname;
    let sid = `${x.method.toLowerCase()}_${
      path
        .split('/')
        .filter(Boolean)
        .filter((s) => !/\d/.test(s))
        .join('_') || 'root'
    }`.replace(/[^\w-]/g, '_');
    for (let i = 2; stepIds.has(sid); i++) sid = `${sid.replace(/_\d+$/, '')}_${i}`;
    stepIds.add(sid);
    const isTarget = id === first.id;
    const extract = { ...(extractsFor.get(id) ?? {}), ...(targetExtract.get(id) ?? {}) };
    const cookies = chain.cookieProducers.get(id);
    const reasons = [role, ...(cookies ? [`sets cookie(s) ${cookies.join(', ')} for later requests (the jar carries them)`] : [])];
    const step: HttpStep = buildStep(x, chain.steps.get(id)!, {
      id: sid,
      baseOrigin: origin,
      extract,
      readBack: chain.readBacks.get(id),
      files: new Map(fileArgs.filter((f) => f.exchange === id && f.pos !== RAW_BODY).map((f) => [f.pos, f.name])),
      rawBody: fileArgs
        .filter((f) => f.exchange === id && f.pos === RAW_BODY)
        .map((f) => ({ arg: f.name, ...(f.sendType ? { contentType: f.sendType } : {}) }))[0],
      note: reasons.join('; '),
      provenance: {
        ...provenanceBase,
        entries: [x.id.replace(/~final$/, ''), ...x.hops],
        reason: isTarget ? best!.reasons.join('; ') : reasons.join('; '),
        ...(isTarget ? { confidence: Math.min(1, Math.max(0.1, best!.score / 15)) } : {}),
      },
    });
    // (A bodiless answer whose header named the next page, which the recording went on to.)
    if (x.redirectHeader) step.follow_header = x.redirectHeader;
    if (postedAndRedirected(x) && !loginIds.has(id)) step.expect_redirect = true;
    // (A list whose record an argument names, read one page at a time until the record is found.)
    const namedPaging = !isTarget && step.extract ? namedListPaging(x, step.extract) : null;
    if (namedPaging) step.paginate = namedPaging;
    // (Pages of a list whose page the extraction did not read as a list — its main block — are
    // not paged: there are no records to collect.)
    if (isTarget && paging && step.extract?.items) {
      step.paginate =
        paging.mode === 'page'
          ? {
              mode: 'page',
              // (A page in the JSON body: the body reads {{page.number}} itself.)
              ...(paging.in === 'json' ? {} : { param: paging.param }),
              start: paging.start,
              ...(paging.step ? { step: paging.step } : {}),
              stop_when_empty: 'items',
              max_pages: 50,
              note: `the recording shows ${paging.in === 'json' ? `the body's ${paging.param}` : paging.param} counting up${paging.step ? ` by ${paging.step}` : ''} over ${samples.length} calls`,
            }
          : paging.mode === 'next_url'
            ? {
                mode: 'next_url',
                next: { from: 'css', selector: paging.selector, attr: 'href', required: false },
                stop_when_empty: 'items',
                max_pages: 50,
                note: `the recording follows the page's next-page link (${paging.selector}) over ${samples.length} pages`,
              }
            : {
                mode: 'cursor',
                ...(paging.in === 'json' ? {} : { param: paging.param }),
                next: {
                  from: 'json',
                  path: `$${paging.nextPath.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('')}`,
                  required: false,
                },
                stop_when_empty: 'items',
                max_pages: 50,
                note: `the recording passes ${paging.in === 'json' ? `the body's ${paging.param}` : paging.param} from the previous response`,
              };
      const hasMore = (parseJson(first.text) as { has_more?: unknown } | undefined)?.has_more;
      if (typeof hasMore === 'boolean') {
        step.extract = {
          ...step.extract,
          has_more: { from: 'json', path: '$.has_more', type: 'boolean', required: false, default: false },
        };
        step.paginate.stop_when_false = 'has_more';
      }
    }
    return step;
  };
  const loginSteps = chainIds.filter((id) => loginIds.has(id)).map((id) => mkStep(id, 'login sub-chain'));
  const steps = chainIds
    .filter((id) => !loginIds.has(id))
    .map((id) =>
      mkStep(
        id,
        id === first.id ? 'target' : id === detail?.id ? 'detail target: follows an id from the list' : 'produces values for later steps',
      ),
    );
  const markers = [
    ...new Set(
      chainIds
        .filter((id) => loginIds.has(id))
        .flatMap((id) => (isHtml(byId.get(id)!) && byId.get(id)!.text ? loginPageMarkers(byId.get(id)!.text!) : [])),
    ),
  ];
  // What each stage decided and why, so a user can see why the connector returns what it returns.
  const decisions: Record<string, unknown> = {
    target: {
      request: `${first.method} ${first.url}`,
      reasons: best.reasons,
      ...(paging ? { pagination: paging.mode } : {}),
      ...(detail ? { detail: `${detail.method} ${detail.url}` } : {}),
    },
    arguments: args.filter((a) => chain.usedArgs.has(a.name)).map((a) => ({ name: a.name, example: a.example })),
    result: { kind: out.kind, rule: out.why, ...(out.considered?.length ? { considered: out.considered } : {}) },
    login: chainIds.filter((id) => loginIds.has(id)).map((id) => `${byId.get(id)!.method} ${byId.get(id)!.url}`),
    traced: chain.vars.map((v) => `${v.name}: ${v.how}`),
    ...(picks.length ? { picks: pickDecision(picks) } : {}),
  };
  // A login the person named (hints.secrets) or pasted (a capture session's answer to a Digest
  // challenge, whose headers hold only hashes) that no recorded request carries, with no sign-in in
  // the recording: a browser answers an HTTP Basic or Digest challenge out of the recording's sight
  // (its sign-in dialog, Playwright's httpCredentials). The run answers it the same way, if the site asks.
  const basicAuth =
    !loginSteps.length && [...chain.usedSecretFields].every((f) => f.endsWith('.username'))
      ? secrets.slots.find(
          (s) =>
            s.type === 'login' &&
            (hints.secrets?.[s.name] !== undefined || rec.pasted.some((p) => secrets.slotOfSecretId(p.secret_id, p.field) === s.name)),
        )?.name
      : undefined;
  // (A Digest answer holds a hash, never the password: the login must be one the person names.)
  if (!basicAuth && rec.digestUsers.length && !loginSteps.length)
    throw new SynthError([
      {
        stage: 'secrets',
        message: `the site asks for HTTP Digest credentials (user '${rec.digestUsers[0]}'), which a recording holds only as hashes: name the stored login in hints.secrets`,
      },
    ]);
  if (basicAuth)
    warnings.push(
      `no recorded request carries login '${basicAuth}': it answers the site's HTTP Basic or Digest challenge, if the site asks`,
    );
  nameFileFields(steps, fileArgs);
  const def: HttpDefinition = {
    format: 'connector-definition/v1',
    engine: 'http',
    meta: {
      generated_by: `${SYNTH_VERSION} (${advisor.id})`,
      generated_at: (inp.now?.() ?? new Date()).toISOString(),
      ...provenanceBase,
      ...(hints.notes ? { hints: hints.notes } : {}),
      decisions,
      notes: [
        `target: ${best.exchange.method} ${best.exchange.url} (${out.why})`,
        ...(out.considered?.length ? [`result rules considered (score: rule): ${out.considered.join(' | ')}`] : []),
        ...warnings,
      ].join('\n'),
    },
    base_url: origin,
    ...(basicAuth ? { basic_auth: basicAuth } : {}),
    ...(loginSlot && loginSteps.length
      ? {
          login: {
            slot: loginSlot.name,
            steps: loginSteps,
            note: 'requests that carry the login secret, and the requests they take values and cookies from',
          },
        }
      : {}),
    ...(markers.length
      ? {
          detect: {
            login_page: markers.map((css) => ({ css, note: 'a sign-in form of the login chain: seeing it later means the session ended' })),
          },
        }
      : {}),
    steps,
    result: resultTpl,
  };
  // What the http engine can't run becomes a script: a download saved as a file, or the page's own JS in a browser.
  let definition: ConnectorDefinition = def;
  let outputSchema = outSchema;
  let fallback: SynthResult['report']['fallback'] = null;
  let usedArgs = chain.usedArgs;
  let slotsUsed = basicAuth ? new Set([...chain.usedSecrets, basicAuth]) : chain.usedSecrets;
  let browserUnavailable: string | undefined;
  const wantBrowser = !!(inp.forceBrowser || hints.prefer_browser);
  decisions.engine = {
    engine: 'http',
    why: 'every value the requests need is traced or given, and no browser was asked for (hints.prefer_browser)',
  };
  if (chain.problems.length || wantBrowser) {
    const why = chain.problems.length
      ? `HTTP replay can't work: ${chain.problems[0].message}`
      : hints.prefer_browser
        ? 'hints.prefer_browser is set'
        : (inp.browserReason ?? 'a browser connector was asked for');
    // A page flow replays the action log in the browser engine; a result that came from the page's
    // own background JSON request is captured from inside the page by a browser script.
    const data = [...outputValues(out, first), ...(detail && detailOut ? outputValues(detailOut, detail) : [])];
    // A page with no data (a form that only confirms): the browser knows no status code, only the URL it landed on.
    const bare = out.kind === 'none' && !detail;
    const points = [
      { exchange: first, extract: bare ? { url: { from: 'url' as const, note: 'the page the flow ended on' } } : out.extract },
      ...(detail && detailOut ? [{ exchange: detail, extract: detailOut.extract }] : []),
    ];
    const plan = buildBrowserPlan({ rec, points, result: bare ? { url: '{{vars.url}}' } : resultTpl, args, secrets, data, meta: def.meta });
    // (The script reads the captured response as JSON: never for a page or a download.)
    const script = plan.ok || out.kind !== 'json' ? null : browserFallback(def, out, first, all, warnings, rec.actions);
    if (plan.ok) {
      [definition, fallback, usedArgs, slotsUsed] = [plan.definition, 'browser', plan.usedArgs, plan.usedSlots];
      // (The browser answers the site's HTTP Basic or Digest challenge as the recording's did.)
      if (basicAuth && !plan.definition.login) {
        const { format, engine, ...rest } = plan.definition;
        definition = { format, engine, basic_auth: basicAuth, ...rest };
        slotsUsed = new Set([...plan.usedSlots, basicAuth]);
      }
      if (bare) outputSchema = { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] };
      decisions.arguments = args.filter((a) => usedArgs.has(a.name)).map((a) => ({ name: a.name, example: a.example }));
      decisions.login = (plan.definition.login?.steps ?? []).flatMap((st) =>
        st.action === 'type' || st.action === 'click' || st.action === 'navigate'
          ? [`${st.action} ${'selector' in st ? st.selector : st.url}`]
          : [],
      );
      decisions.engine = {
        engine: 'browser',
        why,
        plan: `replays the action log in a browser (${plan.steps} steps) and extracts from the page's DOM with the rule above`,
      };
    } else if (script) {
      [definition, fallback] = [script, 'browser'];
      decisions.engine = {
        engine: 'script',
        why,
        plan: `the result comes from the page's background request: a browser script fills the page's form and captures that response (no browser-engine plan: ${plan.reason})`,
      };
    } else {
      browserUnavailable = plan.reason;
      if (wantBrowser)
        throw new SynthError([
          {
            stage: 'browser',
            exchange: first.id,
            message: `${why}, but no browser connector can be built: ${plan.reason}${hints.prefer_browser ? '; without prefer_browser the connector would use HTTP' : ''}`,
          },
        ]);
    }
  } else if (out.kind === 'download' && !detail) {
    const f = downloadFallback(def, out, chain, byId, warnings, first.text);
    decisions.engine = {
      engine: 'script',
      why: `the target is a download (${out.why})`,
      plan: 'the http plan run by a script that saves the body as a run output file',
    };
    [definition, outputSchema, fallback] = [f.definition, f.schema, 'download-script'];
  }
  const usedSlots = secrets.slots.filter((s) => slotsUsed.has(s.name));
  const input_schema: Schema = { type: 'object', properties: {}, required: [] as string[], additionalProperties: false };
  const writeOnly: string[] = [];
  const pagePw = pagePasswordFields(xs);
  const fractional = fractionalFields(xs);
  for (const a of args) {
    if (!usedArgs.has(a.name)) continue;
    const hinted = hints.arguments?.[a.name];
    const where = [...chain.steps.values()].flat().find((r) => r.res.kind === 'template' && r.res.args.includes(a.name))?.slot;
    const t = argType(a, hinted !== undefined ? hinted : a.example, where?.key, fractional);
    const choice = choices.get(a.name);
    const described = advisor.describeArgument(a.name, {
      field: where?.key ?? a.name,
      example: a.example,
      where: where?.where ?? 'request',
    });
    // (A password given as an argument — a new user's — is not echoed into the schema: one sent
    // in a field named so, or typed into a password input of a recorded page.)
    const password = PASSWORD_FIELD.test(where?.key.split('.').at(-1) ?? a.name) || (!!where && pagePw.has(where.key));
    if (password) writeOnly.push(a.example);
    input_schema.properties[a.name] = password
      ? {
          type: 'string',
          format: 'password',
          writeOnly: true,
          description: `${a.name.replace(/_/g, ' ')} (a password, sent as ${where?.where ?? 'request'} "${where?.key ?? a.name}")`,
        }
      : choice
        ? {
            type: 'string',
            examples: [choice.label],
            description: `${described}; one of the site's choices: ${choice.table.map(([l]) => JSON.stringify(l)).join(', ')} (the label or its code)`,
          }
        : {
            ...t,
            examples: [
              t.type === 'integer' || t.type === 'number' ? Number(a.example) : t.type === 'boolean' ? a.example === 'true' : a.example,
            ],
            description: described,
          };
    input_schema.required.push(a.name);
  }
  const planText = JSON.stringify(definition);
  const recordedFiles: SynthResult['recorded_files'] = {};
  for (const f of fileArgs) {
    if (!planText.includes(`{{args.${f.name}}}`)) continue;
    input_schema.properties[f.name] = fileArgSchema(f);
    input_schema.required.push(f.name);
    if (f.data) recordedFiles[f.name] = { name: f.fileName, contentType: f.contentType ?? 'application/octet-stream', data: f.data };
  }
  const computed = chain.problems.map((p) => ({
    exchange: p.exchange,
    message: p.message + (browserUnavailable ? `; no browser connector either: ${browserUnavailable}` : ''),
  }));
  // Replaying changes the site when a target (not a login or producer step) is not a read.
  const sideEffects = [first, ...(detail ? [detail] : [])].some((x) => !isRead(x));
  // A write's JSON answer was seen once: which keys and values come back depends on what happened
  // (added or already there) and on what was written.
  // (A list of records — a search sent as a POST — keeps its records' keys required.)
  if (sideEffects && out.kind === 'json' && out.extract.data && definition.engine === 'http') outputSchema = looseWriteAnswer(outputSchema);
  definition = withChoices(definition, choices);
  const result: SynthResult = withoutValues(writeOnly, {
    definition,
    input_schema,
    output_schema: outputSchema,
    required_secrets: usedSlots,
    recorded_files: {},
    report: {
      targets: samples.map((s) => ({
        id: s.id,
        url: s.url,
        score: cands.find((c) => c.exchange.id === s.id)?.score ?? best!.score,
        reasons: cands.find((c) => c.exchange.id === s.id)?.reasons ?? best!.reasons,
      })),
      candidates: cands.slice(0, 8).map((c) => ({ id: c.exchange.id, url: c.exchange.url, score: c.score })),
      dropped: noise.dropped.length,
      warnings,
      login: chainIds.filter((id) => loginIds.has(id)),
      steps: chainIds.filter((id) => !loginIds.has(id)),
      side_effects: sideEffects,
      computed,
      fallback,
      secret_ids: Object.fromEntries(Object.entries(secrets.secretIds).filter(([slot]) => usedSlots.some((u) => u.name === slot))),
      recorded_data: out.kind === 'download' || outputValues(out, first).length > 0,
    },
  });
  const typedLogins = secrets.typedLogins();
  inp.onRecordedSecrets?.({
    ...Object.fromEntries(Object.entries(typedLogins).map(([k, v]) => [k, { type: 'login' as const, ...v, totp_secret: null }])),
    ...Object.fromEntries(Object.entries(secrets.typedValues()).map(([k, value]) => [k, { type: 'string' as const, value }])),
  });
  assertNoSecrets(result, [...allNeedles(secrets, all), ...writeOnly]);
  const problems = validateDefinition(definition, { inputSchema: input_schema, requiredSecrets: usedSlots }, ['definition']);
  if (problems.length)
    throw new SynthError(
      problems.map((p) => ({ stage: 'emit', message: `internal: emitted definition invalid at ${p.loc.join('.')}: ${p.msg}` })),
    );
  assertSchemas(result);
  // (Set last: the recorded bytes are no text of the connector, for the checks above to read.)
  result.recorded_files = recordedFiles;
  return result;
}

const schemaCheck = makeAjv();

/** A schema ajv cannot compile would fail every run (and every replay) later: it is a synthesis defect, told now. */
export function assertSchemas(r: Pick<SynthResult, 'input_schema' | 'output_schema'>) {
  const bad = (['input_schema', 'output_schema'] as const).flatMap((k) => {
    try {
      schemaCheck.compile(r[k]);
      schemaCheck.removeSchema(r[k]); // ajv caches by object: keep a long-lived server's cache flat
      return [];
    } catch (e) {
      return [{ stage: 'emit', message: `internal: the inferred ${k} is not a valid JSON Schema: ${(e as Error).message.slice(0, 300)}` }];
    }
  });
  if (bad.length) throw new SynthError(bad);
}

/**
 * The last line of defence: no resolved or typed secret value in anything we return, in any form
 * it takes in transit (percent-encoded, JSON/HTML-escaped, base64 as in a Basic header, hex).
 */
/**
 * The result with a password argument's recorded value (a new user's) left out of every text that
 * explains it — the target's reasons ("carries typed value(s) …"), the decisions' examples: the
 * connector sends it only as `{{args.…}}`, and no one reads it back.
 */
function withoutValues<T>(values: string[], r: T): T {
  const re = secretsPattern(values.filter((v) => v.length >= 4));
  if (!re) return r;
  const walk = (v: unknown): unknown =>
    typeof v === 'string'
      ? v.replace(re, '(a password)')
      : Array.isArray(v)
        ? v.map(walk)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]))
          : v;
  return walk(r) as T;
}

/** Arguments taken from what the person typed, less the values of the flow's credentials. */
function withoutCredentials(args: ArgValue[], hints: Hints, values: SecretValues, plan: SecretPlan): ArgValue[] {
  if (hints.arguments && Object.keys(hints.arguments).length) return args;
  const known = new Set(
    [
      ...Object.values(values).flatMap((v) => (v.type === 'login' ? [v.username, v.password] : [v.value])),
      ...Object.values(plan.typedLogins()).flatMap((l) => [l.username, l.password]),
      ...Object.values(plan.typedValues()),
    ].filter(Boolean),
  );
  return args.filter((a) => !known.has(a.example));
}

/** The name of the query or form field a request after `x` sent `value` as (the id a write answered with). */
function fieldSentLater(all: Exchange[], x: Exchange, value: string | null): string | undefined {
  if (!value) return undefined;
  for (const y of all) {
    if (y.index <= x.index) continue;
    const fields = [...new URL(y.url).searchParams, ...(y.body?.params ?? []).map((p) => [p.name, p.value] as const)];
    const hit = fields.find(([, v]) => v === value);
    if (hit) return hit[0];
  }
  return undefined;
}

function assertNoSecrets(r: SynthResult, needles: string[]) {
  const text = JSON.stringify(r);
  const leaked = needles.filter((n) => n.length >= 4 && secretsPattern([n])?.test(text));
  if (leaked.length)
    throw new SynthError([
      { stage: 'secrets', message: `a secret value would appear in the connector (${leaked.length} value(s)); refusing to publish` },
    ]);
}

/**
 * A form the site took, answered with a redirect to the page after it (post/redirect/get): at run
 * time, the form's page again instead is the site refusing it (`expect_redirect`). Login forms keep
 * their own check (a login page where the session should be).
 */
function postedAndRedirected(x: Exchange): boolean {
  const form = !!x.body && (isFormBody(x.body) || /multipart\/form-data/i.test(x.body.mime));
  return x.method !== 'GET' && form && (x.hops.length > 0 || !!x.redirectHeader);
}
