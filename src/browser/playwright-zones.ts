// Playwright keeps its "zones" (which API call a nested call belongs to) in an AsyncLocalStorage.
// On Node 20 the first AsyncLocalStorage.run turns on async hooks for the whole process, for good:
// every promise then pays for them. The API process launches Chromium for capture sessions (at
// start, with CAPTURE_WARM_CONTEXTS > 0), so every run and request paid: under bench/workers.ts
// the API process's CPU per run was ≈ 850 µs with the warm contexts and ≈ 580 µs without.
//
// Here that one storage gets a synchronous stand-in: a zone holds while the function given to
// `run` executes synchronously, not across its awaits. Playwright reads zones only for metadata:
// a client call made after an await inside another call is reported as a call of its own (its own
// stack capture and API name) instead of folding into the outer one. Nothing else in this process
// uses AsyncLocalStorage (checked with a tracer on run/enterWith), so async hooks stay off.
// Node 22+ implements AsyncLocalStorage without hooks (async context frames); the stand-in is
// harmless there too. test/playwright-zones.test.ts checks that hooks stay off after a launch.
import { createRequire } from 'node:module';

interface Storage {
  run<R>(store: unknown, fn: (...args: unknown[]) => R, ...args: unknown[]): R;
  getStore(): unknown;
  enterWith?(store: unknown): void;
}

let installed = false;

/** Replaces Playwright's zone storage with the synchronous stand-in (once per process). */
export function quietPlaywrightZones(): void {
  if (installed) return;
  installed = true;
  const require = createRequire(import.meta.url);
  // The same module instance `playwright-core` itself loads (its index requires lib/coreBundle).
  const zone = (require('playwright-core/lib/coreBundle') as { utils?: { emptyZone?: { _asyncLocalStorage?: Storage } } }).utils?.emptyZone;
  const storage = zone?._asyncLocalStorage;
  // A Playwright release that reshapes its zones leaves them as they are (slower, still correct);
  // the test fails then, so the upgrade is looked at.
  if (!storage || typeof storage.run !== 'function' || typeof storage.getStore !== 'function') return;
  let current: unknown;
  storage.run = <R>(store: unknown, fn: (...args: unknown[]) => R, ...args: unknown[]): R => {
    const outer = current;
    current = store;
    try {
      return fn(...args);
    } finally {
      current = outer;
    }
  };
  storage.getStore = () => current;
  storage.enterWith = (store: unknown) => {
    current = store;
  };
}
