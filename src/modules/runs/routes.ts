// HTTP surface of /v1beta/runs (Runs); rules in service.ts, execution in src/runtime.
// The runtime (queue + sandbox pool) starts when the app is ready and stops when it closes, so
// CLI commands that open the services never touch runs in flight.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { RunsService } from './service.js';
import type { TasksService } from '../tasks/service.js';
import { IdParam, errorResponses, listEnvelope } from '../../http/schemas.js';
import { invalid } from '../../lib/errors.js';
import { makeValidatorCompiler } from '../../http/validation.js';
import { TaskRunBody, TaskRunSchema, type TaskRunBody as TaskRunInput } from '../tasks/schemas.js';
import {
  CreateRunBody,
  ListRunsQuery,
  RunLogsSchema,
  RunSchema,
  SENSITIVE_FIELDS,
  type CreateRunInput,
  type ListRunsParams,
} from './schemas.js';

const tags = ['Runs'];

/** The task-based variant of POST /runs is told apart by `task_id`. */
const isTaskRun = (b: unknown): b is TaskRunInput => !!b && typeof b === 'object' && 'task_id' in b;

// Each shape is validated by its own schema, so errors stay precise (no oneOf noise); OpenAPI
// shows both under oneOf.
const compile = makeValidatorCompiler();
const validateConnectorRun = compile({ schema: CreateRunBody, httpPart: 'body', method: 'POST', url: '/runs' });
const validateTaskRun = compile({ schema: TaskRunBody, httpPart: 'body', method: 'POST', url: '/runs' });
const dispatchBodyValidation = (data: unknown) => {
  const v = isTaskRun(data) ? validateTaskRun : validateConnectorRun;
  const ok = v(data);
  (dispatchBodyValidation as { errors?: unknown }).errors = v.errors;
  return ok;
};
const Params = IdParam('run_id');
type P = { run_id: string };

export const runsRoutes: FastifyPluginAsync<{ runs: RunsService; tasks: TasksService }> = async (app, { runs, tasks }) => {
  app.post<{ Body: CreateRunInput | TaskRunInput }>(
    '/runs',
    {
      config: { sensitive: SENSITIVE_FIELDS },
      // The API allows proxy_settings: null; treating it as absent keeps the discriminated schema's errors precise.
      preValidation: async (req) => {
        const b = req.body as Record<string, unknown> | undefined;
        if (b && typeof b === 'object' && b.proxy_settings === null) delete b.proxy_settings;
        if (isTaskRun(b) && 'connector_id' in b) {
          throw invalid(
            ['body', 'task_id'],
            'Value error, give connector_id (a connector run) or task_id (a task-based run), not both',
            'value_error',
          );
        }
      },
      validatorCompiler: ({ httpPart, ...rest }) => (httpPart === 'body' ? dispatchBodyValidation : compile({ httpPart, ...rest })),
      schema: {
        tags,
        operationId: 'createRun',
        summary: 'Run a connector (or a task: task-based variant)',
        description:
          'Pins the newest version, validates arguments against its input_schema and the secrets against required_secrets. ' +
          'async=false blocks until a terminal status (200); async=true answers 202 with a pending run at once. secret_values are never stored. ' +
          'webhook_url (extension) is told of the terminal status (run.completed). ' +
          'Task-based variant: a body with task_id (instead of connector_id) runs the task’s connector synchronously and answers the task-based Run ' +
          '(success, result_json); 409 when the task is not ready. A body with both ids is a 422.',
        body: Type.Unsafe({ oneOf: [CreateRunBody, TaskRunBody] }),
        response: { 200: Type.Unsafe({ oneOf: [RunSchema, TaskRunSchema] }), 202: RunSchema, ...errorResponses(409) },
      },
    },
    async (req, reply) => {
      if (isTaskRun(req.body)) return tasks.run(req.userId, req.body);
      const { view, async } = await runs.create(req.userId, req.body);
      return reply.code(async ? 202 : 200).send(view);
    },
  );

  app.get<{ Querystring: ListRunsParams }>(
    '/runs',
    {
      schema: {
        tags,
        operationId: 'listRuns',
        summary: 'List runs of a connector',
        description: 'Newest first; version defaults to the newest version of the connector.',
        querystring: ListRunsQuery,
        response: { 200: listEnvelope(RunSchema, 'ListRunsResponse'), ...errorResponses() },
      },
    },
    async (req) => runs.list(req.userId, req.query),
  );

  app.get<{ Params: P }>(
    '/runs/:run_id',
    { schema: { tags, operationId: 'getRun', summary: 'Get a run', params: Params, response: { 200: RunSchema, ...errorResponses() } } },
    async (req) => runs.get(req.userId, req.params.run_id),
  );

  app.post<{ Params: P }>(
    '/runs/:run_id/cancel',
    {
      schema: {
        tags,
        operationId: 'cancelRun',
        summary: 'Cancel a run',
        description:
          'An extension of the API. A pending run ends `cancelled` at once; a running one is stopped (its sandbox and browser ' +
          'context end) and ends `cancelled`, with a log line saying so. A sync caller waiting for it gets the cancelled run. ' +
          'When another server process executes the run, it stops it within about a second; if that takes longer than 5 s the ' +
          'run is returned still `running`: poll it. 409 when the run has already ended.',
        params: Params,
        response: { 200: RunSchema, ...errorResponses() },
      },
    },
    async (req) => runs.cancel(req.userId, req.params.run_id),
  );

  app.get<{ Params: P }>(
    '/runs/:run_id/logs',
    {
      schema: {
        tags,
        operationId: 'getRunLogs',
        summary: 'Get run logs',
        description:
          "Engine step lines and the connector's own lines, timestamped, capped, with the run's secret values scrubbed. " +
          'Readable while the run executes: the log so far, at most about a second old.',
        params: Params,
        response: { 200: RunLogsSchema, ...errorResponses() },
      },
    },
    async (req) => runs.logs(req.userId, req.params.run_id),
  );
};
