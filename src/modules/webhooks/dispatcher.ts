// The delivery loop of one process: claims due deliveries from the database (any process may
// have queued them; a restart finds them where they were), signs and POSTs each, records the
// attempt, and schedules the next with exponential backoff and full jitter until a 2xx answer
// or WEBHOOK_MAX_ATTEMPTS. Started by Services.start(), stopped by Services.stop(): attempts in
// flight are aborted and their deliveries given back unattempted, due at once for the next start.
import type { Egress } from '../../egress/egress.js';
import { nowIso } from '../../lib/ids.js';
import { signedHeaders } from './signing.js';
import type { DeliveryRow, WebhookStore } from './store.js';
import { postWebhook } from './target.js';

/** Attempts in flight in one process, and of one user among them. */
const CONCURRENCY = 16;
const PER_USER = 4;
/** How often the queue is read when nothing woke the loop earlier (other processes' deliveries). */
const POLL_MS = 1000;
/** A claim outlives the attempt's timeout by this much before another process may take it over. */
const LEASE_MARGIN_MS = 15_000;
/** Finished deliveries are kept this long in the log, then deleted (checked hourly). */
export const RETENTION_DAYS = 30;
const PRUNE_EVERY_MS = 3_600_000;
/** Longest error text kept per attempt. */
const ERROR_CHARS = 500;

export interface DispatcherDeps {
  store: WebhookStore;
  egress: Egress;
  /** The secret that signs this delivery now; null when there is none any more (subscription deleted). */
  secretFor(d: DeliveryRow): Promise<string | null>;
  maxAttempts: number;
  timeoutMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  log?: { error(obj: object, msg: string): void };
}

/** Delay before the attempt after the n-th failed one (n ≥ 1): full jitter over a capped exponential. */
export function backoffMs(n: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(n - 1, 40));
  return Math.floor(random() * ceiling);
}

const truncate = (s: string) => (s.length > ERROR_CHARS ? `${s.slice(0, ERROR_CHARS - 1)}…` : s);
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

export class WebhookDispatcher {
  private running = false;
  private readonly inflight = new Map<string, { abort: AbortController; done: Promise<void> }>();
  /** Deliveries in flight per user (fairness of the claim). */
  private readonly busy = new Map<string, number>();
  private pollTimer: NodeJS.Timeout | null = null;
  private wakeTimer: NodeJS.Timeout | null = null;
  private wakeAt = Number.POSITIVE_INFINITY;
  private filling: Promise<void> | null = null;
  private fillAgain = false;
  private lastPrune = 0;

  constructor(private readonly d: DispatcherDeps) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.pollTimer = setInterval(() => this.tick(), POLL_MS);
    this.pollTimer.unref();
    this.tick();
  }

  /** Looks at the queue in `delayMs` (a delivery was queued, or a retry comes due then). */
  poke(delayMs = 0): void {
    if (!this.running) return;
    const at = Date.now() + delayMs;
    if (this.wakeTimer && at >= this.wakeAt) return;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeAt = at;
    this.wakeTimer = setTimeout(
      () => {
        this.wakeTimer = null;
        this.wakeAt = Number.POSITIVE_INFINITY;
        this.tick();
      },
      Math.max(0, delayMs),
    );
    this.wakeTimer.unref();
  }

  private tick(): void {
    if (!this.running) return;
    if (this.filling) {
      this.fillAgain = true;
      return;
    }
    this.filling = this.fill()
      .catch((err) => this.d.log?.error({ err }, 'webhook dispatcher: reading the queue failed'))
      .finally(() => {
        this.filling = null;
        if (this.fillAgain) {
          this.fillAgain = false;
          this.tick();
        }
      });
  }

  private async fill(): Promise<void> {
    if (Date.now() - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = Date.now();
      await this.d.store.prune(new Date(Date.now() - RETENTION_DAYS * 86_400_000).toISOString());
    }
    const free = CONCURRENCY - this.inflight.size;
    if (free <= 0) return;
    const leaseUntil = new Date(Date.now() + this.d.timeoutMs + LEASE_MARGIN_MS).toISOString();
    const claimed = await this.d.store.claim(free, leaseUntil, this.busy, PER_USER);
    for (const row of claimed) {
      // stop() came while claiming: give it back at once.
      if (!this.running) await this.d.store.release(row);
      else this.launch(row);
    }
  }

  private launch(row: DeliveryRow): void {
    const abort = new AbortController();
    this.busy.set(row.user_id, (this.busy.get(row.user_id) ?? 0) + 1);
    const done = this.attempt(row, abort.signal)
      .catch((err) => this.d.log?.error({ err, delivery: row.id }, 'webhook dispatcher: recording an attempt failed'))
      .finally(() => {
        this.inflight.delete(row.id);
        const n = (this.busy.get(row.user_id) ?? 1) - 1;
        if (n > 0) this.busy.set(row.user_id, n);
        else this.busy.delete(row.user_id);
        this.tick();
      });
    this.inflight.set(row.id, { abort, done });
  }

  private async attempt(row: DeliveryRow, signal: AbortSignal): Promise<void> {
    const startedAt = nowIso();
    const t0 = Date.now();
    let status: number | null = null;
    let error: string | null = null;
    let final = false;
    try {
      const secret = await this.d.secretFor(row);
      if (secret === null) {
        final = true;
        error = 'no signing secret: the subscription was deleted';
      } else {
        // Signed at each attempt: the timestamp is the attempt's, so a late retry still verifies.
        const headers = signedHeaders(secret, row.event_id, Math.floor(Date.now() / 1000), row.payload);
        const answer = await postWebhook(this.d.egress, row.target_url, row.payload, headers, { timeoutMs: this.d.timeoutMs, signal });
        status = answer.status;
        if (status < 200 || status > 299) error = `the receiver answered ${status}${answer.body.trim() ? `: ${oneLine(answer.body)}` : ''}`;
      }
    } catch (e) {
      if (signal.aborted) {
        // Shutdown: not an attempt of the receiver's making. Due again for the next process.
        await this.d.store.release(row);
        return;
      }
      error = e instanceof Error ? e.message : String(e);
    }
    const ok = status !== null && status >= 200 && status <= 299;
    final ||= !ok && row.round_attempts + 1 >= this.d.maxAttempts;
    const delay = ok || final ? 0 : backoffMs(row.round_attempts + 1, this.d.retryBaseMs, this.d.retryMaxMs);
    await this.d.store.recordAttempt(row, {
      startedAt,
      durationMs: Date.now() - t0,
      responseStatus: status,
      error: error === null ? null : truncate(error),
      ok,
      final,
      nextAttemptAt: ok || final ? null : new Date(Date.now() + delay).toISOString(),
    });
    if (!ok && !final) this.poke(delay);
  }

  /** Stops claiming, aborts the attempts in flight (their deliveries stay pending) and waits for them. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.pollTimer = this.wakeTimer = null;
    await this.filling;
    for (const f of this.inflight.values()) f.abort.abort(new Error('the service is stopping'));
    await Promise.allSettled([...this.inflight.values()].map((f) => f.done));
  }
}
