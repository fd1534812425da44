// Verified API keys kept in process, so an authenticated request doesn't ask the database who it
// is. Keyed by the key's SHA-256 (the clear key is never kept). Revocation still takes effect at
// once: this process evicts on its own revocations, and drops everything when the change signal
// says another process may have changed the keys (see src/adapters/db/change-signal.ts).
import type { ChangeSignal } from '../../adapters/db/change-signal.js';

export class VerifiedKeys {
  private readonly byHash = new Map<string, { userId: string; until: number }>();

  constructor(
    private readonly signal: ChangeSignal,
    /** Bounded: the oldest entries go first. */
    private readonly max = 10_000,
    /** A safety net, not the revocation mechanism. */
    private readonly ttlMs = 5 * 60_000,
  ) {}

  get(hash: string): string | undefined {
    if (this.signal.changedElsewhere()) {
      this.byHash.clear();
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

  set(hash: string, userId: string): void {
    if (this.byHash.size >= this.max) this.byHash.delete(this.byHash.keys().next().value!);
    this.byHash.set(hash, { userId, until: Date.now() + this.ttlMs });
  }

  evict(hash: string): void {
    this.byHash.delete(hash);
  }

  clear(): void {
    this.byHash.clear();
  }
}
