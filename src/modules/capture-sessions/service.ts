// Capture sessions: the rules (states, limits, ownership, paste) over the repo and the
// browser side (CaptureRuntime). A session's browser lives in one process, named in its row
// (owner_id, owner_url) and kept alive by that process's lease; any other process reads the row
// and forwards what needs the browser to the owner (forward.ts). A session whose owner died
// (its lease ran out) becomes failed; another live process's sessions are never touched.
import crypto from 'node:crypto';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Database } from '../../adapters/db/schema.js';
import type { BlobStore } from '../../adapters/blob/port.js';
import type { SecretsService } from '../secrets/service.js';
import { DomainError, conflict, invalid, notFound, tooManyRequests, unavailable } from '../../lib/errors.js';
import { newId, nowIso } from '../../lib/ids.js';
import { BrowserPool, CapacityError } from '../../browser/pool.js';
import { CaptureRuntime, type CookieInput } from '../../browser/capture-runtime.js';
import type { SecretField } from '../../formats/recording/types.js';
import { CaptureRepo, type CaptureRow, type CaptureState, type SessionEnded } from './repo.js';
import type { Egress } from '../../egress/egress.js';
import { TotpStepTaken, type TotpLedger } from '../../runtime/host/totp-ledger.js';
import { EgressDenied } from '../../egress/policy.js';
import type { EventBus } from '../../lib/events.js';
import { checkNavigation } from '../../egress/browser-guard.js';
import { Forwarder, type ForwardKeys } from './forward.js';

export const VIEWPORT = { width: 1280, height: 800 };
const CREATOR_VERSION = '0.1.0';
/** end_reason of a session whose process stopped renewing its lease. */
export const LEASE_LOST = 'browser lost (the server process holding it stopped; its lease ran out)';
const RESTARTED = 'browser lost (server restarted)';

export interface CaptureSessionView {
  id: string;
  /** `starting` rows are never shown. */
  state: Exclude<CaptureState, 'starting'>;
  browser_session_id: string | null;
  iframe_url: string | null;
  /** Extension: the read-only live view (its own token: sharing it grants no control). */
  iframe_view_url: string | null;
  created_at: string;
  updated_at: string;
}

export interface CreateCaptureInput {
  use_proxy?: boolean;
  cookies?: CookieInput[] | null;
  start_url?: string | null;
  webhook_url?: string | null;
}

interface Live {
  rt: CaptureRuntime;
  userId: string;
}

