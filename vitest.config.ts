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
          testTimeout: 30_000,
          hookTimeout: 60_000,
          pool: 'forks',
        },
      },
    ],
  },
});
