// What every engine gets for one run: the job (arguments, secrets, proxy, deadline), the host
// (log lines, RPCs to the parent for files, the browser and TOTP codes), template lookup with
// TOTP codes claimed from the parent's step ledger (single-use: see src/runtime/totp-ledger.ts),
// and an HTTP session.
import type { ConnectorDefinition } from '../../../formats/definition/types.js';
import type { Lookup } from '../../../formats/definition/template.js';
import type { SecretValue } from '../../../formats/secret.js';
import crypto from 'node:crypto';
import { HttpSession } from './http-session.js';
import { basicToken } from '../../../lib/secret-forms.js';
import { RunFailure } from '../../shared/failure.js';
import { FILE_FIELD_REF } from '../../shared/rpc-policy.js';
import { EgressPolicy, type EgressRules } from '../../../egress/policy.js';

/** The value bound to one secret slot of a run. */
export type SlotValue = SecretValue;

export interface Job {
  runId: string;
  connectorId: string;
  connectorVersion: number;
  definition: ConnectorDefinition;
  args: Record<string, unknown>;
  secrets: Record<string, SlotValue>;
  proxy: string | null;
  /** Per-response body cap. */
  maxResponseBytes: number;
  /** Where this run may connect (the server's current policy, its own address included). */
  egress: EgressRules;
}

export interface EngineHost {
  log(line: string): void;
  rpc(method: string, params: Record<string, unknown>): Promise<any>;
  /** A secret-derived value produced during the run (a TOTP code): scrub it from logs. */
  noteSecret(value: string): void;
  /** "step n of m" for the run view (of null: not known ahead); the latest one wins. */
  progress?(step: number, of: number | null, label: string): void;
}

/** A TOTP code the parent handed this run, and when. */
export interface HeldCode {
  code: string;
  step: number;
  /** Epoch ms when the code was claimed (it is sent right after). */
  at: number;
  /** The parent waited for a fresh step (the current one had been used). */
  waitedMs: number;
  /** The code came from the single-use ledger (false: TOTP_CODE_REUSE=allow). */
  singleUse: boolean;
}

/** `{{secrets.<slot>.totp}}` references in any part of a definition (a step, an action). */
export function totpSlotsIn(v: unknown): string[] {
  const text = JSON.stringify(v) ?? '';
  return [...new Set([...text.matchAll(/secrets\.([A-Za-z0-9_-]+)\.totp\b/g)].map((m) => m[1]))];
}

/**
 * The parsed policy of the last rules seen: every job carries the server's rules, which change only
 * with its configuration, and parsing them (ipaddr's checks of each reserved address) cost about
 * a tenth of a one-request run's time in the worker.
 */
let lastPolicy: { key: string; policy: EgressPolicy } | null = null;
export function policyFor(rules: EgressRules): EgressPolicy {
  const key = JSON.stringify(rules);
  if (lastPolicy?.key !== key) lastPolicy = { key, policy: new EgressPolicy(rules) };
  return lastPolicy.policy;
}

export class RunContext {
  vars: Record<string, unknown> = {};
  /** The code each slot holds now: what `{{secrets.x.totp}}` and ctx.totp(x) return. */
  readonly totpHeld = new Map<string, HeldCode>();
  /** `run.uuid`: one new id per run, for a record the page would have named itself. */
  private uuid?: string;
  /** When the run first read the clock (`run.now_ms`, `run.now_s`, `run.now_iso`). */
  private startedMs?: number;
  page: Record<string, unknown> = {};
  readonly http: HttpSession;

  constructor(
    readonly job: Job,
    readonly host: EngineHost,
    /** Aborted when the run is stopped (its deadline, or the parent's stop): its HTTP requests end. */
    readonly signal?: AbortSignal,
  ) {
    // No rules, no traffic (null): a job built without them must not fall back to "allow all".
    this.http = new HttpSession({
      proxy: job.proxy,
      maxBytes: job.maxResponseBytes,
      log: (l) => host.log(l),
      egress: job.egress ? policyFor(job.egress) : null,
      signal,
    });
  }

  log(line: string): void {
    this.host.log(line);
  }

  /** Reports "step n of m: label" to the parent (shown in the run view while the run executes). */
  progress(step: number, of: number | null, label: string): void {
    this.host.progress?.(step, of, label);
  }

  private totpLogin(slot: string): void {
    const s = Object.hasOwn(this.job.secrets, slot) ? this.job.secrets[slot] : undefined;
    if (s?.type !== 'login') throw new RunFailure('invalid_input', `secret slot '${slot}' is not a bound login`);
    if (!s.totp_secret)
      throw new RunFailure('auth_required', `the login bound to slot '${slot}' has no TOTP seed, but the site asks for a code`, {
        retryable: false,
      });
  }

  /**
   * Asks the parent for a fresh code of this slot (it may wait for the next 30 s step: codes are
   * single-use) and holds it for the templates and ctx.totp() that follow.
   */
  async claimTotp(slot: string): Promise<string> {
    this.totpLogin(slot);
    const t0 = Date.now();
    const r = await this.host.rpc('totp.code', { slot });
    const code = String(r?.code ?? '');
    if (!/^\d{6}$/.test(code)) throw new RunFailure('internal_error', 'the server did not hand out a TOTP code');
    this.host.noteSecret(code);
    this.totpHeld.set(slot, { code, step: Number(r.step), at: Date.now(), waitedMs: Date.now() - t0, singleUse: r.single_use !== false });
    return code;
  }

