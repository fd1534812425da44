// What an operator sees of a running service: /metrics, /healthz (liveness), /readyz (readiness
// with the cause of a failing part), the HTTP latency histogram and the lifecycle log lines.
// Everything here reads the services; nothing here changes them.
import crypto from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import type { Database } from '../../adapters/db/schema.js';
import type { BlobStore } from '../../adapters/blob/port.js';
import type { EventBus } from '../../lib/events.js';
import { checkBrowserAvailable } from '../../browser/chromium.js';
import { createMetrics, observe, type MetricSources } from './metrics.js';

export interface ObservabilityDeps extends MetricSources {
  config: Config;
  db: Kysely<Database>;
  blobs: BlobStore;
  events: EventBus;
  /** Processes that execute runs: why sandbox workers can't start, or null. */
  sandboxProblem?: () => string | null;
}

interface Check {
  ok: boolean;
  detail?: string;
}

/** Runs a readiness check with a deadline; the cause of a failure goes into the answer. */
async function check(fn: () => Promise<unknown>, timeoutMs = 3000): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      fn(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { ok: true };
  } catch (e) {
    return { ok: false, detail: (e as Error).message || String(e) };
  } finally {
    clearTimeout(timer);
  }
}

/** Called on the root instance (not registered as a plugin): its hooks must see every route. */
export function registerObservability(app: FastifyInstance, deps: ObservabilityDeps): void {
  const m = createMetrics(deps);
  const off = deps.events.on((e) => observe(app.log, m, e));
  app.addHook('onClose', (_app, done) => {
    off();
    done();
  });
  // Callback-style: an async hook costs a promise per request.
  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? 'unmatched';
    m.http.observe(req.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  const token = deps.config.metricsToken;
  const expected = token ? Buffer.from(`Bearer ${token}`) : null;
  app.get('/metrics', { schema: { hide: true } as object }, async (req, reply) => {
    if (expected) {
      const given = Buffer.from(req.headers.authorization ?? '');
      if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) {
        return reply.code(401).header('www-authenticate', 'Bearer').send({ detail: 'Not authenticated' });
      }
    }
    return reply.type(m.registry.contentType).send(await m.registry.metrics());
  });

  // Liveness: the process answers. Orchestrators restart a process only when this fails.
  app.get('/healthz', { schema: { hide: true } as object }, async () => ({ status: 'ok' }));

  // Readiness: the parts a request needs answer. 503 names each failing part and its cause.
  app.get('/readyz', { schema: { hide: true } as object }, async (_req, reply) => {
    const [database, blobStore, browser, sandbox] = await Promise.all([
      check(() => sql`select 1`.execute(deps.db)),
      check(() => deps.blobs.check()),
      check(() => checkBrowserAvailable(deps.config.browserCdpUrl)),
      // A process that executes runs needs sandbox workers that start (ROLE=api executes none).
      check(async () => {
        const problem = deps.sandboxProblem?.();
        if (problem) throw new Error(problem);
      }),
    ]);
    const checks = { database, blob_store: blobStore, browser, ...(deps.sandboxProblem ? { sandbox } : {}) };
    const failing = Object.entries(checks).filter(([, c]) => !c.ok);
    if (!failing.length) return { status: 'ready', checks };
    return reply.code(503).send({
      status: 'unavailable',
      detail: failing.map(([name, c]) => `${name}: ${c.detail}`).join('; '),
      checks,
    });
  });
}
