// Issue 13: an OpenAPI document a client generator can use as is — operationIds, named component
// schemas, typed error responses, examples, servers, licence — and `redocly lint` clean on the
// document the server actually serves (redocly.yaml: the `recommended` ruleset, made stricter).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers/harness.js';
import { deref, oneOfNames, operations } from './helpers/openapi.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..');
const BASE = 'https://connectors.example.test';

// The document does not depend on the database: one backend is enough.
describe('OpenAPI document', () => {
  let h: Harness;
  let doc: any;
  beforeAll(async () => {
    h = await startHarness('sqlite', { PUBLIC_BASE_URL: BASE, LOG_LEVEL: 'warn' });
    const r = await h.api('GET', '/openapi.json', undefined, null);
    expect(r.status).toBe(200);
    doc = r.json;
  }, 60_000);
  afterAll(async () => h?.close());

  it('gives every operation a unique camelCase verb+noun operationId', () => {
    const ops = operations(doc);
    expect(ops.length).toBeGreaterThanOrEqual(36);
    const ids = ops.map(({ op }) => op.operationId);
    for (const { method, path: p, op } of ops) {
      expect(op.operationId, `${method} ${p}`).toMatch(
        /^(list|get|create|update|delete|publish|complete|abandon|paste|retry|redeliver|start|generate|download|cancel)[A-Z][A-Za-z]+$/,
      );
    }
    expect(new Set(ids).size).toBe(ids.length);
    const byRoute = Object.fromEntries(ops.map(({ method, path: p, op }) => [`${method} ${p}`, op.operationId]));
    expect(byRoute).toMatchObject({
      'get /v1beta/runs': 'listRuns',
      'post /v1beta/runs': 'createRun',
      'get /v1beta/runs/{run_id}': 'getRun',
      'get /v1beta/runs/{run_id}/logs': 'getRunLogs',
      'post /v1beta/files': 'createFileUpload',
      'post /v1beta/connectors': 'publishConnector',
      'post /v1beta/capture_sessions': 'createCaptureSession',
    });
  });

  it('names the resources as component schemas and refers to them', () => {
    const names = Object.keys(doc.components.schemas);
    for (const n of [
      'Run',
      'RunError',
      'RunLogs',
      'TaskBasedRun',
      'Connector',
      'SecretSlotDefinition',
      'File',
      'FileDownloadUrl',
      'Secret',
      'TaskBasedSecret',
      'CaptureSession',
      'SessionCookie',
      'Task',
      'ValidationError',
      'HTTPValidationError',
      'ErrorDetail',
      'ListRunsResponse',
      'ListConnectorsResponse',
      'ListFilesResponse',
      'ListConnectorRevisionsResponse',
      'CreateRunRequest',
      'CreateTaskRunRequest',
      'ProxySettings',
      'IspProxy',
      'ResidentialProxy',
      'DeleteConnectorResponse',
      'TotpResponse',
      'WebhookSubscription',
      'CreatedWebhookSubscription',
      'WebhookDelivery',
      'WebhookDeliveryAttempt',
      'ListWebhookDeliveriesResponse',
      'WebhookSigningSecret',
    ]) {
      expect(names, n).toContain(n);
    }
    expect(doc.paths['/v1beta/runs/{run_id}'].get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Run',
    });
    expect(doc.components.schemas.ListRunsResponse.properties.data.items).toEqual({ $ref: '#/components/schemas/Run' });
    expect(doc.components.schemas.Run.properties.error.anyOf).toContainEqual({ $ref: '#/components/schemas/RunError' });
    // No titled schema is left inline in an operation: a generator would invent a name for it.
    const inline: string[] = [];
    const walk = (v: any, at: string): void => {
      if (Array.isArray(v)) return v.forEach((x, i) => walk(x, `${at}/${i}`));
      if (!v || typeof v !== 'object') return;
      if (typeof v.title === 'string' && v.type === 'object') inline.push(`${at}: ${v.title}`);
      for (const [k, x] of Object.entries(v)) if (k !== 'parameters') walk(x, `${at}/${k}`);
    };
    walk(doc.paths, '#/paths');
    expect(inline).toEqual([]);
  });

  it('tells the connector-based and task-based run shapes apart by distinct named schemas', () => {
    const post = doc.paths['/v1beta/runs'].post;
    expect(oneOfNames(post.requestBody.content['application/json'].schema)).toEqual(['CreateRunRequest', 'CreateTaskRunRequest']);
    expect(oneOfNames(post.responses['200'].content['application/json'].schema)).toEqual(['Run', 'TaskBasedRun']);
    const { Run, TaskBasedRun, CreateRunRequest, CreateTaskRunRequest } = doc.components.schemas;
    // Each shape has a required field the other lacks, so a client narrows without a cast.
    expect(CreateRunRequest.required).toContain('connector_id');
    expect(CreateTaskRunRequest.required).toContain('task_id');
    expect(Run.required).toEqual(expect.arrayContaining(['connector_id', 'status']));
    expect(TaskBasedRun.required).toEqual(expect.arrayContaining(['task_id', 'success']));
    expect(Run.properties.task_id).toBeUndefined();
    expect(TaskBasedRun.properties.connector_id).toBeUndefined();
    // The proxy union's discriminator maps its values to the named alternatives.
    expect(doc.components.schemas.ProxySettings.discriminator.mapping).toEqual({
      isp: '#/components/schemas/IspProxy',
      residential: '#/components/schemas/ResidentialProxy',
    });
  });

  it('documents typed error responses on every operation', () => {
    const { responses } = doc.components;
    expect(deref(doc, responses.ValidationFailed.content['application/json'].schema).title).toBe('HTTPValidationError');
    for (const n of ['Unauthorized', 'NotFound', 'Conflict'])
      expect(responses[n].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorDetail' });
    for (const { method, path: p, op } of operations(doc)) {
      const at = `${method} ${p}`;
      expect(op.responses['401'], at).toEqual({ $ref: '#/components/responses/Unauthorized' });
      expect(op.responses['422'], at).toEqual({ $ref: '#/components/responses/ValidationFailed' });
      if (p.includes('{')) expect(op.responses['404'], at).toEqual({ $ref: '#/components/responses/NotFound' });
      if (op.requestBody) expect(Object.keys(op.responses), at).toEqual(expect.arrayContaining(['413', '415']));
      expect(
        Object.keys(op.responses).some((s) => /^[23]\d\d$/.test(s)),
        at,
      ).toBe(true);
      for (const [status, res] of Object.entries<any>(op.responses)) {
        expect(deref(doc, res).description, `${at} ${status}`).not.toMatch(/^(Default Response)?$/);
      }
    }
    expect(Object.keys(doc.paths['/v1beta/runs'].post.responses)).toEqual(expect.arrayContaining(['200', '202', '409']));
  });

  it('has servers, a licence, described tags used consistently, and examples on requests and responses', () => {
    expect(doc.servers).toEqual([{ url: BASE, description: expect.any(String) }]);
    expect(doc.info.license).toEqual({ name: 'Apache-2.0', identifier: 'Apache-2.0' });
    expect(fs.readFileSync(path.join(ROOT, 'LICENSE'), 'utf8')).toContain('Apache License');
    const tags = doc.tags.map((t: any) => t.name);
    expect(tags).toEqual(['Capture sessions', 'Connectors', 'Runs', 'Files', 'Secrets', 'Tasks', 'Webhooks']);
    for (const t of doc.tags) expect(t.description).toBeTruthy();
    for (const { op } of operations(doc)) expect(op.tags).toHaveLength(1);
    const used = new Set(operations(doc).map(({ op }) => op.tags[0]));
    expect([...used].sort()).toEqual([...tags].sort());

    const json = (m: any) => m.content['application/json'];
    const createRun = doc.paths['/v1beta/runs'].post;
    expect(Object.keys(json(createRun.requestBody).examples)).toEqual(['CreateRunRequest', 'CreateTaskRunRequest']);
    expect(json(createRun.responses['202']).example.status).toBe('pending');
    expect(json(doc.paths['/v1beta/runs/{run_id}'].get.responses['200']).example).toMatchObject({ status: 'success' });
    expect(json(doc.paths['/v1beta/files'].post.requestBody).example).toMatchObject({
      name: expect.any(String),
      size_bytes: expect.any(Number),
    });
    expect(doc.components.schemas.Connector.examples).toHaveLength(1);
    expect(json(doc.components.responses.ValidationFailed).example.detail[0].loc).toEqual(['body', 'connector_id']);
  });

  it('passes `redocly lint` (redocly.yaml) with no error and no warning, offline', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
    try {
      const file = path.join(dir, 'openapi.json');
      fs.writeFileSync(file, JSON.stringify(doc));
      const cli = path.join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
      // No telemetry, no update check: the lint must not need the network.
      const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
      const res = await run(process.execPath, [cli, 'lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format=json'], {
        env,
        maxBuffer: 16 * 1024 * 1024,
      }).catch((e) => e as { stdout: string; stderr: string });
      const report = JSON.parse(res.stdout);
      const problems = report.problems.map((p: any) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`);
      expect(problems).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
      // The linter really checks this document: a missing operationId and an example that
      // contradicts its schema are both reported.
      const bad = structuredClone(doc);
      delete bad.paths['/v1beta/runs'].get.operationId;
      bad.paths['/v1beta/runs/{run_id}'].get.responses['200'].content['application/json'].example.status = 'exploded';
      fs.writeFileSync(file, JSON.stringify(bad));
      const res2 = await run(process.execPath, [cli, 'lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format=json'], {
        env,
        maxBuffer: 16 * 1024 * 1024,
      }).catch((e) => e as { stdout: string; stderr: string });
      const rules = JSON.parse(res2.stdout).problems.map((p: any) => p.ruleId);
      expect(rules).toEqual(expect.arrayContaining(['operation-operationId', 'no-invalid-media-type-examples']));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