  /** Claims a code for every slot whose TOTP this part of the definition uses (before rendering it). */
  async claimTotpFor(part: unknown): Promise<void> {
    for (const slot of totpSlotsIn(part)) if (this.job.secrets[slot]?.type === 'login') await this.claimTotp(slot);
  }

  /** Uploaded files read for this run, by id (a paginated or retried step sends one read). */
  private readonly files = new Map<string, Promise<{ name: string; contentType: string; data: Uint8Array }>>();

  /**
   * An uploaded file a step sends, from the parent (which serves only the files the run's
   * arguments name, and ends the run invalid_input otherwise).
   */
  readFile(id: string): Promise<{ name: string; contentType: string; data: Uint8Array }> {
    let f = this.files.get(id);
    if (!f) {
      f = this.host.rpc('files.read', { id });
      this.files.set(id, f);
    }
    return f;
  }

  /** What `{{files.<argument>.…}}` renders, by argument (read before the step that names it). */
  private readonly fileFields = new Map<string, { name: string; content_type: string; size: number }>();
  private namesFiles?: boolean;

  /** Reads the files this part of the definition names the fields of (before rendering it). */
  async readFilesFor(part: unknown): Promise<void> {
    // (Once per run: most definitions name no file's fields, and their steps are not searched.)
    this.namesFiles ??= FILE_FIELD_REF.test(JSON.stringify(this.job.definition));
    if (!this.namesFiles) return;
    const text = JSON.stringify(part) ?? '';
    for (const m of text.matchAll(new RegExp(FILE_FIELD_REF.source, 'g'))) {
      const arg = m[1];
      if (this.fileFields.has(arg)) continue;
      const id = this.job.args[arg];
      if (typeof id !== 'string' || !id) throw new RunFailure('invalid_input', `argument '${arg}' names no uploaded file`);
      const f = await this.readFile(id);
      this.fileFields.set(arg, { name: f.name, content_type: f.contentType, size: f.data.byteLength });
    }
  }

  /** The code the slot holds (claimed before: the ledger lives in the parent, this is synchronous). */
  totp(slot: string): string {
    this.totpLogin(slot);
    const held = this.totpHeld.get(slot);
    if (!held) throw new RunFailure('internal_error', `no TOTP code was claimed for slot '${slot}' before it was used`);
    return held.code;
  }

  /**
   * Why a login that sent a TOTP code came back to the login page: the code was rejected; says
   * whether it was fresh (never handed out before, sent within its step) or not.
   */
  totpRejection(codesBefore: ReadonlyMap<string, HeldCode>): string | null {
    for (const [slot, h] of this.totpHeld) {
      if (codesBefore.get(slot) === h) continue;
      const late = Math.round((Date.now() - (h.step + 1) * 30_000) / 1000);
      const fresh = !h.singleUse
        ? 'the code may have been sent before in its 30 s step (TOTP_CODE_REUSE=allow), and sites with replay protection refuse a reused code: set TOTP_CODE_REUSE=wait'
        : late <= 0
          ? `the code was fresh (never used before by this service, sent within its 30 s step${h.waitedMs > 1000 ? ` after waiting ${Math.round(h.waitedMs / 1000)} s for it` : ''}): check the TOTP seed and the clocks, or whether it was used elsewhere in the same step`
          : `the code was not fresh: its 30 s step had ended ${late} s before the site answered`;
      return `the site rejected the TOTP code of slot '${slot}' (the login page came back after it was sent); ${fresh}`;
    }
    return null;
  }

  /** Template lookup: args, secrets (totp computed on use), vars, page, run, files. */
  readonly lookup: Lookup = (path) => {
    const [root, a, b, ...rest] = path;
    let v: unknown;
    switch (root) {
      case 'args':
        v = this.job.args;
        return dig(v, path.slice(1));
      case 'vars':
        return dig(this.vars, path.slice(1));
      case 'page':
        return dig(this.page, path.slice(1));
      case 'files': {
        const f = this.fileFields.get(a);
        if (!f) throw new RunFailure('internal_error', `the file of argument '${a}' was not read before its fields were used`);
        return path.length === 3 ? f[b as keyof typeof f] : undefined;
      }
      case 'run':
        if (a === 'uuid' && path.length === 2) return (this.uuid ??= crypto.randomUUID());
        if (/^now_(ms|s|iso)$/.test(a) && path.length === 2) {
          // (One clock reading per run, like run.uuid: every step sends the same time.)
          const ms = (this.startedMs ??= Date.now());
          return a === 'now_ms' ? ms : a === 'now_s' ? Math.floor(ms / 1000) : new Date(ms).toISOString();
        }
        return dig({ id: this.job.runId, connector_id: this.job.connectorId, connector_version: this.job.connectorVersion }, path.slice(1));
      case 'secrets': {
        const s = this.job.secrets[a];
        if (!s) return undefined;
        if (b === 'totp') return this.totp(a);
        if (s.type === 'login') {
          if (b === 'basic' && rest.length === 0) return basicToken(s.username, s.password);
          return b === 'username' ? s.username : b === 'password' ? s.password : undefined;
        }
        return b === 'value' && rest.length === 0 ? s.value : undefined;
      }
      default:
        return undefined;
    }
  };
}

function dig(v: unknown, path: string[]): unknown {
  let cur: any = v;
  for (const k of path) {
    if (cur === null || cur === undefined) return undefined;
    cur = cur[k];
  }
  return cur;
}
