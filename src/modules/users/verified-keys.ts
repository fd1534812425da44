// Verified API keys kept in process, so an authenticated request doesn't ask the database who it
// is. Keyed by the key's SHA-256 (the clear key is never kept). Revocation still takes effect at
// once: this process evicts on its own revocations, and drops everything when the change signal
// says another process may have changed the keys (see src/adapters/db/change-signal.ts).
import type { ChangeSignal } from '../../adapters/db/change-signal.js';

export class VerifiedKeys {
  private readonly byHash = new Map<string, { userId: string; until: number }>();
  /**
   * Moves on every eviction and clear. A lookup takes it before it reads the database and `set`
   * drops its answer if it moved meanwhile: a read that began before a revocation (PostgreSQL: an
   * asynchronous query) must not cache a key that was evicted, or cleared on a notice, while it ran.
   */
  private gen = 0;

  get generation(): number {
    return this.gen;
  }

  constructor(
    private readonly signal: ChangeSignal,
    /** Bounded: the oldest entries go first. */
    private readonly max = 10_000,
    /** A safety net, not the revocation mechanism. */
    private readonly ttlMs = 5 * 60_000,
  ) {}

  get(hash: string): string | undefined {
    if (this.signal.changedElsewhere()) {
      this.clear();
      return undefined;
    }
    const hit = this.byHash.get(hash);
    if (!hit) return undefined;
    if (hit.until < Date.now()) {
      this.byHash.delete(hash);
      return undefined;
    }
    return hit.userId;
  }

  /** `seen`: the generation taken before the database was read. */
  set(hash: string, userId: string, seen: number): void {
    if (seen !== this.gen) return;
    if (this.byHash.size >= this.max) this.byHash.delete(this.byHash.keys().next().value!);
    this.byHash.set(hash, { userId, until: Date.now() + this.ttlMs });
  }

  evict(hash: string): void {
    this.gen++;
    this.byHash.delete(hash);
  }

  clear(): void {
    this.gen++;
    this.byHash.clear();
  }
}
