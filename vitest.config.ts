import { defineConfig } from 'vitest/config';

// Two tiers. `unit` (test/unit/**): pure code, no server, database, browser or child process — runs
// alone in seconds with `npm run test:unit`. `integration` (everything else): the app over HTTP on
// SQLite and PostgreSQL, real Chromium, real worker processes. `npm test` runs both.
export default defineConfig({
  test: {
    projects: [
      {
        // Property tests take a few seconds alone and longer beside the integration tier.
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], pool: 'threads', testTimeout: 30_000 },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: ['test/unit/**', '**/node_modules/**'],
          // (The opt-in acceptance suite drives real applications, two at a time: a flow's recording,
          // synthesis and run take 10-25 s alone and more beside another app.)
          testTimeout: process.env.ACCEPTANCE === '1' ? 90_000 : 30_000,
          hookTimeout: 60_000,
          // expect.poll() waits 1 s by default: too short for a browser frame or a navigation on a
          // loaded 2-core CI machine (a live-view frame after a resize missed it in CI). A poll
          // that passes returns as soon as it does, so only a failing one waits the longer time.
          expect: { poll: { timeout: 10_000 } },
          pool: 'forks',
        },
      },
    ],
  },
});
