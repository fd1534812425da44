// Stage 7: replay a synthesized plan before publishing it — in the same sandbox runs use, with
// the recorded arguments, then (read-only targets) with one argument changed. Nothing is stored:
// a plan that does not replay is answered with a precise 422 and never published.
import { randomUUID } from 'node:crypto';
import type { ConnectorDefinition } from '../../formats/definition/types.js';
import type { SlotValue } from '../../runtime/worker/engines/context.js';
import { RunAbort, type Outcome } from '../../runtime/host/pool.js';
import type { Egress } from '../../egress/egress.js';
import { runInSandbox, scrubberFor, type InputFile, type SandboxDeps } from '../../runtime/host/sandbox-run.js';
import { FILE_ID_FORMAT, makeAjv } from '../../lib/json-schema.js';

export interface ReplayRunner {
  run(
    def: ConnectorDefinition,
    args: Record<string, unknown>,
    secrets: Record<string, SlotValue>,
    timeoutMs: number,
    /** Files the plan may send, by the id its arguments give (the recording's own uploads). */
    files?: ReadonlyMap<string, InputFile>,
  ): Promise<{ outcome: Outcome; logs: string[] }>;
}

/**
 * Runs a plan in the run sandbox (worker pool + browser host) without creating a run. TOTP codes
 * come from the same single-use ledger as runs: two replays never send the same code.
 */
export class SandboxReplay implements ReplayRunner {
  constructor(private readonly rt: SandboxDeps & { egress: Egress }) {}

  async run(
    def: ConnectorDefinition,
    args: Record<string, unknown>,
    secrets: Record<string, SlotValue>,
    timeoutMs: number,
    files: ReadonlyMap<string, InputFile> = new Map(),
  ) {
    const logs: string[] = [];
    // The tail and the error reach the 422 (log_tail): scrubbed by the shared sandbox path, as runs are.
    const scrubber = scrubberFor(secrets);
    const log = (line: unknown) => {
      // Scrubbed whole, then cut: a cut first could leave half a secret unrecognised.
      logs.push(scrubber.scrub(String(line)).slice(0, 2000));
      if (logs.length > 20) logs.shift();
    };
    const job = {
      runId: `synth-${randomUUID()}`,
      connectorId: 'synthesis',
      connectorVersion: 0,
      definition: def,
      args,
      secrets,
      proxy: null,
      maxResponseBytes: 64 * 1024 * 1024,
      egress: this.rt.egress.rules(),
    };
    const outcome = await runInSandbox(this.rt, job, {
      timeoutMs,
      scrubber,
      // Only the tail is ever shown (log_tail): keep a few lines, each bounded.
      log: (_at, line) => log(line),
      note: log,
      // A replay saves no files: it reports what it would have saved (only the size of a file over
      // RUN_OUTPUT_MAX_FILE_BYTES crosses the channel).
      saveFile: async (params) => ({
        id: 'replay',
        name: String(params.name),
        size_bytes: params.data === undefined ? Number(params.size) : Buffer.byteLength(params.data),
      }),
      // A replay sends only the recording's own files, never one of the user's stored ones.
      readFile: async ({ id }) => {
        const f = files.get(id);
        if (!f)
          throw new RunAbort({
            type: 'invalid_input',
            message: `no recorded file ${id}`,
            retryable: false,
            exception: null,
            details: null,
          });
        return f;
      },
    });
    return { outcome, logs };
  }
}

export interface ReplayCheck {
  replayed: boolean;
  reason: string;
  changed_argument?: string;
  warnings: string[];
  ms: number;
}

export class ReplayFailed extends Error {
  constructor(
    message: string,
    readonly details: Record<string, unknown>,
  ) {
    super(message);
  }
}

const ajv = makeAjv();

function outcomeText(o: Outcome): string {
  switch (o.kind) {
    case 'error':
      return `${o.error.type}: ${o.error.message}${o.error.details ? ` (${JSON.stringify(o.error.details).slice(0, 300)})` : ''}`;
    case 'timeout':
      return 'timed out';
    case 'crash':
      return `crashed: ${o.detail}`;
    case 'too_large':
      return `result too large (${o.size} bytes)`;
    default:
      return 'ok';
  }
}

/**
 * Free-text string arguments (no format, no enum, no id; with a space or 8+ characters: names, titles,
 * descriptions — not codes or choices like "kitchen") with a short unique suffix; with `words`,
 * the other ones (single words: "Plum" → "Plum1a2b"), for a second try. See `freshen`.
 */
