// Prometheus metrics of one app (prom-client) and the lifecycle log lines: both fed by the
// services' lifecycle events; gauges of runs and capture sessions read the database at scrape time.
import type { FastifyBaseLogger } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { LifecycleEvent } from '../../lib/events.js';
import { RUN_STATUSES } from '../runs/schemas.js';
import { HttpHistogram } from './http-histogram.js';

/** What the scrape-time gauges read. */
export interface MetricSources {
  runsByStatus(): Promise<Record<string, number>>;
  captureCounts(): Promise<{ byState: Record<string, number>; liveHere: number }>;
}

const CAPTURE_STATES = ['active', 'completing', 'completed', 'abandoned', 'failed'];

/** One registry per app: tests build many apps in one process. */
export function createMetrics(src: MetricSources) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const m = {
    registry,
    // Labels method, route, status_code; observed on every request (see http-histogram.ts).
    http: new HttpHistogram(
      'http_request_duration_seconds',
      'HTTP request latency by route template, method and status code',
      [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registry,
    ),
    runsStarted: new Counter({ name: 'connector_runs_started_total', help: 'Runs started, by engine', labelNames: ['engine'], registers }),
    runsFinished: new Counter({
      name: 'connector_runs_finished_total',
      help: 'Runs that reached a terminal status in this process, by status and engine',
      labelNames: ['status', 'engine'],
      registers,
    }),
    runDuration: new Histogram({
      name: 'connector_run_duration_seconds',
      help: 'Run execution time (claim to terminal status), by engine and status',
      labelNames: ['engine', 'status'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
      registers,
    }),
    captureTransitions: new Counter({
      name: 'connector_capture_session_transitions_total',
      help: 'Capture session state changes made by this process, by new state',
      labelNames: ['state'],
      registers,
    }),
    browserLaunches: new Counter({
      name: 'connector_browser_launches_total',
      help: 'Browsers launched or connected (runs: the browser engine; capture: capture sessions)',
      labelNames: ['role'],
      registers,
    }),
    browserLost: new Counter({
      name: 'connector_browser_lost_total',
      help: 'Browsers that went away without being closed (crash, remote endpoint gone); the next use starts a new one',
      labelNames: ['role'],
      registers,
    }),
    synthesis: new Counter({
      name: 'connector_synthesis_total',
      help: 'Synthesis attempts by outcome; failed ones by the stage that refused the recording',
      labelNames: ['outcome', 'stage'],
      registers,
    }),
    synthesisDuration: new Histogram({
      name: 'connector_synthesis_duration_seconds',
      help: 'Synthesis time including validation replays, by outcome',
      labelNames: ['outcome'],
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    }),
  };
  // Read from the database at scrape time: the same figures whichever process is scraped.
  new Gauge({
    name: 'connector_runs',
    help: 'Runs in the database by status (all processes)',
    labelNames: ['status'],
    registers,
    async collect() {
      const counts = await src.runsByStatus();
      for (const s of RUN_STATUSES) this.set({ status: s }, counts[s] ?? 0);
    },
  });
  new Gauge({
    name: 'connector_run_queue_depth',
    help: 'Runs waiting to be claimed (all processes)',
    registers,
    async collect() {
      this.set((await src.runsByStatus()).pending ?? 0);
    },
  });
  new Gauge({
    name: 'connector_capture_sessions',
    help: 'Capture sessions in the database by state (all processes)',
    labelNames: ['state'],
    registers,
    async collect() {
      const { byState } = await src.captureCounts();
      for (const s of CAPTURE_STATES) this.set({ state: s }, byState[s] ?? 0);
    },
  });
  new Gauge({
    name: 'connector_capture_sessions_live',
    help: 'Capture sessions whose browser lives in this process',
    registers,
    async collect() {
      this.set((await src.captureCounts()).liveHere);
    },
  });
  return m;
}

export type Metrics = ReturnType<typeof createMetrics>;

/** Counts an event and writes its log line (ids, states and timings only: events carry no secrets). */
export function observe(log: FastifyBaseLogger, m: Metrics, e: LifecycleEvent): void {
  switch (e.kind) {
    case 'run.started':
      m.runsStarted.inc({ engine: e.engine });
      log.info({ run_id: e.runId, connector_id: e.connectorId, user_id: e.userId, engine: e.engine }, 'run started');
      return;
    case 'run.finished': {
      const engine = e.engine ?? 'unknown';
      m.runsFinished.inc({ status: e.status, engine });
      m.runDuration.observe({ engine, status: e.status }, e.durationMs / 1000);
      const fields = {
        run_id: e.runId,
        connector_id: e.connectorId,
        user_id: e.userId,
        engine,
        status: e.status,
        duration_ms: e.durationMs,
      };
      if (e.status === 'internal_error') log.warn(fields, 'run finished');
      else log.info(fields, 'run finished');
      return;
    }
    case 'capture.state':
      m.captureTransitions.inc({ state: e.state });
      log.info({ capture_session_id: e.sessionId, user_id: e.userId, state: e.state, reason: e.reason }, 'capture session state');
      return;
    case 'synthesis.finished':
      m.synthesis.inc({ outcome: e.outcome, stage: e.stage ?? 'none' });
      m.synthesisDuration.observe({ outcome: e.outcome }, e.durationMs / 1000);
      log.info(
        { user_id: e.userId, outcome: e.outcome, stage: e.stage, engine: e.engine, duration_ms: e.durationMs },
        e.outcome === 'ok' ? 'synthesis produced a connector' : 'synthesis refused the recording',
      );
      return;
    case 'browser.launched':
      m.browserLaunches.inc({ role: e.role });
      log.info({ role: e.role }, 'browser started');
      return;
    case 'browser.disconnected':
      if (e.expected) return;
      m.browserLost.inc({ role: e.role });
      log.warn({ role: e.role }, 'browser went away; the next use starts a new one');
      return;
  }
}
