// /v1beta/capture_sessions: thin HTTP layer over CaptureSessionsService.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { CaptureSessionsService } from './service.js';
import { IdParam, errorResponses } from '../../http/schemas.js';
import { CaptureSessionSchema, CreateCaptureSessionBody, PasteBody } from './schemas.js';
import type { CreateCaptureInput } from './service.js';

const tags = ['Capture sessions'];

export const captureSessionsRoutes: FastifyPluginAsync<{ svc: CaptureSessionsService }> = async (app, { svc }) => {
  app.get(
    '/capture_sessions',
    {
      schema: {
        tags,
        operationId: 'listCaptureSessions',
        summary: 'List capture sessions',
        description: 'Newest first; no pagination.',
        response: { 200: Type.Array(CaptureSessionSchema), ...errorResponses() },
      },
    },
    async (req) => svc.list(req.userId),
  );

  app.post<{ Body: CreateCaptureInput | null }>(
    '/capture_sessions',
    {
      schema: {
        tags,
        operationId: 'createCaptureSession',
        summary: 'Start a capture session',
        description:
          'Takes a pre-warmed browser context, starts recording and returns the session with its iframe_url. ' +
          'Optional body (absent or null allowed): use_proxy, cookies, start_url and webhook_url (extensions). 429 when the ' +
          'maximum number of live sessions (CAPTURE_MAX_SESSIONS) is reached.',
        body: CreateCaptureSessionBody,
        'x-optional-body': true,
        response: { 200: CaptureSessionSchema, ...errorResponses(429, 503) },
      } as object,
    },
    async (req) => svc.create(req.userId, req.body ?? {}),
  );

  app.get<{ Params: { id: string } }>(
    '/capture_sessions/:id',
    {
      schema: {
        tags,
        operationId: 'getCaptureSession',
        summary: 'Get a capture session',
        description: 'Poll this after requesting completion.',
        params: IdParam(),
        response: { 200: CaptureSessionSchema, ...errorResponses() },
      },
    },
    async (req) => svc.get(req.userId, req.params.id),
  );

  app.post<{ Params: { id: string } }>(
    '/capture_sessions/:id/complete',
    {
      schema: {
        tags,
        operationId: 'completeCaptureSession',
        summary: 'Complete a capture session',
        description:
          'Stops recording; 202 with state completing; the recording is finalized asynchronously (then completed). 409 unless active.',
        params: IdParam(),
        response: { 202: CaptureSessionSchema, ...errorResponses(409) },
      },
    },
    async (req, reply) => reply.code(202).send(await svc.complete(req.userId, req.params.id)),
  );

  app.post<{ Params: { id: string }; Body: PasteBody }>(
    '/capture_sessions/:id/paste',
    {
      schema: {
        tags,
        operationId: 'pasteCaptureSessionSecret',
        summary: 'Paste a field of a login secret',
        description:
          "Resolves username, password or the current TOTP code of the caller's login secret inside the server and types it at " +
          'the caret of the live browser (Input.insertText). The value is redacted from the recording. 404 unknown session or ' +
          'secret; 422 string secret or totp without a TOTP seed; 409 session not active.',
        params: IdParam(),
        body: PasteBody,
        response: { 204: Type.Null({ description: 'Pasted.' }), ...errorResponses(409) },
      },
    },
    async (req, reply) => {
      await svc.paste(req.userId, req.params.id, req.body);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { id: string } }>(
    '/capture_sessions/:id/abandon',
    {
      schema: {
        tags,
        operationId: 'abandonCaptureSession',
        summary: 'Abandon a capture session',
        description: 'Discards the recording and releases the browser; the session is returned with state abandoned. 409 unless active.',
        params: IdParam(),
        response: { 200: CaptureSessionSchema, ...errorResponses(409) },
      },
    },
    async (req) => svc.abandon(req.userId, req.params.id),
  );

  app.get<{ Params: { id: string } }>(
    '/capture_sessions/:id/recording',
    {
      schema: {
        tags,
        operationId: 'getCaptureSessionRecording',
        summary: 'Get the recording (extension)',
        description:
          'The stored, redacted recording of a completed session: HAR 1.2 with the action log and secret markers in extension ' +
          'fields (docs/recording-format.md). 409 unless completed.',
        params: IdParam(),
        'x-extension': true,
        response: {
          200: Type.Object({ log: Type.Object({}, { additionalProperties: true }) }, { additionalProperties: true, title: 'HarRecording' }),
          ...errorResponses(409),
        },
      } as object,
    },
    async (req, reply) => {
      const { stream } = await svc.recording(req.userId, req.params.id);
      reply.type('application/json');
      return reply.send(stream);
    },
  );
};
