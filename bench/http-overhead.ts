// Benchmark 1 (issue 2): throughput of GET /v1beta/files/{id} (auth + database + serialization)
// against a bare Fastify JSON route, measured in the same run. Target: ratio ≥ 0.5.
//   npx tsx bench/http-overhead.ts [seconds per target] [slices] [--breakdown]
// --breakdown also loads the app's GET /healthz (no auth, no database, no schemas: what the app's
// server options and global hooks cost on their own), in the same alternating slices.
// The machine may be shared: the two targets are loaded in alternating slices (bare, real, bare,
// real, …), so a burst of outside load hits both alike, and each slice pair gives its own ratio.
// The server CPU time per request (from /proc) is reported too: it hardly depends on that load.
import { cpuSeconds, load, startTarget, type LoadResult } from './lib.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const breakdown = process.argv.includes('--breakdown');
const seconds = Number(args[0] ?? 10);
const slices = Number(args[1] ?? Math.max(1, Math.min(5, Math.floor(seconds))));
const bare = await startTarget<{ port: number }>('bench/targets/bare-server.ts');
const app = await startTarget<{ port: number; key: string; fileId: string }>('bench/targets/app-server.ts');

interface Measured {
  runs: LoadResult[];
  cpuS: number | null;
}

/** One slice of load on a target, with the CPU time its process spent meanwhile. */
async function slice(m: Measured, pid: number, url: string, headers: Record<string, string>, s: number) {
  const before = cpuSeconds(pid);
  m.runs.push(await load(url, headers, s));
  const after = cpuSeconds(pid);
  m.cpuS = before === null || after === null || m.cpuS === null ? null : m.cpuS + after - before;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

try {
  const bareUrl = `http://127.0.0.1:${bare.info.port}/v1beta/files/x`;
  const appUrl = `http://127.0.0.1:${app.info.port}/v1beta/files/${app.info.fileId}`;
  const auth = { authorization: `Bearer ${app.info.key}` };
  // Warm both (JIT, caches), then measure.
  await load(bareUrl, {}, 2);
  await load(appUrl, auth, 2);
  const healthUrl = `http://127.0.0.1:${app.info.port}/healthz`;
  if (breakdown) await load(healthUrl, {}, 2);
  const b: Measured = { runs: [], cpuS: 0 };
  const a: Measured = { runs: [], cpuS: 0 };
  const h: Measured = { runs: [], cpuS: 0 };
  const each = seconds / slices;
  for (let i = 0; i < slices; i++) {
    await slice(b, bare.proc.pid!, bareUrl, {}, each);
    if (breakdown) await slice(h, app.proc.pid!, healthUrl, {}, each);
    await slice(a, app.proc.pid!, appUrl, auth, each);
  }
  const total = (m: Measured) => m.runs.reduce((n, r) => n + r.requests, 0);
  const summary = (m: Measured) => ({
    rps: total(m) / seconds,
    p50: median(m.runs.map((r) => r.p50)),
    p99: Math.max(...m.runs.map((r) => r.p99)),
    errors: m.runs.reduce((n, r) => n + r.errors, 0),
    non2xx: m.runs.reduce((n, r) => n + r.non2xx, 0),
    cpuUs: m.cpuS === null ? null : (m.cpuS * 1e6) / total(m),
  });
  const bs = summary(b);
  const as = summary(a);
  const row = (n: string, r: typeof as) =>
    `${n.padEnd(28)} ${r.rps.toFixed(0).padStart(8)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  errors ${r.errors} non2xx ${r.non2xx}` +
    (r.cpuUs === null ? '' : `  server CPU ${r.cpuUs.toFixed(0)} µs/req`);
  console.log(row('bare Fastify JSON route', bs));
  if (breakdown) console.log(row('app GET /healthz', summary(h)));
  console.log(row('GET /v1beta/files/{id}', as));
  const perSlice = a.runs.map((r, i) => r.rps / b.runs[i].rps);
  console.log(`ratio per slice: ${perSlice.map((r) => `${(r * 100).toFixed(0)}%`).join(' ')}`);
  if (bs.cpuUs !== null && as.cpuUs !== null) {
    console.log(`CPU ratio bare/real: ${((bs.cpuUs / as.cpuUs) * 100).toFixed(1)}% (the ratio if server CPU were the only limit)`);
  }
  console.log(
    `ratio real/bare: ${((as.rps / bs.rps) * 100).toFixed(1)}%, median slice ${(median(perSlice) * 100).toFixed(1)}% (target ≥ 50%)`,
  );
  if (as.non2xx || as.errors) throw new Error('the real route answered errors during the run');
} finally {
  await app.stop();
  await bare.stop();
}
