// Script connector throughput (issue 9: scripts in QuickJS): sequential sync runs (ms per run)
// and 200 concurrent sync runs (runs/s) of a trivial script, on SQLite with the test harness.
//   npx tsx bench/script-runs.ts [sequential=100] [concurrent=200]
import { startHarness } from '../test/helpers/harness.js';

const N = Number(process.argv[2] ?? 100);
const M = Number(process.argv[3] ?? 200);
const CONCURRENCY = process.env.RUN_CONCURRENCY ?? '2';
const h = await startHarness('sqlite', { RUN_CONCURRENCY: CONCURRENCY, LOG_LEVEL: 'warn' });
try {
  const source = 'export default async (ctx) => { ctx.log("hi"); return { n: ctx.args.n + 1 }; }';
  const c = (
    await h.api('POST', '/v1beta/connectors', {
      display_name: 'b',
      purpose: 'p',
      input_schema: { type: 'object' },
      output_schema: {},
      definition: { format: 'connector-definition/v1', engine: 'script', source },
    })
  ).json;
  const once = async (n: number) => {
    const r = await h.api('POST', '/v1beta/runs', { connector_id: c.id, arguments: { n } });
    if (r.json.status !== 'success') throw new Error(JSON.stringify(r.json));
  };
  for (let i = 0; i < 5; i++) await once(i);
  let t0 = Date.now();
  for (let i = 0; i < N; i++) await once(i);
  const seq = (Date.now() - t0) / N;
  t0 = Date.now();
  await Promise.all(Array.from({ length: M }, (_, i) => once(i)));
  const thr = M / ((Date.now() - t0) / 1000);
  console.log(
    `script runs: sequential sync ${seq.toFixed(1)} ms/run; ${M} concurrent sync runs ${thr.toFixed(1)} runs/s (RUN_CONCURRENCY=${CONCURRENCY})`,
  );
} finally {
  await h.close();
}
