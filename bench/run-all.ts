// Runs every benchmark in sequence (npm run bench).
import { spawnSync } from 'node:child_process';

for (const b of ['bench/http-overhead.ts', 'bench/runs.ts', 'bench/capture.ts', 'bench/synthesis.ts']) {
  console.log(`\n== ${b}`);
  // Arguments (seconds) are for http-overhead; the run benchmarks use their defaults.
  const args = b === 'bench/http-overhead.ts' ? process.argv.slice(2) : [];
  const r = spawnSync(process.execPath, ['--import', 'tsx', b, ...args], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
