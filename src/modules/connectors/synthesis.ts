// POST /v1beta/connectors (and /revisions) with capture_session_id or recording_file_id: load the
// recording, resolve hints.secrets inside the server, synthesize, replay, and hand back a
// definition + schemas + slots for the normal publish path. Every failure is a 422 that says which
// stage failed and why; nothing is written before the plan validated.
import { InvalidInput, type Problem } from '../../lib/errors.js';
import type { EventBus } from '../../lib/events.js';
import type { Har } from '../../formats/recording/types.js';
import type { SlotValue } from '../../runtime/worker/engines/context.js';
import type { ConnectorDefinition, SecretSlot } from '../../formats/definition/types.js';
import type { SecretsService } from '../secrets/service.js';
import { synthesize, type SynthResult } from '../../synth/index.js';
import { SynthError, type Hints, type SecretValues } from '../../synth/types.js';
import type { SynthAdvisor } from '../../synth/advisor.js';
import { plainUsername } from '../../synth/substitute.js';
import { flatValues } from '../../synth/facts.js';
import { secretsPattern } from '../../lib/secret-forms.js';
import { Scrubber } from '../../runtime/shared/scrub.js';
import { type RecordingLoader, RecordingUnavailable } from './recordings.js';
import { ReplayFailed, validateByReplay, type ReplayRunner } from './replay.js';
import type { PublishInput } from './schemas.js';

export interface Synthesized {
  definition: ConnectorDefinition;
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown>;
  required_secrets: SecretSlot[];
  /** Origin of the recorded target (the connector's website when the body gives none). */
  website: string | null;
}

export interface SynthesisDeps {
  loader: RecordingLoader;
  secrets: SecretsService;
  /** The run sandbox, once started (null: publish without a replay, recorded in meta). */
  replay?: () => ReplayRunner | null;
  advisor?: SynthAdvisor;
  /** synthesis.finished for log lines and metrics. */
  events?: EventBus;
}

/** Synthesis could not produce a connector: a 422 whose problems say why, at `stage`. */
export class SynthesisFailed extends InvalidInput {
  constructor(
    readonly stage: string,
    problems: Problem[],
  ) {
    super(problems);
  }
}

const err = (loc: (string | number)[], msg: string, ctx?: Record<string, unknown>): Problem => ({
  loc,
  msg: `Value error, ${msg}`,
  type: 'value_error',
  ...(ctx ? { ctx } : {}),
});

export function parseHints(h: PublishInput['hints']): Hints {
  if (h === undefined || h === null) return {};
  if (typeof h === 'string') return { notes: h };
  return h as Hints;
}

export class SynthesisService {
  constructor(private readonly deps: SynthesisDeps) {}

  private async load(userId: string, src: { capture_session_id?: string; recording_file_id?: string }, loc: string): Promise<Har> {
    try {
      return src.capture_session_id
        ? await this.deps.loader.fromCapture(userId, src.capture_session_id)
        : await this.deps.loader.fromFile(userId, src.recording_file_id!);
    } catch (e) {
      if (e instanceof RecordingUnavailable) throw new SynthesisFailed('read', [err(['body', loc], e.message, { stage: 'read' })]);
      throw e;
    }
  }

  /** Resolves hints.secrets (slot → secret id) to values, inside the server only. */
  private async resolveSecrets(
    userId: string,
    ids: Record<string, string>,
  ): Promise<{ values: SecretValues; slots: Record<string, SlotValue> }> {
    const values: SecretValues = {};
    const slots: Record<string, SlotValue> = {};
    const errors: Problem[] = [];
    for (const [slot, id] of Object.entries(ids)) {
      const r = typeof id === 'string' ? await this.deps.secrets.resolve(userId, id) : null;
      if (!r) {
        errors.push(
          err(
            ['body', 'hints', 'secrets', slot],
            'no secret with this id (hints.secrets maps slot names to ids of your stored secrets)',
            undefined,
          ),
        );
        continue;
      }
      slots[slot] = r.value;
      values[slot] = r.value;
    }
    if (errors.length) throw new InvalidInput(errors);
    return { values, slots };
  }

