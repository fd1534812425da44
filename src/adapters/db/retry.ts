// PostgreSQL aborts one of two transactions that wait on each other's row locks (deadlock, 40P01)
// or, under SERIALIZABLE, one that lost a race (40001). Both are safe to run again as a whole:
// this does, a few times with a short jittered pause, for transactions written to be repeatable.
const RETRYABLE = new Set(['40P01', '40001']);

export const isRetryableTxError = (e: unknown) => RETRYABLE.has((e as { code?: string })?.code ?? '');

export async function retryTransaction<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (e) {
      if (i >= attempts || !isRetryableTxError(e)) throw e;
      await new Promise((r) => setTimeout(r, 5 * i + Math.random() * 20));
    }
  }
}
