// Lifecycle events of runs, capture sessions, synthesis and browsers: emitted by the services and
// the runtime, consumed by whoever subscribes in the composition root (log lines, metrics).
// Events carry ids, states and timings only — never a secret value, an argument or a result.

export type LifecycleEvent =
  | { kind: 'run.started'; runId: string; userId: string; connectorId: string; engine: string }
  | {
      kind: 'run.finished';
      runId: string;
      userId: string;
      connectorId: string;
      /** Unknown when the run failed before its connector version was read. */
      engine: string | null;
      status: string;
      durationMs: number;
    }
  | { kind: 'capture.state'; sessionId: string; userId: string; state: string; reason: string | null }
  | {
      kind: 'synthesis.finished';
      userId: string;
      outcome: 'ok' | 'failed';
      /** The stage that refused the recording (422), or the engine of the published plan. */
      stage: string | null;
      engine: string | null;
      durationMs: number;
    }
  | { kind: 'browser.launched'; role: 'runs' | 'capture' }
  | { kind: 'browser.disconnected'; role: 'runs' | 'capture'; expected: boolean };

export type EventListener = (e: LifecycleEvent) => void;

export class EventBus {
  private readonly listeners: EventListener[] = [];

  on(fn: EventListener): () => void {
    this.listeners.push(fn);
    return () => {
      const i = this.listeners.indexOf(fn);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** Synchronous and never throws: a failing listener must not break the run or request that emitted. */
  emit(e: LifecycleEvent): void {
    for (const fn of this.listeners) {
      try {
        fn(e);
      } catch {
        /* an observer's fault stays the observer's */
      }
    }
  }
}
