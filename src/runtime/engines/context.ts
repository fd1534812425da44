// What every engine gets for one run: the job (arguments, secrets, proxy, deadline), the host
// (log lines, RPCs to the parent for files and the browser), template lookup with lazily
// computed TOTP codes (each one reported so logs can be scrubbed of it), and an HTTP session.
import { Secret, TOTP } from 'otpauth';
import type { ConnectorDefinition } from '../definition/types.js';
import type { Lookup } from '../definition/template.js';
import { HttpSession } from './http-session.js';
import { RunFailure } from './failure.js';
import { EgressPolicy, type EgressRules } from '../../egress/policy.js';

export type SlotValue = { type: 'login'; username: string; password: string; totp_secret: string | null } | { type: 'string'; value: string };

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
}

export class RunContext {
  vars: Record<string, unknown> = {};
  page: Record<string, unknown> = {};
  readonly http: HttpSession;

  constructor(
    readonly job: Job,
    readonly host: EngineHost,
  ) {
    // No rules, no traffic (null): a job built without them must not fall back to "allow all".
    this.http = new HttpSession({ proxy: job.proxy, maxBytes: job.maxResponseBytes, log: (l) => host.log(l), egress: job.egress ? new EgressPolicy(job.egress) : null });
  }

  log(line: string): void {
    this.host.log(line);
  }

  totp(slot: string): string {
    const s = this.job.secrets[slot];
    if (!s || s.type !== 'login') throw new RunFailure('invalid_input', `secret slot '${slot}' is not a bound login`);
    if (!s.totp_secret) throw new RunFailure('auth_required', `the login bound to slot '${slot}' has no TOTP seed, but the site asks for a code`, { retryable: false });
    const code = TOTP.generate({ secret: Secret.fromBase32(s.totp_secret), algorithm: 'SHA1', digits: 6, period: 30 });
    this.host.noteSecret(code);
    return code;
  }

  /** Template lookup: args, secrets (totp computed on use), vars, page, run. */
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
      case 'run':
        return dig({ id: this.job.runId, connector_id: this.job.connectorId, connector_version: this.job.connectorVersion }, path.slice(1));
      case 'secrets': {
        const s = this.job.secrets[a];
        if (!s) return undefined;
        if (b === 'totp') return this.totp(a);
        if (s.type === 'login') return b === 'username' ? s.username : b === 'password' ? s.password : undefined;
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
