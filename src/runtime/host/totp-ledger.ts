// The TOTP step ledger (issue 11): a code for (seed, 30 s step) is handed out at most once, by the
// host, to one run or validation replay. Real sites reject a code already used in its step, so a
// second login in the same step waits for the next one, bounded by the run's deadline. The claim
// is a row insert under a unique key, so it also holds across processes sharing one PostgreSQL.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../adapters/db/schema.js';
import { nowIso } from '../../lib/ids.js';
import { TOTP_PERIOD_S, totpCode } from '../../lib/totp.js';
import type { SlotValue } from '../worker/engines/context.js';
import type { RunErrorView } from '../shared/failure.js';
import { RunAbort } from './pool.js';

const PERIOD_MS = TOTP_PERIOD_S * 1000;
/** A claim must leave the run this long to send the code before its deadline. */
const MIN_TIME_LEFT_MS = 2000;
/** Rows older than this many steps (10 min) are of no use to anyone: pruned. */
const KEEP_STEPS = 20;

/** What a claim hands the worker: the code and the step it belongs to. */
export interface TotpClaim {
  code: string;
  step: number;
  /** How long the claim waited for a fresh step. */
  waited_ms: number;
  /** false with TOTP_CODE_REUSE=allow: the code may have gone out before in its step. */
  single_use: boolean;
}

/** Domain-separated SHA-256 of the normalized seed: the ledger never holds the seed. */
export const seedHash = (seed: string) => createHash('sha256').update(`totp-ledger/v1:${seed}`).digest('hex');

export class TotpLedger {
  private prunedAt = 0;

  constructor(
    private readonly db: Kysely<Database>,
    /** false (TOTP_CODE_REUSE=allow): every claim gets the current step's code, nothing is recorded. */
    private readonly singleUse = true,
    private readonly now: () => number = Date.now,
  ) {}

  /** Claims `step` of `seed`; false when this service already handed out that step's code. */
  async tryClaim(seed: string, step: number): Promise<boolean> {
    await this.prune(step);
    const r = await this.db
      .insertInto('totp_steps')
      .values({ seed_hash: seedHash(seed), step, claimed_at: nowIso() })
      .onConflict((oc) => oc.columns(['seed_hash', 'step']).doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  /**
   * A code nobody got before: the current step's, or the first free step's after waiting for it.
   * `onWait(s)` is told before each wait; a wait that would end past `deadline` throws TotpStepTaken.
   */
  async claim(seed: string, deadline: number, onWait: (seconds: number) => void): Promise<TotpClaim> {
    const t0 = this.now();
    let step = Math.floor(t0 / PERIOD_MS);
    if (!this.singleUse) return { code: totpCode(seed, step * PERIOD_MS), step, waited_ms: 0, single_use: false };
    for (;;) {
      if (await this.tryClaim(seed, step))
        return { code: totpCode(seed, step * PERIOD_MS), step, waited_ms: this.now() - t0, single_use: true };
      const next = (step + 1) * PERIOD_MS;
      const wait = Math.max(0, next - this.now());
      if (next + MIN_TIME_LEFT_MS > deadline) throw new TotpStepTaken(Math.ceil(wait / 1000));
      onWait(Math.ceil(wait / 1000));
      await new Promise((r) => setTimeout(r, wait));
      step = Math.max(step + 1, Math.floor(this.now() / PERIOD_MS));
    }
  }

  /** At most once a minute per process: rows of long-past steps go. */
  private async prune(step: number): Promise<void> {
    if (this.now() - this.prunedAt < 60_000) return;
    this.prunedAt = this.now();
    await this.db
      .deleteFrom('totp_steps')
      .where('step', '<', step - KEEP_STEPS)
      .execute();
  }
}

/** The current step's code was handed out already and the next step comes after the deadline. */
export class TotpStepTaken extends Error {
  constructor(readonly nextInS: number) {
    super(`a TOTP code was already used in this 30 s step; the next step starts in ${nextInS} s`);
  }
}

/**
 * Serves a worker's `totp.code` RPC: the seed comes from the run's own secrets (the worker names
 * only the slot). The code joins the scrubber; a deadline reached first ends the run with a clear,
 * retryable auth_required.
 */
export async function serveTotpCode(
  ledger: TotpLedger,
  secrets: Record<string, SlotValue>,
  slot: string,
  deadline: number,
  io: { log(line: string): void; secret(code: string): void },
): Promise<TotpClaim> {
  const s = Object.hasOwn(secrets, slot) ? secrets[slot] : undefined;
  if (s?.type !== 'login' || !s.totp_secret) throw new Error(`secret slot '${slot}' is not a login with a TOTP seed`);
  try {
    const claim = await ledger.claim(s.totp_secret, deadline, (n) => io.log(`waiting ${n} s for a fresh TOTP step (codes are single-use)`));
    io.secret(claim.code);
    return claim;
  } catch (e) {
    if (!(e instanceof TotpStepTaken)) throw e;
    const message =
      `a TOTP code of the login in slot '${slot}' was already used in this 30 s step (codes are single-use), ` +
      `and the next step starts in ${e.nextInS} s, after the run's timeout: run it again, or with a longer max_timeout_s`;
    io.log(message);
    const error: RunErrorView = {
      type: 'auth_required',
      message,
      retryable: true,
      exception: null,
      details: { slot, next_step_in_s: e.nextInS },
    };
    throw new RunAbort(error);
  }
}
