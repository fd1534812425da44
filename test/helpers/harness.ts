// Test harness: a real app on a real loopback port, over SQLite (temp dir) or PostgreSQL
// (its own schema per harness, dropped at close). Logs are captured for sentinel checks.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { Writable } from 'node:stream';
import { makeLogger } from '../../src/lib/logger.js';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import { createServices, type Services } from '../../src/services.js';
import { buildApp } from '../../src/app.js';

export type Backend = 'sqlite' | 'postgres';
export const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function postgresReachable(): Promise<boolean> {
  const c = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => {});
  }
}

/** Backends to run integration suites on. CI sets REQUIRE_POSTGRES=1 so a missing server fails loudly. */
export async function backends(): Promise<Backend[]> {
  if (process.env.TEST_BACKENDS) return process.env.TEST_BACKENDS.split(',') as Backend[];
  if (await postgresReachable()) return ['sqlite', 'postgres'];
  if (process.env.REQUIRE_POSTGRES === '1') throw new Error(`PostgreSQL not reachable at ${PG_URL}`);
  console.warn(`PostgreSQL not reachable at ${PG_URL}: running SQLite only`);
  return ['sqlite'];
}

export interface Harness {
  backend: Backend;
  app: FastifyInstance;
  services: Services;
  config: Config;
  /** Base URL of the listening server, e.g. http://127.0.0.1:41234 */
  url: string;
  /** API key of the first user. */
  key: string;
  userId: string;
  dataDir: string;
  /** PostgreSQL schema of this instance (postgres backend only). */
  pgSchema?: string;
  /** Every log line the app wrote, as raw JSON text. */
  logs: string[];
  /** Creates another user with its own key. */
  newUser(name?: string): Promise<{ userId: string; key: string }>;
  /** fetch against the server with the first user's key (or `key`). */
  api(method: string, p: string, body?: unknown, key?: string | null): Promise<ApiResponse>;
  /** `keepData`: leave the data dir and PostgreSQL schema for a harness started with `reuse`. */
  close(opts?: { keepData?: boolean }): Promise<void>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function startHarness(
  backend: Backend,
  env: Record<string, string> = {},
  opts: {
    workerEntry?: string;
    /** A closed harness's data (dir, schema, first user): this one is a restart of that service. */
    reuse?: Pick<Harness, 'dataDir' | 'pgSchema' | 'key' | 'userId'>;
  } = {},
): Promise<Harness> {
  const dataDir = opts.reuse?.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'cs-test-'));
  const pgSchema = backend === 'postgres' ? (opts.reuse?.pgSchema ?? `t_${crypto.randomBytes(6).toString('hex')}`) : undefined;
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'info',
    // A browser starts when a test first needs one, not with every harness.
    CAPTURE_WARM_CONTEXTS: '0',
    // Runs still in flight when a test closes its harness end at once (runs-restart shows the grace).
    RUN_SHUTDOWN_GRACE_S: '0',
    ...(backend === 'postgres' ? { DATABASE_URL: PG_URL } : {}),
    ...env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const logger = makeLogger(config.logLevel, sink);
  const services = await createServices(config, { pgSchema, workerEntry: opts.workerEntry });
  const app = await buildApp(services, { logger });
  await services.start();
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  const url = `http://127.0.0.1:${port}`;
  config.publicBaseUrl = url;
  const boot = opts.reuse ? { key: opts.reuse.key, user: { id: opts.reuse.userId } } : await services.users.bootstrap();
  if (!boot) throw new Error('expected an empty database');

  const api: Harness['api'] = async (method, p, body, key = boot.key) => {
    const headers: Record<string, string> = {};
    if (key) headers.authorization = `Bearer ${key}`;
    let payload: string | undefined;
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await fetch(url + p, { method, headers, body: payload, redirect: 'manual' });
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, text, json };
  };

  return {
    backend,
    app,
    services,
    config,
    url,
    key: boot.key,
    userId: boot.user.id,
    dataDir,
    pgSchema,
    logs,
    api,
    async newUser(name = 'other') {
      const u = await services.users.createUser(name);
      const { key } = await services.users.createKey(u.id);
      return { userId: u.id, key };
    },
    async close({ keepData = false } = {}) {
      await services.stop();
      await app.close();
      await services.close();
      if (keepData) return;
      if (pgSchema) {
        const c = new pg.Client({ connectionString: PG_URL });
        await c.connect();
        await c.query(`DROP SCHEMA IF EXISTS ${pgSchema} CASCADE`);
        await c.end();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