export class CaptureSessionsService {
  readonly pool: BrowserPool;
  private readonly repo: CaptureRepo;
  private live = new Map<string, Live>();
  /** Sessions whose recording is being finalized (completing), with their owner. */
  private finishing = new Map<string, { userId: string; job: Promise<void>; holdsBrowser: boolean }>();
  private timer: NodeJS.Timeout | null = null;
  private leaseTimer: NodeJS.Timeout | null = null;
  /** Reservations of this process, one at a time: its own parallel creates are counted exactly. */
  private reserving: Promise<unknown> = Promise.resolve();
  /** This process, as the owner of the sessions it creates (random per start). */
  readonly processId = newId();
  readonly forwarder: Forwarder;

  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      blobs: BlobStore;
      secrets: SecretsService;
      config: Config;
      egress: Egress;
      totp?: TotpLedger;
      log?: FastifyBaseLogger;
      events?: EventBus;
      /** Why a webhook_url can't be used (the webhooks module's rule), or null. */
      checkWebhookUrl?: (url: string) => Promise<string | null>;
      /** Told of every session that ends (completed, abandoned, failed), in the transaction that records it. */
      onEnded?: SessionEnded;
      /** Keys derived from MASTER_KEY: live view tokens, and signatures of forwarded requests. */
      /** Live view tokens are made with the first key and accepted under any (see captureKeys). */
      keys: { live: Buffer[]; forward: ForwardKeys };
    },
  ) {
    const c = deps.config;
    this.repo = new CaptureRepo(deps.db, deps.events, deps.onEnded);
    this.forwarder = new Forwarder(deps.keys.forward, this.processId);
    this.pool = new BrowserPool({
      cdpUrl: c.browserCdpUrl,
      warm: c.captureWarmContexts,
      maxSessions: c.captureMaxSessions,
      viewport: VIEWPORT,
      egress: deps.egress,
      events: deps.events,
    });
  }

  /** Starts the idle/lifetime sweeper and warms browser contexts (a serving process only). */
  start(): void {
    if (this.timer) return;
    const c = this.deps.config;
    const tick = Math.min(5000, Math.max(200, (Math.min(c.captureIdleTimeoutS, c.captureMaxLifetimeS) * 1000) / 4));
    this.timer = setInterval(() => void this.sweep().catch(() => {}), tick);
    this.timer.unref();
    // Leases: renewed three times per period; sessions of dead processes found on the same beat.
    this.leaseTimer = setInterval(() => void this.heartbeat().catch(() => {}), (c.captureLeaseS * 1000) / 3);
    this.leaseTimer.unref();
    // Capture sessions start from pre-warmed browser contexts: launch Chromium now, not on the first
    // request (CAPTURE_WARM_CONTEXTS=0: everything on demand).
    if (c.captureWarmContexts > 0)
      void this.pool.prewarm().catch((err) => this.deps.log?.warn({ err }, 'browser pre-warm failed; capture sessions will retry'));
  }

  /**
   * The live view tokens are derived from MASTER_KEY and the session id (never stored): every
   * process of a fleet computes the same URL, and a leaked database row cannot open a live view.
   */
  private liveToken(id: string, mode: 'control' | 'view', key = this.deps.keys.live[0]): string {
    return crypto.createHmac('sha256', key).update(`${mode}\0${id}`).digest('base64url');
  }

  view(r: CaptureRow): CaptureSessionView {
    const active = r.state === 'active';
    const base = `${this.deps.config.publicBaseUrl}/live/${r.id}`;
    return {
      id: r.id,
      state: r.state as CaptureSessionView['state'],
      browser_session_id: r.state === 'active' || r.state === 'completing' ? r.browser_session_id : null,
      iframe_url: active ? `${base}?token=${this.liveToken(r.id, 'control')}` : null,
      iframe_view_url: active ? `${base}?token=${this.liveToken(r.id, 'view')}&mode=view` : null,
      created_at: r.created_at,
      updated_at: r.updated_at,
    };
  }

  /** Whose browser: another process's (forward to it), or this one's. */
  private remote(r: CaptureRow): { url: string; id: string } | null {
    return r.owner_id && r.owner_id !== this.processId && r.owner_url ? { url: r.owner_url, id: r.owner_id } : null;
  }

  /** Why an active/completing row has no browser any more, or null while it has one. */
  private lost(r: CaptureRow, now = nowIso()): string | null {
    if (r.state !== 'active' && r.state !== 'completing') return null;
    // Either map: a row read while it moves active → completing is still held here.
    if (r.owner_id === this.processId) return this.live.has(r.id) || this.finishing.has(r.id) ? null : RESTARTED;
    if (r.lease_until === null) return RESTARTED; // a row from before leases: its process is gone
    return r.lease_until < now ? LEASE_LOST : null;
  }

  /** Fails rows whose browser is gone: here (restart), or with a process whose lease ran out. */
  private async reconcile(rows: CaptureRow[]): Promise<CaptureRow[]> {
    const now = nowIso();
    return Promise.all(
      rows.map(async (r) => {
        const why = this.lost(r, now);
        if (!why) return r;
        const mine = r.owner_id === this.processId;
        return (
          (await this.repo.transition(
            r.id,
            [r.state],
            'failed',
            { browser_session_id: null, end_reason: why },
            mine ? undefined : r.lease_until,
          )) ??
          (await this.repo.byId(r.id)) ??
          r
        );
      }),
    );
  }

  private leaseUntil(): string {
    return new Date(Date.now() + this.deps.config.captureLeaseS * 1000).toISOString();
  }

  /**
   * Renews this process's leases, lets go of browsers whose session another process ended (it
   * thought this one dead), and fails the sessions of processes whose lease ran out.
   */
  async heartbeat(): Promise<void> {
    const renewed = await this.repo.renew(this.processId, this.leaseUntil());
    for (const id of [...this.live.keys()]) {
      if (renewed.has(id)) continue;
      const r = await this.repo.byId(id);
      if (r && r.state !== 'active') await this.dropLocal(id, r.state);
    }
    await this.recover(await this.repo.expired(this.processId, nowIso()));
  }

  /** Ends what other processes left: reservations vanish, sessions fail (conditional on the lease seen). */
  private async recover(rows: Pick<CaptureRow, 'id' | 'state' | 'lease_until'>[], reason?: string): Promise<void> {
    for (const r of rows) {
      if (r.state === 'starting') await this.repo.dropStarting(r.id, r.lease_until);
      else {
        const why = reason ?? (r.lease_until === null ? RESTARTED : LEASE_LOST);
        const row = await this.repo.transition(r.id, [r.state], 'failed', { browser_session_id: null, end_reason: why }, r.lease_until);
        if (row) this.deps.log?.warn({ session: r.id, reason: why }, 'capture session failed: its browser is gone');
      }
    }
  }

  /**
   * Once listening: sessions a previous run of this process left at its own internal address are
   * gone (this process holds that address now), without waiting for their lease. INTERNAL_URL is
   * unique per process, so no other live process's session is touched.
   */
  async listening(): Promise<void> {
    await this.recover(await this.repo.leftAt(this.deps.config.internalUrl, this.processId), RESTARTED);
  }

  /** A browser here whose session ended elsewhere: released without a state change. */
  private async dropLocal(id: string, state: string): Promise<void> {
    const l = this.live.get(id);
    this.live.delete(id);
    if (l) await l.rt.discard(state).catch(() => {});
  }

  private async owned(userId: string, id: string): Promise<CaptureRow> {
    const r = await this.repo.get(userId, id);
    if (!r) throw notFound('Capture session');
    return (await this.reconcile([r]))[0];
  }

  /** Sessions by state across every process, and the ones whose browser lives in this process. */
  async counts(): Promise<{ byState: Record<string, number>; liveHere: number }> {
    return { byState: await this.repo.countByState(), liveHere: this.live.size };
  }

  async list(userId: string): Promise<CaptureSessionView[]> {
    return (await this.reconcile(await this.repo.list(userId))).map((r) => this.view(r));
  }

  async get(userId: string, id: string): Promise<CaptureSessionView> {
    return this.view(await this.owned(userId, id));
  }

  async create(userId: string, input: CreateCaptureInput): Promise<CaptureSessionView> {
    const c = this.deps.config;
    const cookies = input.cookies ?? [];
    const startUrl = input.start_url ?? null;
    if (input.use_proxy && !c.captureProxyUrl) {
      throw invalid(['body', 'use_proxy'], 'Value error, no proxy is configured on this server (CAPTURE_PROXY_URL)', 'value_error', {
        input: true,
      });
    }
    // SessionCookie.domain is optional: without one the cookie is host-only for start_url's
    // host, or for the first site the session navigates to (CaptureRuntime).
    if (startUrl) {
      // The session's proxy would refuse it anyway; a clear 422 beats a browser error page.
      await checkNavigation(this.deps.egress, startUrl, !!input.use_proxy).catch((e) => {
        throw e instanceof EgressDenied
          ? invalid(['body', 'start_url'], `Value error, ${e.message}`, 'value_error', { input: startUrl })
          : e;
      });
    }
    const webhookUrl = input.webhook_url ?? null;
    const refused = webhookUrl && this.deps.checkWebhookUrl ? await this.deps.checkWebhookUrl(webhookUrl) : null;
    if (refused) throw invalid(['body', 'webhook_url'], `Value error, ${refused}`, 'value_error', { input: webhookUrl });
    const id = newId();
    const now = nowIso();
    const row: CaptureRow = {
      id,
      user_id: userId,
      state: 'starting',
      browser_session_id: null,
      use_proxy: input.use_proxy ? 1 : 0,
      start_url: startUrl,
      recording_key: null,
      recording_size: null,
      end_reason: null,
      webhook_url: webhookUrl,
      owner_id: this.processId,
      owner_url: c.internalUrl,
      lease_until: this.leaseUntil(),
      created_at: now,
      updated_at: now,
    };
    await this.reserve(row);
    let rt: CaptureRuntime;
    try {
      rt = await CaptureRuntime.start(this.pool, {
        sessionId: id,
        proxy: input.use_proxy ? c.captureProxyUrl : null,
        cookies,
        startUrl,
        spoolDir: path.join(c.dataDir, 'capture', id),
        maxBodyBytes: c.captureMaxBodyBytes,
        maxUploadBytes: c.captureFileMaxBytes,
        viewport: VIEWPORT,
        onCrash: () => void this.end(id, 'failed', 'browser crashed').catch(() => {}),
      });
    } catch (e) {
      await this.repo.unreserve(id).catch(() => {});
      if (e instanceof CapacityError) throw tooManyRequests(e.message, 5);
      this.deps.log?.error({ err: e }, 'capture session: browser start failed');
      throw unavailable('Could not start a browser for the capture session; try again');
    }
    this.live.set(id, { rt, userId });
    let active: CaptureRow | null = null;
    try {
      active = await this.repo.transition(id, ['starting'], 'active', { browser_session_id: rt.slot.id });
    } finally {
      if (!active) {
        this.live.delete(id);
        await rt.discard('failed').catch(() => {});
        await this.repo.unreserve(id).catch(() => {});
      }
    }
    if (!active) throw unavailable('Could not start a browser for the capture session; try again');
    return this.view(active);
  }

  /**
   * Takes the session's place in the limits, counted in the database across every process: the
   * row first, then the count (a reservation that finds the limit passed gives its place back).
   * Two processes reserving the last place at the same moment may both give it back (429, try
   * again), never both keep it. This process's own reservations go one at a time, so its count is exact.
   */
  private reserve(row: CaptureRow): Promise<void> {
    const job = this.reserving.then(async () => {
      const c = this.deps.config;
      await this.repo.reserve(row);
      const held = await this.repo.held(row.user_id, nowIso()).catch(async (e) => {
        await this.repo.unreserve(row.id);
        throw e;
      });
      // Fairness (issue 9): one user can't take every browser slot and lock the others out. (At or
      // above CAPTURE_MAX_SESSIONS the per-user limit is off: the global one answers.)
      const perUser = c.captureMaxSessionsPerUser;
      let refused: DomainError | null = null;
      if (perUser < c.captureMaxSessions && held.user > perUser) {
        refused = tooManyRequests(
          `Too many capture sessions for this user: the per-user limit is ${perUser} (CAPTURE_MAX_SESSIONS_PER_USER); complete or abandon one first`,
          5,
        );
      } else if (held.total > c.captureMaxSessions) {
        refused = tooManyRequests(`Too many active capture sessions (maximum ${c.captureMaxSessions}); complete or abandon one first`, 5);
      }
      if (refused) {
        await this.repo.unreserve(row.id);
        throw refused;
      }
    });
    this.reserving = job.catch(() => {});
    return job;
  }

  private conflict(r: CaptureRow, what: string): DomainError {
    return conflict(`Capture session is ${r.state}; only an active session can be ${what}`);
  }

  /**
   * An action that needs the browser, on a session another process holds: done there. `forwarded`
   * (the internal route, on the owner) never forwards again: a row that is not ours there is a conflict.
   */
  private async elsewhere<T>(r: CaptureRow, forwarded: boolean, action: string, payload: object): Promise<T | undefined> {
    const owner = this.remote(r);
    if (!owner) return undefined;
    if (forwarded) throw conflict('Capture session is held by another server process');
    return (await this.forwarder.call(owner, r.id, action, payload)) as T;
  }

  async complete(userId: string, id: string, o: { forwarded?: boolean } = {}): Promise<CaptureSessionView> {
    const r = await this.owned(userId, id);
    if (r.state !== 'active') throw this.conflict(r, 'completed');
    const there = await this.elsewhere<CaptureSessionView>(r, !!o.forwarded, 'complete', { user_id: userId });
    if (there) return there;
    const row = await this.beginCompleting(id);
    if (!row) throw this.conflict((await this.repo.byId(id))!, 'completed');
    return this.view(row);
  }

  /** active → completing, then finalize in the background → completed (or failed). */
  private async beginCompleting(id: string): Promise<CaptureRow | null> {
    const l = this.live.get(id);
    const row = await this.repo.transition(id, ['active'], 'completing');
    if (!row || !l) return row;
    this.live.delete(id);
    const entry = { userId: l.userId, job: Promise.resolve(), holdsBrowser: true };
    this.finishing.set(id, entry);
    entry.job = (async () => {
      try {
        const har = await l.rt.finish('completing', CREATOR_VERSION);
        // The browser is released: the quota is given back before the (state-changing) writes, so
        // a client that sees `completed` can always create its next session.
        entry.holdsBrowser = false;
        const buf = Buffer.from(JSON.stringify(har));
        const key = `recordings/${l.userId}/${id}.har.json`;
        await this.deps.blobs.put(key, Readable.from([buf]), { contentType: 'application/json', size: buf.length });
        await this.repo.transition(id, ['completing'], 'completed', {
          browser_session_id: null,
          recording_key: key,
          recording_size: buf.length,
        });
      } catch (e) {
        this.deps.log?.error({ err: e, session: id }, 'capture session: finalizing the recording failed');
        await this.repo.transition(id, ['completing'], 'failed', {
          browser_session_id: null,
          end_reason: 'finalizing the recording failed',
        });
      } finally {
        this.finishing.delete(id);
      }
    })();
    return row;
  }

  async abandon(userId: string, id: string, o: { forwarded?: boolean } = {}): Promise<CaptureSessionView> {
    const r = await this.owned(userId, id);
    if (r.state !== 'active') throw this.conflict(r, 'abandoned');
    const there = await this.elsewhere<CaptureSessionView>(r, !!o.forwarded, 'abandon', { user_id: userId });
    if (there) return there;
    const row = await this.end(id, 'abandoned', null);
    if (!row) throw this.conflict((await this.repo.byId(id))!, 'abandoned');
    return this.view(row);
  }

  /** active → abandoned/failed: browser released, recording discarded. */
  private async end(id: string, to: 'abandoned' | 'failed', reason: string | null): Promise<CaptureRow | null> {
    const row = await this.repo.transition(id, ['active'], to, { browser_session_id: null, end_reason: reason });
    const l = this.live.get(id);
    this.live.delete(id);
    if (l) await l.rt.discard(to).catch(() => {});
    return row;
  }

  async paste(userId: string, id: string, body: { field: SecretField; secret_id: string }, o: { forwarded?: boolean } = {}): Promise<void> {
    const r = await this.owned(userId, id);
    if (r.state !== 'active') throw conflict(`Capture session is ${r.state}; paste needs an active session`);
    // Only the secret's id travels: the owner resolves the value itself, next to the browser.
    if (this.remote(r)) {
      await this.elsewhere(r, !!o.forwarded, 'paste', { user_id: userId, field: body.field, secret_id: body.secret_id });
      return;
    }
    const meta = await this.deps.secrets.get(userId, body.secret_id);
    if (!meta) throw notFound('Secret');
    if (meta.secret_type !== 'login') {
      throw invalid(
        ['body', 'secret_id'],
        'Value error, the secret is a string secret; paste needs a login secret (username, password or totp)',
        'value_error',
        { input: body.secret_id },
      );
    }
    if (body.field === 'totp' && !meta.has_totp) {
      throw invalid(['body', 'field'], 'Value error, the login secret has no TOTP seed; paste username or password', 'value_error', {
        input: 'totp',
      });
    }
    // (A page asking for HTTP Basic or Digest credentials: the login answers it, as a sign-in
    // dialog would — username and password together, whichever field was pasted.)
    const challenged = this.live.get(id);
    if (body.field !== 'totp' && challenged?.rt.challenge()) {
      const s = await this.deps.secrets.resolve(userId, body.secret_id);
      if (s?.value.type !== 'login') throw notFound('Secret');
      await challenged.rt.answerChallenge(body.secret_id, s.value.username, s.value.password);
      return;
    }
    let value: string;
    if (body.field === 'totp') value = await this.pasteTotp(userId, body.secret_id);
    else {
      const s = await this.deps.secrets.resolve(userId, body.secret_id);
      if (s?.value.type !== 'login') throw notFound('Secret');
      value = s.value[body.field];
    }
    const l = this.live.get(id);
    if (!l) throw conflict('Capture session is no longer active');
    await l.rt.paste(body.secret_id, body.field, value);
  }

  /**
   * A pasted TOTP code comes from the runs' single-use ledger: the site will refuse it to the
   * validation replay that follows the recording, so that replay must get another step's code.
   * A step already used waits for the next one (the paste answers within ~30 s).
   */
  private async pasteTotp(userId: string, secretId: string): Promise<string> {
    if (!this.deps.totp) return this.deps.secrets.currentTotp(userId, secretId);
    const r = await this.deps.secrets.resolve(userId, secretId);
    if (r?.value.type !== 'login' || !r.value.totp_secret) throw notFound('Secret');
    try {
      return (await this.deps.totp.claim(r.value.totp_secret, Date.now() + 35_000, () => {})).code;
    } catch (e) {
      if (e instanceof TotpStepTaken)
        throw conflict(`TOTP codes of this secret were already used in this 30 s step and the next; paste again in ${e.nextInS} s`);
      throw e;
    }
  }

  async recording(userId: string, id: string): Promise<{ stream: Readable; size: number | null }> {
    const r = await this.owned(userId, id);
    if (r.state !== 'completed' || !r.recording_key) {
      const why =
        r.state === 'abandoned' ? 'it was abandoned and its recording discarded' : r.state === 'failed' ? 'it failed' : `it is ${r.state}`;
      throw conflict(`No recording: the capture session is not completed (${why})`);
    }
    const stream = await this.deps.blobs.get(r.recording_key);
    if (!stream) throw new DomainError('internal', 'recording blob missing');
    return { stream, size: r.recording_size };
  }

  /**
   * The runtime behind a live view URL, if the token is right and the session still active;
   * `readOnly` for the view token (iframe_view_url), whatever the URL's `mode` says.
   */
  liveLookup(id: string, token: string): { rt: CaptureRuntime; readOnly: boolean } | null {
    const l = this.live.get(id);
    const readOnly = l ? this.tokenMode(id, token) : null;
    return l && readOnly !== null ? { rt: l.rt, readOnly } : null;
  }

  /** Whether `token` is the session's view token (true), its control token (false) or neither (null), under any master key. */
  private tokenMode(id: string, token: string): boolean | null {
    if (typeof token !== 'string' || !token) return null;
    const given = Buffer.from(token);
    const same = (t: string) => {
      const b = Buffer.from(t);
      return b.length === given.length && crypto.timingSafeEqual(b, given);
    };
    for (const key of this.deps.keys.live) {
      if (same(this.liveToken(id, 'view', key))) return true;
      if (same(this.liveToken(id, 'control', key))) return false;
    }
    return null;
  }

  /** The runtime of a session whose browser is here (the internal live route; the caller was verified). */
  liveRuntime(id: string): CaptureRuntime | null {
    return this.live.get(id)?.rt ?? null;
  }

  /**
   * A live view URL for a session another process holds: where to relay its socket, if the token
   * is right (checked before any database read) and the session is active there.
   */
  async liveElsewhere(id: string, token: string): Promise<{ owner: { url: string; id: string }; readOnly: boolean } | null> {
    const readOnly = this.tokenMode(id, token);
    if (readOnly === null) return null;
    const r = await this.repo.byId(id);
    const owner = r && r.state === 'active' && !this.lost(r) ? this.remote(r) : null;
    return owner ? { owner, readOnly } : null;
  }

  /** Idle timeout and maximum lifetime. */
  private async sweep() {
    const c = this.deps.config;
    const now = Date.now();
    for (const [id, l] of [...this.live]) {
      const idle = now - l.rt.lastActivity > c.captureIdleTimeoutS * 1000;
      const old = now - l.rt.startedAt > c.captureMaxLifetimeS * 1000;
      if (!idle && !old) continue;
      if (c.captureTimeoutAction === 'complete') await this.beginCompleting(id);
      else await this.end(id, 'abandoned', idle ? 'idle timeout' : 'maximum lifetime reached');
    }
  }

  /** Ends every live session (failed: the server is shutting down), waits for finalizing, closes the browser. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    this.timer = null;
    this.leaseTimer = null;
    await Promise.allSettled([...this.finishing.values()].map((f) => f.job));
    for (const id of [...this.live.keys()]) await this.end(id, 'failed', 'server shut down').catch(() => {});
    await this.pool.close();
  }
}