  /** A body naming a recording → a validated connector, or a SynthesisFailed 422 naming the stage. */
  async build(
    userId: string,
    body: PublishInput,
    previous: { capture_session_id?: string; recording_file_id?: string } | null,
  ): Promise<Synthesized> {
    const t0 = performance.now();
    const done = (outcome: 'ok' | 'failed', stage: string | null, engine: string | null) =>
      this.deps.events?.emit({
        kind: 'synthesis.finished',
        userId,
        outcome,
        stage,
        engine,
        durationMs: Math.round(performance.now() - t0),
      });
    try {
      const out = await this.synthesizeAndValidate(userId, body, previous);
      done('ok', null, out.definition.engine);
      return out;
    } catch (e) {
      done('failed', e instanceof SynthesisFailed ? e.stage : e instanceof InvalidInput ? 'input' : 'internal', null);
      throw e;
    }
  }

  private async synthesizeAndValidate(
    userId: string,
    body: PublishInput,
    previous: { capture_session_id?: string; recording_file_id?: string } | null,
  ): Promise<Synthesized> {
    const field = body.capture_session_id ? 'capture_session_id' : 'recording_file_id';
    const conflicting = (['definition', 'input_schema', 'output_schema', 'required_secrets'] as const).filter((k) => body[k] !== undefined);
    if (conflicting.length || (body.capture_session_id && body.recording_file_id)) {
      throw new InvalidInput(
        [...conflicting, ...(body.capture_session_id && body.recording_file_id ? ['recording_file_id'] : [])].map((k) =>
          err(['body', k], `give either ${field} (synthesis) or a hand-written definition with its schemas, not both`),
        ),
      );
    }
    const hints = parseHints(body.hints);
    const har = await this.load(userId, body, field);
    let prevHar: Har | null = null;
    if (previous) prevHar = await this.load(userId, previous, field).catch(() => null);
    const { values, slots } = await this.resolveSecrets(userId, hints.secrets ?? {});
    const sensitive = collectSensitive(values);
    let typed: Record<string, SlotValue> = {};
    const synth = (browserReason?: string) =>
      synthesize({
        recording: har,
        previous: prevHar,
        hints,
        secretValues: values,
        purpose: body.purpose,
        source: body.capture_session_id ? { capture_session_id: body.capture_session_id } : { recording_file_id: body.recording_file_id },
        advisor: this.deps.advisor,
        onRecordedSecrets: (s) => (typed = s as Record<string, SlotValue>),
        ...(browserReason ? { forceBrowser: true, browserReason } : {}),
      });
    let r: SynthResult;
    try {
      r = synth();
    } catch (e) {
      if (!(e instanceof SynthError)) throw e;
      throw new SynthesisFailed(
        e.problems[0]?.stage ?? 'synthesis',
        scrub(
          e.problems.map((p) =>
            err(['body', field], `synthesis failed (${p.stage}): ${p.message}`, {
              stage: p.stage,
              ...(p.exchange ? { entry: p.exchange } : {}),
            }),
          ),
          sensitive,
        ),
      );
    }
    for (const v of Object.values(typed)) sensitive.push(...(v.type === 'login' ? [v.username, v.password] : [v.value]));
    if (r.report.computed.length && r.report.fallback !== 'browser') {
      throw new SynthesisFailed(
        'trace',
        scrub(
          r.report.computed.map((c) =>
            err(['body', field], `the target request can't be replayed over HTTP: ${c.message}`, { stage: 'trace', entry: c.exchange }),
          ),
          sensitive,
        ),
      );
    }
    // Secrets for the replay: stored ones named in hints, pasted ones, and logins typed by hand.
    const pasted = Object.fromEntries(Object.entries(r.report.secret_ids).filter(([slot]) => !slots[slot]));
    const replaySecrets: Record<string, SlotValue> = {
      ...typed,
      ...slots,
      ...(await this.resolveSecrets(userId, pasted).catch(() => ({ slots: {} }))).slots,
    };
    const runner = this.deps.replay?.() ?? null;
    let validation: Record<string, unknown> = { replayed: false, reason: 'no run sandbox on this server' };
    const missing = r.required_secrets.filter((s) => !replaySecrets[s.name]).map((s) => s.name);
    if (runner && missing.length)
      validation = {
        replayed: false,
        reason: `no value for secret slot(s) ${missing.join(', ')} to replay with (name the stored secret in hints.secrets)`,
      };
    else if (runner) {
      const replay = (plan: SynthResult) =>
        validateByReplay(runner, plan, replaySecrets, {
          sideEffects: plan.report.side_effects,
          allowSideEffects: hints.allow_side_effects === true,
          resultHints: flatValues(hints.result),
          allowEmpty: hints.allow_empty_result === true,
          recordedData: plan.report.recorded_data,
          files: plan.recorded_files,
        });
      try {
        validation = { ...(await replay(r)) };
      } catch (e) {
        if (!(e instanceof ReplayFailed)) throw e;
        // HTTP replay could not be validated: the person's own actions, replayed in a browser, may
        // still work (a token we could not trace, a site that checks more than the requests show).
        const alt = r.definition.engine === 'http' ? await this.browserInstead(synth, replay, e) : null;
        if (!alt)
          throw new SynthesisFailed(
            'replay',
            scrub([err(['body', field], `${e.message}; nothing was published`, { stage: 'replay', ...e.details })], sensitive),
          );
        [r, validation] = [alt.plan, { ...alt.validation, http_replay: e.message }];
      }
    }
    const replayWarnings = Array.isArray(validation.warnings) ? (validation.warnings as string[]) : [];
    const definition = {
      ...r.definition,
      meta: {
        ...r.definition.meta,
        validation,
        warnings: [...r.report.warnings, ...replayWarnings.filter((w) => w.startsWith('published with'))],
      },
    } as ConnectorDefinition;
    const website =
      typeof (r.definition as { base_url?: unknown }).base_url === 'string'
        ? (r.definition as { base_url: string }).base_url
        : r.report.targets[0]
          ? new URL(r.report.targets[0].url).origin
          : null;
    const out: Synthesized = {
      definition,
      input_schema: r.input_schema,
      output_schema: r.output_schema,
      required_secrets: r.required_secrets,
      website,
    };
    const text = JSON.stringify(out);
    // A plain username ("admin") is also an ordinary word of the site (`do=admin`); it is templated
    // where it was typed (src/synth/secrets.ts), so only the non-plain values are checked as substrings.
    const usernames = new Set(
      [...Object.values(values), ...Object.values(typed)].flatMap((v) =>
        v.type === 'login' && plainUsername(v.username) ? [v.username] : [],
      ),
    );
    // In any form a value takes in transit: a Basic header's base64, a percent-encoded password.
    const leaks = secretsPattern(sensitive.filter((s) => s.length >= 4 && !usernames.has(s)));
    if (leaks?.test(text))
      throw new SynthesisFailed('secrets', [
        err(['body', field], 'a secret value would appear in the connector; refusing to publish', { stage: 'secrets' }),
      ]);
    return out;
  }

