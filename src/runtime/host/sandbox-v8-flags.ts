// V8 settings for the sandbox worker processes.
//
// Each of the RUN_CONCURRENCY workers compiles its own code and sees only its share of the runs,
// so with V8's default tier-up budget a pool of 8 needed about 8 times as many runs as one
// process before the engine code ran optimized: after 4,000 runs, a one-GET run still cost a
// worker ~0.9–1.0 ms of CPU, mostly in baseline code and in the optimizing compiler itself
// (bench/workers.ts). A budget an eighth of the default brings that to ~0.5–0.7 ms.
// V8 12 and later (Node 22+) have Maglev, a fast mid tier that starts early by itself; lowering
// its thresholds there measured no better, so they keep their defaults. The flag is V8 11's: a
// Node whose V8 lacks a command-line flag refuses to start, hence the version check.

/** V8's default `--interrupt-budget` in V8 11 (Node 20). */
const V8_11_INTERRUPT_BUDGET = 67584;

/** Command-line flags for a sandbox worker on this V8 (`process.versions.v8`). */
export function sandboxV8Flags(v8Version: string = process.versions.v8): string[] {
  const major = Number(v8Version.split('.')[0]);
  if (major === 11) return [`--interrupt-budget=${V8_11_INTERRUPT_BUDGET / 8}`];
  return [];
}
