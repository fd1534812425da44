// Bounds of a run's "step n of m" progress, shared by the worker (which clamps what it sends) and
// the parent (which refuses a message beyond them: worker-messages.ts).

/** Largest step count a worker may report (a run never has more steps or requests than this). */
export const MAX_PROGRESS_STEP = 1_000_000;
/** Longest progress label, in UTF-16 units. */
export const MAX_PROGRESS_LABEL = 200;