export function freshValues(
  schema: Record<string, any>,
  args: Record<string, unknown>,
  words = false,
  keep: ReadonlySet<string> = new Set(),
): { name: string; value: string }[] {
  const tag = randomUUID().slice(0, 4);
  return Object.entries<any>(schema.properties ?? {})
    .filter(
      ([k, p]) =>
        !keep.has(k) &&
        p?.type === 'string' &&
        !p.format &&
        !p.enum &&
        typeof args[k] === 'string' &&
        /[a-z]/i.test(args[k] as string) &&
        !idLike(args[k] as string) &&
        !quantity(args[k] as string),
    )
    .filter(([k]) => {
      const free = /\s/.test((args[k] as string).trim()) || (args[k] as string).length >= 8;
      return words ? !free : free;
    })
    .map(([k]) => ({ name: k, value: freshen(args[k] as string, tag) }));
}

/** Arguments an extractor's `where` reads, a `$patch` edit's `at` selects a record by (`{"id":
 * "{{args.node}}"}`), or a DELETE's URL addresses (`DELETE /features/{{args.flag}}`, or a POST the
 * site reads as one): each names a record the site holds (a fresh name would delete nothing). */
export function recordNamingArgs(def: unknown): Set<string> {
  const out = new Set<string>();
  const named = (sel: object) => {
    for (const t of Object.values(sel)) for (const m of String(t).matchAll(/\{\{\s*args\.(\w+)/g)) out.add(m[1]!);
  };
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if (typeof o.from === 'string' && o.where && typeof o.where === 'object') named(o.where);
    if (meantMethod(o) === 'DELETE' && typeof o.url === 'string') named({ url: o.url });
    if (typeof o.$patch === 'string' && Array.isArray(o.set))
      for (const e of o.set as { at?: unknown }[])
        if (Array.isArray(e?.at)) for (const sel of e.at) if (sel && typeof sel === 'object') named(sel);
    Object.values(o).forEach(walk);
  };
  walk(def);
  return out;
}

/**
 * The method a step means: a POST whose form or JSON body names another in `_method` (Rails,
 * Laravel, Symfony: a link that deletes posts `_method=delete`), or whose
 * `X-HTTP-Method-Override` header does, means that one.
 */
function meantMethod(step: Record<string, unknown>): string | undefined {
  if (typeof step.method !== 'string') return undefined;
  const body = (step.body ?? {}) as { form?: Record<string, unknown>; json?: Record<string, unknown> };
  const header = Object.entries((step.headers ?? {}) as Record<string, unknown>).find(
    ([k]) => k.toLowerCase() === 'x-http-method-override',
  )?.[1];
  const override = body.form?._method ?? body.json?._method ?? header;
  return step.method.toUpperCase() === 'POST' && typeof override === 'string' ? override.toUpperCase() : step.method.toUpperCase();
}

/** Arguments in the path of a page an http step reads (`GET /printers/{{args.printer}}`): the page of a record. */
export function pathNamingArgs(def: unknown): Set<string> {
  const out = new Set<string>();
  const steps = (def as { steps?: unknown[]; login?: { steps?: unknown[] } } | null)?.steps ?? [];
  for (const st of steps) {
    const o = st as { id?: unknown; action?: unknown; method?: unknown; url?: unknown };
    if (typeof o.id !== 'string' || o.action !== undefined || typeof o.url !== 'string' || (o.method ?? 'GET') !== 'GET') continue;
    for (const m of o.url.split('?')[0]!.matchAll(/\{\{\s*args\.(\w+)/g)) out.add(m[1]!);
  }
  return out;
}

/** Arguments sent through `| choose:` (a drop-down's label or code): a made-up label is no choice. */
export function chosenArgs(def: unknown): Set<string> {
  return new Set([...JSON.stringify(def).matchAll(/\{\{\s*args\.(\w+)\s*\|\s*choose:/g)].map((m) => m[1]!));
}

/**
 * The value with a unique tag. Text with spaces gets it after a space; a value of one piece (a
 * slug, a key, a user name: sites often allow no space there, Unleash's "URL friendly" flag name)
 * keeps its shape: the tag joined by its own separator, in its own case (`apple-thinning` →
 * `apple-thinning-3f9a`, `ORCH_KEY` → `ORCH_KEY_3F9A`); a file name keeps its extension.
 */
function freshen(v: string, tag: string): string {
  const file = /^(\S+?)(\.[A-Za-z0-9]{1,5})$/.exec(v);
  if (file) return `${file[1]}-${tag}${file[2]}`;
  if (/\s/.test(v.trim())) return `${v} ${tag}`;
  const sep = /[-_.]/.exec(v)?.[0] ?? '';
  return `${v}${sep}${/[A-Z]/.test(v) && !/[a-z]/.test(v) ? tag.toUpperCase() : tag}`;
}

/** An amount with its unit or currency (`30.00 EUR`, `$12`, `4,50 €`, `12 kg`): a suffix makes no amount. */
const quantity = (s: string) => /^\s*(?:[A-Z]{3}\s?|\p{Sc}\s?)?[-+]?\d[\d.,' ]*(?:\s?(?:[A-Za-z]{1,4}|\p{Sc}|%))?\s*$/u.test(s);

/** A hex id (a database's ObjectId, a hash) or a UUID. */
const hexId = (s: string) => /^[0-9a-f]{12,}$/i.test(s) || /^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i.test(s);
/**
 * An identifier, not text a person wrote: a hex id, a UUID, a long token of letters and digits, or
 * a URI of any scheme (a magnet link, a feed URL: what it names is fixed by its parts, and a suffix
 * would name the same thing or nothing).
 */
const idLike = (s: string) =>
  hexId(s) || (/^[A-Za-z0-9]{16,}$/.test(s) && /\d/.test(s) && /[A-Za-z]/.test(s)) || /^[a-z][a-z0-9+.-]*:\S+$/i.test(s);

/** A replay the site answered with its form again instead of the redirect the recording had. */
function refused(e: unknown): boolean {
  const err = e instanceof ReplayFailed ? (e.details.error as { type?: string; details?: { refused?: boolean } } | undefined) : undefined;
  return err?.type === 'invalid_input' && err.details?.refused === true;
}
const REFUSED = Symbol('refused');

/** A replay that ended because the site has no record or page for the arguments (`not_found`). */
function notFound(e: unknown): boolean {
  const err = e instanceof ReplayFailed ? (e.details.error as { type?: string; details?: { not_found?: boolean } } | undefined) : undefined;
  return err?.type === 'invalid_input' && err.details?.not_found === true;
}

/** The record-naming argument a replay found no record for (`invalid_input`, `not_found`), as text. */
function recordGone(e: unknown, naming: Set<string>, args: Record<string, unknown>): string | null {
  if (!(e instanceof ReplayFailed) || !naming.size) return null;
  if (!notFound(e)) return null;
  return [...naming].map((n) => `${n} = ${JSON.stringify(args[n])}`).join(', ');
}

/** Every non-null leaf of a result as lower-case text. */
function leaves(v: unknown): string[] {
  if (v === null || v === undefined) return [];
  if (Array.isArray(v)) return v.flatMap(leaves);
  if (typeof v === 'object') return Object.values(v as object).flatMap(leaves);
  return [String(v).toLowerCase()];
}

/**
 * A different value of the same type, for the "one argument changed" replay. An id keeps its form
 * (a number counts up, a hex id or UUID changes its last digit): a site that checks the form of ids
 * would refuse a made-up one outright, where a well-formed one it lacks is simply not found.
 */
export function changedValue(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? v + 1 : v + 1.5;
  if (typeof v === 'boolean') return !v;
  const s = String(v);
  if (/^\d+$/.test(s)) return String(Number(s) + 1);
  if (hexId(s)) {
    const next = ((Number.parseInt(s.at(-1)!, 16) + 1) % 16).toString(16);
    return s.slice(0, -1) + (/[A-F]/.test(s) ? next.toUpperCase() : next);
  }
  return `${s}zq`;
}

export async function validateByReplay(
  runner: ReplayRunner,
  plan: { definition: ConnectorDefinition; input_schema: Record<string, any>; output_schema: Record<string, any> },
  secrets: Record<string, SlotValue>,
  opts: {
    sideEffects: boolean;
    allowSideEffects: boolean;
    timeoutMs?: number;
    resultHints?: string[];
    allowEmpty?: boolean;
    recordedData?: boolean;
    /** The files the recording uploaded, by argument (format file-id): sent in their place. */
    files?: Record<string, InputFile>;
  },
): Promise<ReplayCheck> {
  const t0 = Date.now();
  if (opts.sideEffects && !opts.allowSideEffects) {
    return {
      replayed: false,
      reason:
        'the target changes data on the site (not idempotent): not replayed; set hints.allow_side_effects to validate it by replaying',
      warnings: [],
      ms: 0,
    };
  }
  const check = ajv.compile(plan.output_schema);
  const args: Record<string, unknown> = {};
  const files = new Map<string, InputFile>();
  for (const [k, p] of Object.entries<any>(plan.input_schema.properties ?? {})) {
    if (p?.format !== FILE_ID_FORMAT) {
      args[k] = p.examples?.[0];
      continue;
    }
    // A file argument is sent with the bytes the recording uploaded (an id only this replay knows).
    const f = opts.files?.[k];
    if (!f)
      return {
        replayed: false,
        reason: `not replayed: the recording does not hold the bytes of the file it uploaded as '${k}' (a browser's recording keeps a form's parts, not a file's content, and a chosen file that holds a pasted secret is not kept); run it with a file of yours to check it`,
        warnings: [],
        ms: 0,
      };
    args[k] = `recorded-${k}`;
    files.set(args[k] as string, f);
  }
  const once = async (a: Record<string, unknown>, label: string) => {
    const { outcome, logs } = await runner.run(plan.definition, a, secrets, opts.timeoutMs ?? 60_000, files);
    if (outcome.kind !== 'ok')
      throw new ReplayFailed(`replaying the plan ${label} failed: ${outcomeText(outcome)}`, {
        outcome: outcome.kind,
        ...(outcome.kind === 'error' ? { error: outcome.error } : {}),
        log_tail: logs.slice(-6),
      });
    const result = JSON.parse(outcome.json);
    if (!check(result)) {
      throw new ReplayFailed(`replaying the plan ${label} returned a result that does not fit the inferred output schema`, {
        errors: (check.errors ?? []).slice(0, 10).map((e) => `${e.instancePath || '/'} ${e.message}`),
      });
    }
    return result;
  };
  // A flow that creates something, replayed with the recorded values, meets the object it already
  // made (a duplicate name, "already exists"): free-text arguments get a fresh suffix instead.
  // (An argument that names the record to act on, an extractor's `where`, names one the site
  // holds: the recorded one, never a fresh name no record has.)
  const naming = recordNamingArgs(plan.definition);
  const keep = new Set([...naming, ...chosenArgs(plan.definition)]);
  const fresh = opts.sideEffects ? freshValues(plan.input_schema, args, false, keep) : [];
  for (const f of fresh) args[f.name] = f.value;
  const label = () =>
    fresh.length ? `with fresh values for ${fresh.map((f) => `'${f.name}'`).join(', ')}` : 'with the recorded arguments';
  // The site answering the form with the form again (`expect_redirect`), with fresh values and
  // with the recorded ones: what it wants is not in the values a replay can make (the recorded
  // name is taken now, a made-up one breaks its rules). Published unreplayed, saying what it said.
  let refusal = '';
  const unlessRefused = (e: unknown): typeof REFUSED => {
    if (!opts.sideEffects || !refused(e)) throw e;
    refusal = (e as Error).message;
    return REFUSED;
  };
  let first: unknown;
  try {
    first = await once(args, label());
  } catch (e) {
    // A flow that renamed or deleted the record it named ("Weather Mast" renamed, a device
    // deleted) left the site without it: the replay cannot name it again, and no made-up name
    // would do. Nothing was sent past the lookup; the plan is published unreplayed, saying why.
    const gone = recordGone(e, naming, args);
    if (opts.sideEffects && gone)
      return {
        replayed: false,
        reason: `not replayed: the record the recording acted on (${gone}) is no longer on the site — the recording itself renamed or deleted it`,
        warnings: [`not validated by a replay: ${(e as Error).message}`],
        ms: Date.now() - t0,
      };
    // A fresh value that addressed nothing (HTTP 404, no such record: `/inject/inj_water 8f6d`)
    // shows the argument names a record the site holds: once more with the recorded values. So
    // does a failure after reading a page addressed by a fresh value (`GET /printers/{{args.printer}}`:
    // CUPS answers an error page, 200, whose form has nothing to read).
    // So does a form the site refused with a fresh value (a made-up amount, `30.00 EUR 3f9a`).
    const addressed = pathNamingArgs(plan.definition);
    if (
      opts.sideEffects &&
      fresh.length &&
      (notFound(e) || refused(e) || (e instanceof ReplayFailed && fresh.some((f) => addressed.has(f.name))))
    ) {
      for (const f of fresh.splice(0)) args[f.name] = plan.input_schema.properties[f.name]?.examples?.[0];
      first = await once(args, label()).catch(unlessRefused);
    } else {
      // Single words are kept at first (they are often a choice the site knows: a project key, a
      // tag), but a created object's name is a single word too ("Plum", a wiki page that the
      // recording made): when the replay fails, once more with those fresh as well.
      const words = opts.sideEffects && e instanceof ReplayFailed ? freshValues(plan.input_schema, args, true, keep) : [];
      if (!words.length) first = unlessRefused(e);
      else {
        for (const f of words) args[f.name] = f.value;
        fresh.push(...words);
        first = await once(args, label()).catch(unlessRefused);
      }
    }
  }
  if (first === REFUSED)
    return {
      replayed: false,
      reason: `not replayed: the site did not take the replayed request (${refusal})`,
      warnings: [`not validated by a replay: ${refusal}`],
      ms: Date.now() - t0,
    };
  const warnings: string[] = [];
  // The live site must give what the recording showed: data (not an empty list or a record of
  // nulls) and every hinted result value. Otherwise the connector would be an empty promise.
  if (!opts.sideEffects) {
    const values = leaves(first);
    const problems: string[] = [];
    // (A recording whose own response was empty — a search that found nothing — proves nothing here.)
    if (opts.recordedData !== false && !values.some((v) => v !== ''))
      problems.push('returned no data (an empty list or only empty fields) where the recording had some');
    const missing = (opts.resultHints ?? []).filter((h) => !values.some((v) => v.includes(h.toLowerCase())));
    if (missing.length) problems.push(`did not return the hinted result value(s) ${missing.map((m) => JSON.stringify(m)).join(', ')}`);
    if (problems.length && !opts.allowEmpty)
      throw new ReplayFailed(`replaying the plan with the recorded arguments ${problems.join(' and ')}`, { outcome: 'ok', missing });
    for (const p of problems) warnings.push(`published with hints.allow_empty_result: the replay ${p}`);
  }
  let changed: string | undefined;
  // (A file argument is not changed: a made-up id names no file, and the run would be refused.)
  const names = Object.keys(args).filter((k) => plan.input_schema.properties?.[k]?.format !== FILE_ID_FORMAT);
  if (!opts.sideEffects && names.length) {
    changed = names[0];
    try {
      const second = await once({ ...args, [changed]: changedValue(args[changed]) }, `with argument '${changed}' changed`);
      if (JSON.stringify(second) === JSON.stringify(first)) warnings.push(`changing argument '${changed}' did not change the result`);
    } catch (e) {
      // A made-up value may simply match nothing (an extractor finds no row): that says nothing
      // about the plan, which already replayed with the recorded values. Anything else fails.
      // Likewise a detail page that the site doesn't have for the made-up value (HTTP 404), or
      // refuses for it alone (HTTP 403 at a URL the argument addresses, after a fresh login that
      // the recorded value's replay just showed to work: sites that hide which ids exist).
      type Details = { extractor?: string; not_found?: boolean; status?: number; after_login?: boolean; by_arguments?: boolean };
      const err = e instanceof ReplayFailed ? (e.details.error as { type?: string; details?: Details } | undefined) : undefined;
      const d = err?.details;
      const nothing =
        (err?.type === 'site_changed' && d?.extractor) ||
        (err?.type === 'invalid_input' && d?.not_found) ||
        (err?.type === 'auth_required' && d?.status === 403 && d.after_login && d.by_arguments);
      if (!nothing) throw e;
      warnings.push(
        `with '${changed}' changed the site returned nothing to extract (${(e as Error).message}); only the recorded values were checked`,
      );
    }
  }
  return {
    replayed: true,
    reason: opts.sideEffects
      ? `replayed: hints.allow_side_effects is true${fresh.length ? ` (fresh values for ${fresh.map((f) => f.name).join(', ')}, derived from the recorded ones)` : ''}`
      : `replayed with the recorded arguments${changed ? ` and with '${changed}' changed` : ''}`,
    changed_argument: changed,
    warnings,
    ms: Date.now() - t0,
  };
}
