// Runs every benchmark in sequence (npm run bench).
import { spawnSync } from 'node:child_process';

for (const b of ['bench/http-overhead.ts', 'bench/capture.ts']) {
  console.log(`\n== ${b}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', b, ...process.argv.slice(2)], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
