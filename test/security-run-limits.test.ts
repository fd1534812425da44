// Issue 9, findings 3 and 7: one run can't exhaust the server. Attacks through the real API and
// real sandbox workers: a log flood (6,000 lines of 1 MB and one giant line), a forged flood from
// a hostile worker straight into the server's IPC listener, a secret straddling a line cut, and
// scripts saving 200 MB of output files (one file, and many files while catching the refusal).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from './helpers/harness.js';
import { logsOf, publish, run, waitRun } from './helpers/runs.js';
import { LINE_MAX_BYTES } from '../src/runtime/shared/log-cap.js';

const script = (source: string, extra: Record<string, unknown> = {}) => ({
  definition: { format: 'connector-definition/v1', engine: 'script', source },
  ...extra,
});
const MB = 1024 * 1024;
const LOG_CAP = 1_000_000;

/** Output blobs of a user on disk (dot-files are metadata and temp files). */
function blobFiles(h: Harness, userId: string): { visible: string[]; temp: string[] } {
  const dir = path.join(h.dataDir, 'blobs', 'files', userId);
  const all = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  return { visible: all.filter((f) => !f.startsWith('.')), temp: all.filter((f) => f.endsWith('.tmp')) };
}

describe.each(await backends())('run limits (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    // Scripts get room to build a 200 MB file, so the output quota (not the sandbox's memory) refuses it.
    h = await startHarness(backend, { RUN_CONCURRENCY: '2', RUN_LOG_MAX_BYTES: String(LOG_CAP), SCRIPT_MEMORY_MB: '1024' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a connector logging 6,000 lines of 1 MB and a 32 MB line: bounded logs, server alive, memory bounded', async () => {
    const c = await publish(
      h,
      script(`export default async (ctx) => {
        const mb = 'x'.repeat(${MB});
        ctx.log('giant ' + 'y'.repeat(${32 * MB}));
        for (let i = 0; i < 6000; i++) {
          ctx.log('line ' + i + ' ' + mb);
          // Let the worker flush between bursts, as a long-running connector would.
          if (i % 20 === 19) await new Promise((r) => setTimeout(r, 0));
        }
        return { done: true };
      }`),
    );
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const r = await run(h, { connector_id: c.id, max_timeout_s: 240 }).finally(() => clearInterval(sampler));
    expect(r.status, JSON.stringify(r.error)).toBe('success');
    expect(r.result).toEqual({ done: true });
    // The server took in far less than the 6 GB printed (the bound is generous: a shared machine).
    expect(peak - rss0).toBeLessThan(300 * MB);
    const logs = await logsOf(h, r.id);
    expect(Buffer.byteLength(logs)).toBeLessThanOrEqual(LOG_CAP);
    const lines = logs.split('\n');
    // Each kept line is cut to the per-line cap and says by how much.
    expect(lines[0]).toMatch(/^\S+Z giant y+… \(\d+ bytes cut\)$/);
    expect(lines[1]).toMatch(/^\S+Z line 0 x+… \(\d+ bytes cut\)$/);
    for (const l of lines) expect(Buffer.byteLength(l)).toBeLessThanOrEqual(LINE_MAX_BYTES + 40);
    const m = /^… (\d+) more log lines dropped \(RUN_LOG_MAX_BYTES=1000000\)$/.exec(lines.at(-1)!);
    expect(m).not.toBeNull();
    // Every line is either kept or counted (6,001 logged).
    expect(lines.length - 1 + Number(m![1])).toBe(6001);
    // Alive and serving: another run works.
    const ok = await publish(h, script(`export default async () => ({ ok: 1 })`));
    expect((await run(h, { connector_id: ok.id })).result).toEqual({ ok: 1 });
  }, 300_000);

  /**
   * The worker process of a run, as a channel to forge messages on: what is emitted on it is what
   * the parent would receive from the worker, naming that run (its `seq`) unless it says otherwise.
   */
  async function forgeOn(runId: string): Promise<{ seq: number; emit(event: 'message', m: Record<string, unknown>): void }> {
    let job: { proc: import('node:child_process').ChildProcess; seq: number } | undefined;
    for (let i = 0; i < 400 && !job; i++) {
      job = h.services.runtime.pool.jobOf(runId);
      if (!job) await new Promise((res) => setTimeout(res, 10));
    }
    expect(job).toBeDefined();
    const { proc, seq } = job!;
    return { seq, emit: (event, m) => proc.emit(event, { seq, ...m }) };
  }

  /** A slow honest script run, and its worker process (tests forge messages on its channel). */
  async function slowRunWithWorker() {
    const c = await publish(
      h,
      script(
        `export default async (ctx) => { ctx.log('honest line'); await new Promise((r) => setTimeout(r, 1500)); return { slept: true }; }`,
      ),
    );
    const r = await run(h, { connector_id: c.id, async: true });
    const proc = await forgeOn(r.id);
    await new Promise((res) => setTimeout(res, 400)); // the honest line arrives first (100 ms flush)
    return { r, proc };
  }

  it('the server bounds what a hostile worker sends: a forged flood of well-formed log messages', async () => {
    const { r, proc } = await slowRunWithWorker();
    const rss0 = process.memoryUsage().rss;
    // What a compromised worker could put on the channel: 2,000 lines of 1 MB (2 GB if kept),
    // with dropped counts that only ever grow, the last absurd.
    const mb = 'z'.repeat(MB);
    for (let k = 0; k < 20; k++) {
      const lines = Array.from({ length: 100 }, (_, i) => ({ at: 'forged', line: `${k * 100 + i} ${mb}` }));
      proc.emit('message', { t: 'logs', lines, dropped: k === 19 ? 1e300 : k });
    }
    const grown = process.memoryUsage().rss - rss0;
    const done = await waitRun(h, r.id);
    expect(done.status, JSON.stringify(done.error)).toBe('success');
    expect(grown).toBeLessThan(300 * MB);
    const logs = await logsOf(h, r.id);
    expect(Buffer.byteLength(logs)).toBeLessThanOrEqual(LOG_CAP);
    for (const l of logs.split('\n')) expect(Buffer.byteLength(l)).toBeLessThanOrEqual(LINE_MAX_BYTES + 40);
    expect(logs).toMatch(/^\S+Z honest line$/m);
    expect(logs).toMatch(/^forged 0 z+… \(\d+ bytes cut\)$/m);
    expect(logs).toMatch(/\n… \d+ more log lines dropped \(RUN_LOG_MAX_BYTES=1000000\)$/);
    expect(logs).not.toMatch(/Infinity|NaN|e\+300/);
  }, 60_000);

  it('a malformed log message (lines not strings, a giant timestamp, nonsense counts) stops the worker: crash, bounded memory', async () => {
    for (const forged of [
      { t: 'logs', lines: [{ at: 'z'.repeat(MB), line: { not: 'a string' } }, null, 42], dropped: 7 },
      { t: 'logs', lines: [], dropped: 'many' },
      { t: 'logs', lines: 'not an array' },
    ]) {
      const { r, proc } = await slowRunWithWorker();
      proc.emit('message', forged);
      const done = await waitRun(h, r.id);
      expect(done.status).toBe('connector_error');
      expect(done.error).toMatchObject({ type: 'crash', message: expect.stringMatching(/malformed or unknown message \(logs\)/) });
      const logs = await logsOf(h, r.id);
      expect(Buffer.byteLength(logs)).toBeLessThanOrEqual(LOG_CAP);
      expect(logs).not.toMatch(/many|z{1000}/);
    }
  }, 60_000);

  it('batches: a malformed message inside one stops the worker as alone would; a batch inside a batch too', async () => {
    const cases = (seq: number) =>
      [
        [
          {
            t: 'batch',
            messages: [
              { seq, t: 'logs', lines: [] },
              { seq, t: 'logs', lines: 'not an array' },
            ],
          },
          /malformed or unknown message \(logs\)/,
        ],
        [
          {
            t: 'batch',
            messages: [
              { seq, t: 'logs', lines: [] },
              { t: 'batch', messages: [] },
            ],
          },
          /a batch inside a batch/,
        ],
        [{ t: 'batch', messages: 'not a list' }, /malformed or unknown message \(batch\)/],
      ] as const;
    for (let i = 0; i < 3; i++) {
      const { r, proc } = await slowRunWithWorker();
      const [forged, why] = cases(proc.seq)[i]!;
      proc.emit('message', forged);
      const done = await waitRun(h, r.id);
      expect(done.status).toBe('connector_error');
      expect(done.error).toMatchObject({ type: 'crash', message: expect.stringMatching(why) });
    }
  }, 60_000);

  it("a flood that then hangs: the timeout still lands in the log (the platform's lines have room), with the dropped count", async () => {
    const c = await publish(
      h,
      script(
        `export default async (ctx) => { for (let i = 0; i < 5000; i++) ctx.log('flood ' + i + ' ' + 'x'.repeat(1000)); await new Promise((r) => setTimeout(r, 60000)); }`,
      ),
    );
    // 5 s: on a loaded machine the sandbox may need a few seconds before the flood even starts.
    const r = await run(h, { connector_id: c.id, max_timeout_s: 5 });
    expect(r.status).toBe('timed_out');
    const logs = await logsOf(h, r.id);
    expect(Buffer.byteLength(logs)).toBeLessThanOrEqual(LOG_CAP);
    const lines = logs.split('\n');
    expect(lines.at(-2)).toMatch(/^\S+Z timed out after 5 s; the sandbox was stopped$/);
    const m = /^… (\d+) more log lines dropped/.exec(lines.at(-1)!);
    expect(Number(m?.[1])).toBe(5000 - (lines.length - 2));
  }, 60_000);

  it('a secret across a line cut, or longer than a line, is redacted whole, never left as a prefix', async () => {
    const secret = `${Array.from({ length: 5000 }, (_, i) => String.fromCharCode(97 + ((i * 7) % 26))).join('')}!Q`;
    const c = await publish(
      h,
      script(
        `export default async (ctx) => {
          const s = ctx.secrets.token.value;
          ctx.log('a'.repeat(${LINE_MAX_BYTES - 100}) + s + ' after');
          ctx.log('b'.repeat(${LINE_MAX_BYTES + 300}) + s);
          ctx.log(s + s + s + s);
          ctx.log(encodeURIComponent(s) + 'c'.repeat(${2 * MB}));
          return {};
        }`,
        { required_secrets: [{ name: 'token', type: 'string' }] },
      ),
    );
    const r = await run(h, { connector_id: c.id, secret_values: { token: { value: secret } } });
    expect(r.status, JSON.stringify(r.error)).toBe('success');
    const logs = await logsOf(h, r.id);
    expect(logs.split('\n')).toHaveLength(4);
    // No 40-character piece of the secret anywhere (a cut prefix would leave thousands).
    for (let i = 0; i + 40 <= secret.length; i += 40) expect(logs.includes(secret.slice(i, i + 40)), `piece at ${i}`).toBe(false);
    expect(logs).toMatch(/^\S+Z a+\[redacted\]/m);
    for (const l of logs.split('\n')) expect(Buffer.byteLength(l.replace(/^\S+ /, ''))).toBeLessThanOrEqual(LINE_MAX_BYTES);
  }, 60_000);

  it('output files: a 200 MB file is refused whole, the run ends connector_error naming the setting', async () => {
    const { userId, key } = await h.newUser('hoarder');
    const c = await publish(
      h,
      script(`export default async (ctx) => { await ctx.files.save('big.bin', new Uint8Array(${200 * MB})); return { saved: true }; }`),
      key,
    );
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const r = await run(h, { connector_id: c.id, max_timeout_s: 120 }, key).finally(() => clearInterval(sampler));
    expect(r).toMatchObject({
      status: 'connector_error',
      error: { type: 'unhandled', retryable: false, details: { setting: 'RUN_OUTPUT_MAX_FILE_BYTES', limit: 50 * MB } },
    });
    // The sandbox announced the size instead of shipping 200 MB over the channel.
    expect(peak - rss0).toBeLessThan(150 * MB);
    expect(r.error.message).toMatch(/RUN_OUTPUT_MAX_FILE_BYTES/);
    expect((await h.api('GET', `/v1beta/files?run_id=${r.id}`, undefined, key)).json.data).toEqual([]);
    expect(blobFiles(h, userId)).toEqual({ visible: [], temp: [] });
  }, 180_000);

  it('output files: 200 MB in 20 MB files stops at RUN_OUTPUT_MAX_BYTES even when the script catches the refusal', async () => {
    const { userId, key } = await h.newUser('hoarder2');
    const c = await publish(
      h,
      script(`export default async (ctx) => {
        const saved = [];
        for (let i = 0; i < 10; i++) {
          try { saved.push((await ctx.files.save('part' + i, new Uint8Array(${20 * MB}).fill(i))).id); }
          catch (e) { ctx.log('refused', String(e.message)); }
        }
        return { saved };
      }`),
      key,
    );
    const r = await run(h, { connector_id: c.id, max_timeout_s: 120 }, key);
    expect(r).toMatchObject({
      status: 'connector_error',
      result: null,
      error: { type: 'unhandled', details: { setting: 'RUN_OUTPUT_MAX_BYTES' } },
    });
    expect(r.error.message).toMatch(/RUN_OUTPUT_MAX_BYTES \(104857600 bytes/);
    const files = (await h.api('GET', `/v1beta/files?run_id=${r.id}&limit=100`, undefined, key)).json.data;
    expect(files.map((f: any) => f.name).sort()).toEqual(['part0', 'part1', 'part2', 'part3', 'part4']);
    expect(files.reduce((n: number, f: any) => n + f.size_bytes, 0)).toBe(100 * MB);
    const disk = blobFiles(h, userId);
    expect(disk.visible).toHaveLength(5);
    expect(disk.temp).toEqual([]);
    expect(await logsOf(h, r.id, key)).toMatch(/saved output file part4 \(20971520 bytes/);
    expect(await logsOf(h, r.id, key)).toMatch(/output quota exceeded: .*RUN_OUTPUT_MAX_BYTES.*the file was not saved$/m);
  }, 180_000);

  it('output files: the server checks what a hostile worker sends (forged files.save RPCs)', async () => {
    const { userId, key } = await h.newUser('forger');
    const c = await publish(
      h,
      script(`export default async () => { await new Promise((r) => setTimeout(r, 3000)); return { slept: true }; }`),
      key,
    );
    const forge = async (params: Record<string, unknown>) => {
      const r = await run(h, { connector_id: c.id, async: true }, key);
      (await forgeOn(r.id)).emit('message', { t: 'rpc', id: 1, method: 'files.save', params });
      return waitRun(h, r.id, 30_000, key);
    };
    // Bytes over the single-file cap, sent anyway: refused, the run ends at once.
    const big = await forge({ name: 'big', data: new Uint8Array(60 * MB), contentType: 'x/y' });
    expect(big).toMatchObject({ status: 'connector_error', error: { details: { setting: 'RUN_OUTPUT_MAX_FILE_BYTES' } } });
    // A size announced without bytes but under the cap: an error for the connector, nothing
    // stored, the run goes on.
    expect(await forge({ name: 'liar', size: 10, contentType: 'x/y' })).toMatchObject({ status: 'success', result: { slept: true } });
    // Bytes that are not bytes: parameters an honest worker never sends (it checks them first),
    // so the worker is stopped and the run ends crash (rpc-policy.ts).
    for (const params of [
      { name: 'num', data: 12345, contentType: 'x/y' },
      { name: 'obj', data: { length: 1e12 }, contentType: 'x/y' },
    ]) {
      expect(await forge(params)).toMatchObject({
        status: 'connector_error',
        error: { type: 'crash', message: expect.stringMatching(/invalid parameters for files\.save/) },
      });
    }
    expect((await h.api('GET', '/v1beta/files?limit=100', undefined, key)).json.data).toEqual([]);
    expect(blobFiles(h, userId)).toEqual({ visible: [], temp: [] });
  }, 90_000);

  it('output files: one more than RUN_OUTPUT_MAX_FILES ends the run', async () => {
    const c = await publish(
      h,
      script(`export default async (ctx) => { for (let i = 0; i < 25; i++) await ctx.files.save('f' + i + '.txt', 'x'); return {}; }`),
    );
    const r = await run(h, { connector_id: c.id });
    expect(r).toMatchObject({ status: 'connector_error', error: { details: { setting: 'RUN_OUTPUT_MAX_FILES', limit: 20 } } });
    expect((await h.api('GET', `/v1beta/files?run_id=${r.id}&limit=100`)).json.data).toHaveLength(20);
    // The worker was stopped, not left running: the pool serves the next run.
    const ok = await publish(h, script(`export default async () => ({ ok: 2 })`));
    expect((await run(h, { connector_id: ok.id })).result).toEqual({ ok: 2 });
  }, 60_000);
});
