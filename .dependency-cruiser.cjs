// The layers of src/, bottom to top, enforced in CI (`npm run lint:deps`, part of `npm test`):
//   lib, formats                      leaves: shared helpers and the data formats (definition, recording)
//   config                            the one configuration schema
//   adapters, egress                  databases, blob stores, vault; the network policy
//   browser, runtime                  Chromium and the run runtime (worker = jailed side, host = parent side)
//   synth                             pure synthesis from recordings
//   modules                           services with the rules; their routes/schemas are the HTTP face
//   http                              the HTTP toolkit (errors mapping, validation, auth, OpenAPI)
//   services.ts, app.ts, start/, console/   composition root and entry points
// A lower layer never imports a higher one, and there are no cycles. See docs/architecture.md.
const layer = (name, from, to) => ({ name, severity: 'error', from: { path: from }, to: { path: to } });
const above = (...names) => `^src/(${names.join('|')})([/.]|$)`;

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'sdk-is-standalone',
      severity: 'error',
      comment: 'sdk/ is published as its own package (@connector-service/sdk): it never imports the server, tests or examples.',
      from: { path: '^sdk/' },
      to: { path: '^(src|test|examples|scripts|bench)/' },
    },
    layer('leaves-stay-leaves', '^src/(lib|formats)/', '^src/(?!lib/|formats/)'),
    layer('config-is-low', '^src/config\\.ts$', '^src/(?!lib/|formats/|config\\.ts)'),
    layer('adapters-below-runtime', '^src/(adapters|egress)/', above('browser', 'runtime', 'synth', 'modules', 'http', 'services', 'app', 'start', 'console')),
    layer('browser-below-runtime', '^src/browser/', above('runtime', 'synth', 'modules', 'http', 'services', 'app', 'start', 'console')),
    layer('runtime-below-modules', '^src/runtime/', above('synth', 'modules', 'http', 'services', 'app', 'start', 'console')),
    layer('jailed-worker-never-imports-host', '^src/runtime/(worker|shared)/', '^src/runtime/(host/|index\\.ts)'),
    {
      name: 'host-imports-only-worker-types',
      severity: 'error',
      from: { path: '^src/runtime/(host/|index\\.ts)' },
      to: { path: '^src/runtime/worker/', dependencyTypesNot: ['type-only'] },
    },
    layer('synth-is-pure', '^src/synth/', above('adapters', 'modules', 'http', 'services', 'app', 'start', 'console')),
    {
      name: 'services-speak-no-http',
      severity: 'error',
      comment: 'Only route plugins and their schemas talk HTTP; services throw domain errors (src/lib/errors.ts).',
      from: { path: '^src/modules/[^/]+/', pathNot: '(routes|schemas)\\.ts$' },
      to: { path: '^src/http/' },
    },
    layer('modules-below-composition', '^src/modules/', above('services', 'app', 'start', 'console')),
    layer('http-below-composition', '^src/http/', above('modules', 'services', 'app', 'start', 'console')),
    {
      name: 'console-browser-code-stays-in-the-browser',
      severity: 'error',
      comment: 'src/console/web is bundled for the browser: it reaches the server only through the public API (types from sdk/src/schema.d.ts).',
      from: { path: '^src/console/web/' },
      to: { path: '^(src/(?!console/web/)|test/|examples/|scripts/)' },
    },
    {
      name: 'server-does-not-import-browser-code',
      severity: 'error',
      from: { path: '^src/(?!console/web/)' },
      to: { path: '^src/console/web/' },
    },
    layer('nothing-imports-entry-points', '^src/(?!start/)', '^src/start/'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