  /** The browser plan (from the action log) in place of an http plan whose replay failed, if it replays. */
  private async browserInstead(
    synth: (why: string) => SynthResult,
    replay: (p: SynthResult) => Promise<Awaited<ReturnType<typeof validateByReplay>>>,
    failed: ReplayFailed,
  ) {
    let plan: SynthResult;
    try {
      plan = synth(`the HTTP plan did not replay (${failed.message.slice(0, 300)})`);
    } catch (e) {
      if (e instanceof SynthError) return null;
      throw e;
    }
    if (plan.definition.engine !== 'browser') return null;
    try {
      return { plan, validation: await replay(plan) };
    } catch (e) {
      if (e instanceof ReplayFailed) return null;
      throw e;
    }
  }
}

/** Error entries with every secret value replaced, in any form it takes (the runs' own scrubber). */
function scrub(entries: Problem[], values: string[]): Problem[] {
  const s = new Scrubber();
  for (const v of values) if (v.length >= 2) s.add(v);
  return entries.map((e) => s.scrubValue(e));
}

function collectSensitive(v: SecretValues): string[] {
  return Object.values(v)
    .flatMap((x) => (x.type === 'login' ? [x.username, x.password, x.totp_secret ?? ''] : [x.value]))
    .filter((s) => s.length >= 2);
}
