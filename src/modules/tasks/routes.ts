// /v1beta/tasks: the task-based family (Task-based operations) plus our extensions
// (create, list, get). Thin: rules live in service.ts. Task ids are UUIDs: a malformed one is a
// 422 at ["path","id"].
import type { FastifyPluginAsync } from 'fastify';
import type { TasksService } from './service.js';
import { UuidParam, errorResponses, listEnvelope } from '../../http/schemas.js';
import {
  CreateTaskBody,
  DeleteTaskResponse,
  ListTasksQuery,
  StartManualSessionBody,
  StartManualSessionResponse,
  TaskSchema,
  type ListTasksQuery as ListQuery,
} from './schemas.js';

const tags = ['Tasks'];
type IdParams = { id: string };
const extension = { 'x-extension': true };

export const tasksRoutes: FastifyPluginAsync<{ tasks: TasksService }> = async (app, { tasks }) => {
  app.post<{ Body: CreateTaskBody }>(
    '/tasks',
    {
      schema: {
        tags,
        operationId: 'createTask',
        summary: 'Create a task',
        description:
          'Extension. A task starts not_ready; start a manual session, do the task in it and complete it to make the task ready. ' +
          'webhook_url is told (task.completed) each time the task becomes ready or failed.',
        body: CreateTaskBody,
        response: { 200: TaskSchema, ...errorResponses() },
        ...extension,
      },
    },
    async (req) => tasks.create(req.userId, req.body),
  );

  app.get<{ Querystring: ListQuery }>(
    '/tasks',
    {
      schema: {
        tags,
        operationId: 'listTasks',
        summary: 'List tasks',
        description: 'Extension. The caller’s tasks, newest first, with cursor pagination.',
        querystring: ListTasksQuery,
        response: { 200: listEnvelope(TaskSchema, 'ListTasksResponse'), ...errorResponses() },
        ...extension,
      },
    },
    async (req) => tasks.list(req.userId, req.query),
  );

  app.get<{ Params: IdParams }>(
    '/tasks/:id',
    {
      schema: {
        tags,
        operationId: 'getTask',
        summary: 'Get a task',
        description: 'Extension. Poll it after completing the manual session: the state moves to ready or failed.',
        params: UuidParam(),
        response: { 200: TaskSchema, ...errorResponses() },
        ...extension,
      },
    },
    async (req) => tasks.get(req.userId, req.params.id),
  );

  app.post<{ Params: IdParams }>(
    '/tasks/:id/retry',
    {
      schema: {
        tags,
        operationId: 'retryTask',
        summary: 'Retry a failed task',
        description:
          'Re-synthesizes from the last completed recording, or returns the task to not_ready when there is none. 409 unless the task failed.',
        params: UuidParam(),
        response: { 200: TaskSchema, ...errorResponses(409) },
      },
    },
    async (req) => tasks.retry(req.userId, req.params.id),
  );

  app.post<{ Params: IdParams; Body: StartManualSessionBody }>(
    '/tasks/:id/start-manual-session',
    {
      schema: {
        tags,
        operationId: 'startTaskManualSession',
        summary: 'Start a manual session',
        description:
          'Starts a capture session on the task’s website. Complete it with POST /v1beta/capture_sessions/{session_id}/complete; ' +
          'the task then becomes ready (or failed, with failure_info). 409 while another manual session of the task is in progress.',
        params: UuidParam(),
        body: StartManualSessionBody,
        response: { 200: StartManualSessionResponse, ...errorResponses(409, 429) },
      },
    },
    async (req) => tasks.startManualSession(req.userId, req.params.id, req.body ?? null),
  );

  app.delete<{ Params: IdParams }>(
    '/tasks/:id',
    {
      schema: {
        tags,
        operationId: 'deleteTask',
        summary: 'Delete a task',
        description:
          'Deletes the task; its connector is retired (its runs stay readable through GET /v1beta/runs). Answers {id, deleted: true}.',
        params: UuidParam(),
        response: { 200: DeleteTaskResponse, ...errorResponses() },
      },
    },
    async (req) => tasks.delete(req.userId, req.params.id),
  );
};
