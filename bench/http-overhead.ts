// Benchmark 1 (issue 2): throughput of GET /v1beta/files/{id} (auth + database + serialization)
// against a bare Fastify JSON route, measured in the same run. Target: ratio ≥ 0.5.
//   npx tsx bench/http-overhead.ts [seconds]
import { load, startTarget } from './lib.js';

const seconds = Number(process.argv[2] ?? 10);
const bare = await startTarget<{ port: number }>('bench/targets/bare-server.ts');
const app = await startTarget<{ port: number; key: string; fileId: string }>('bench/targets/app-server.ts');
try {
  const bareUrl = `http://127.0.0.1:${bare.info.port}/v1beta/files/x`;
  const appUrl = `http://127.0.0.1:${app.info.port}/v1beta/files/${app.info.fileId}`;
  const auth = { authorization: `Bearer ${app.info.key}` };
  // Warm both (JIT, caches), then measure.
  await load(bareUrl, {}, 2);
  await load(appUrl, auth, 2);
  const b = await load(bareUrl, {}, seconds);
  const a = await load(appUrl, auth, seconds);
  const ratio = a.rps / b.rps;
  const row = (n: string, r: typeof a) =>
    `${n.padEnd(28)} ${r.rps.toFixed(0).padStart(8)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  errors ${r.errors} non2xx ${r.non2xx}`;
  console.log(row('bare Fastify JSON route', b));
  console.log(row('GET /v1beta/files/{id}', a));
  console.log(`ratio real/bare: ${(ratio * 100).toFixed(1)}% (target ≥ 50%)`);
  if (a.non2xx || a.errors) throw new Error('the real route answered errors during the run');
} finally {
  await app.stop();
  await bare.stop();
}
