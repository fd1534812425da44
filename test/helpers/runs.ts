// Helpers for run tests: publish a connector, create secrets, run, poll until terminal.
import { expect } from 'vitest';
import type { RunExecutor } from '../../src/runtime/host/executor.js';
import type { RunRow, RunStore } from '../../src/runtime/host/run-store.js';
import type { Harness } from './harness.js';

export const TERMINAL = ['success', 'connector_error', 'timed_out', 'result_too_large', 'internal_error', 'cancelled'];

export async function publish(h: Harness, body: Record<string, unknown>, key?: string): Promise<any> {
  const r = await h.api(
    'POST',
    '/v1beta/connectors',
    { display_name: 'test connector', purpose: 'test', input_schema: { type: 'object' }, output_schema: {}, ...body },
    key,
  );
  expect(r.status, r.text).toBe(200);
  return r.json;
}

export async function loginSecret(
  h: Harness,
  username: string,
  password: string,
  totp_secret: string | null = null,
  key?: string,
): Promise<string> {
  const r = await h.api(
    'POST',
    '/v1beta/secrets',
    { name: `${username} login`, secret_type: 'login', username, password, totp_secret },
    key,
  );
  expect(r.status, r.text).toBe(200);
  return r.json.id;
}

export async function run(h: Harness, body: Record<string, unknown>, key?: string): Promise<any> {
  const r = await h.api('POST', '/v1beta/runs', body, key);
  expect([200, 202], r.text).toContain(r.status);
  return r.json;
}

export async function waitRun(h: Harness, id: string, timeoutMs = 30_000, key?: string): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await h.api('GET', `/v1beta/runs/${id}`, undefined, key);
    if (TERMINAL.includes(r.json.status)) return r.json;
    if (Date.now() > until) throw new Error(`run ${id} still ${r.json.status}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

export async function logsOf(h: Harness, id: string, key?: string): Promise<string> {
  return (await h.api('GET', `/v1beta/runs/${id}/logs`, undefined, key)).json.logs;
}

/** A `pending` runs row as the API stores one (async, no secrets), for tests that insert rows directly. */
export function pendingRunRow(r: { id: string; user_id: string; connector_id: string; created_at: string }): RunRow {
  return {
    ...r,
    connector_version: 1,
    arguments: '{}',
    secret_bindings: null,
    ephemeral_secrets: 0,
    proxy: null,
    is_async: 1,
    max_timeout_s: 300,
    status: 'pending',
    result: null,
    result_stored: 0,
    result_size_bytes: null,
    error: null,
    has_logs: 0,
    started_at: null,
    finished_at: null,
    lease_until: null,
    cancel_requested: 0,
    progress: null,
    webhook_url: null,
  };
}

/**
 * A stand-in executor for dispatcher tests: `before(runId)` runs first (record, measure, yield),
 * then the run ends `success` through the store, as the real executor ends it.
 */
export function endingExecutor(store: RunStore, before: (runId: string) => unknown): RunExecutor {
  return {
    holdRow: () => {},
    heldSecretRuns: () => [],
    async execute(runId: string) {
      await before(runId);
      await store.finish({
        runId,
        status: 'success',
        result: '1',
        resultSizeBytes: 1,
        error: null,
        finishedAt: new Date().toISOString(),
        logs: '',
      });
    },
  } as unknown as RunExecutor;
}
