// buildApp(services): the HTTP application. No I/O happens at import time; everything it
// needs is passed in, so tests build as many isolated apps as they like.
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import { DomainError, InvalidInput, type Problem } from './lib/errors.js';
import { HttpError, ajvToEntries, capEntries, domainErrorResponse, redactEntries } from './http/errors.js';
import { MAX_PARAM_LENGTH, edgeServerOptions } from './http/edge.js';
import { registerBodyIdleTimeout, registerCloseUnreadBodies } from './http/body-guard.js';
import { registerTurnBatchedSend } from './http/turn-batched-send.js';
import { makeValidatorCompiler } from './http/validation.js';
import { SHARED_SCHEMAS } from './http/schemas.js';
import { registerAuth } from './http/auth.js';
import { registerOpenApi } from './http/openapi.js';
import { registerJsonParser } from './http/json-body.js';
import { requestIdFor } from './http/request-id.js';
import { RequestLogController, lazyChildLogger } from './http/request-logger.js';
import type { Services } from './services.js';
import { secretsRoutes } from './modules/secrets/routes.js';
import { filesRoutes } from './modules/files/routes.js';
import { connectorsRoutes } from './modules/connectors/routes.js';
import { tasksRoutes } from './modules/tasks/routes.js';
import { runsRoutes } from './modules/runs/routes.js';
import { blobRoutes } from './modules/files/local-blob-routes.js';
import { captureSessionsRoutes } from './modules/capture-sessions/routes.js';
import { liveViewRoutes } from './modules/capture-sessions/live-routes.js';
import { registerObservability } from './modules/observability/routes.js';
import { mcpRoutes } from './modules/mcp/routes.js';
import { webhooksRoutes } from './modules/webhooks/routes.js';
import { consoleRoutes } from './console/routes.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Body fields holding credentials: never echoed in 422 `input`, never logged. */
    sensitive?: readonly string[];
  }
}

export interface AppOptions {
  logger: FastifyBaseLogger;
}

function sendValidation(reply: import('fastify').FastifyReply, entries: Problem[], sensitive: readonly string[]) {
  // Capped first: redaction then walks a small, shallow structure.
  return reply.code(422).send({ detail: redactEntries(capEntries(entries), sensitive) });
}

export async function buildApp(services: Services, opts: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: opts.logger,
    bodyLimit: 10 * 1024 * 1024,
    ajv: undefined,
    return503OnClosing: true,
    // X-Request-Id: the caller's (when a plain token) or a new one; every request log line carries it.
    genReqId: requestIdFor,
    logController: new RequestLogController({ requestIdLogLabel: 'request_id' }),
    // A request's logger (with its request id) is built when it first writes a line.
    childLoggerFactory: lazyChildLogger,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    ...edgeServerOptions(services.config),
  });
  // Beyond it Node closes new connections at once: one client cannot take every descriptor.
  app.server.maxConnections = services.config.httpMaxConnections;
  registerCloseUnreadBodies(app);
  registerTurnBatchedSend(app);
  app.setValidatorCompiler(makeValidatorCompiler());
  registerJsonParser(app);
  for (const s of SHARED_SCHEMAS) app.addSchema(s);

  app.setErrorHandler((err: FastifyError & { validation?: any[]; validationContext?: string }, req, reply) => {
    const sensitive = req.routeOptions.config?.sensitive ?? [];
    if (err instanceof HttpError) {
      return reply.code(err.statusCode).headers(err.headers).send({ detail: err.detail });
    }
    if (err instanceof InvalidInput) return sendValidation(reply, err.problems, sensitive);
    if (err instanceof DomainError) {
      const r = domainErrorResponse(err);
      return reply.code(r.status).headers(r.headers).send({ detail: r.detail });
    }
    if (err.validation) {
      const part = err.validationContext ?? 'body';
      const data = part === 'body' ? req.body : part === 'querystring' ? req.query : part === 'params' ? req.params : req.headers;
      return sendValidation(reply, ajvToEntries(err.validation, part, data), sensitive);
    }
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.code(415).send({ detail: `Unsupported media type ${req.headers['content-type'] ?? ''}; send application/json` });
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.code(413).send({ detail: 'Request body too large' });
    if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      return reply.code(err.statusCode).send({ detail: err.message });
    }
    req.log.error({ err }, 'unhandled error');
    return reply.code(500).send({ detail: 'Internal server error' });
  });
  // A sync caller that went away mid-run can leave a keep-alive socket that is neither active nor
  // idle to Node, and server.close() would wait for it forever: give responses a grace period,
  // then close what is left.
  app.addHook('preClose', async () => {
    setTimeout(() => app.server.closeAllConnections(), 3000).unref();
  });
  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ detail: 'Not Found' }));
  // Connectors must never reach this server: its address is known only once listening (PORT=0).
  app.addHook('onListen', (done) => {
    for (const a of app.addresses()) services.egress.addListener(a);
    done();
  });
  // Unknown routes answer before reading any body (a stalled body would otherwise hold them).
  // Hooks on every request are callback-style: an async hook costs a promise per request.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    if (req.is404) return void reply.code(404).send({ detail: 'Not Found' });
    done();
  });

  await registerOpenApi(app, services.config.publicBaseUrl);
  registerObservability(app, {
    config: services.config,
    db: services.db,
    blobs: services.blobs,
    events: services.events,
    runsByStatus: () => services.runtime.store.countByStatus(),
    captureCounts: () => services.captureSessions.counts(),
    ...(services.config.role === 'api' ? {} : { sandboxProblem: () => services.runtime.pool.startProblem() }),
  });

  await app.register(blobRoutes, { store: services.blobs, files: services.files, config: services.config });
  await app.register(liveViewRoutes, { svc: services.captureSessions });
  // The web console: a client of the public API like any other (src/console/, docs/console.md).
  await app.register(consoleRoutes, { publicBaseUrl: () => services.config.publicBaseUrl });
  // MCP (Streamable HTTP) at /mcp: the same API key; its own auth scope, outside /v1beta.
  await app.register(mcpRoutes, {
    verify: (token) => services.users.authenticate(token),
    bodyIdleTimeoutS: services.config.httpBodyIdleTimeoutS,
    connectors: services.connectors,
    runs: services.runs,
    secrets: services.secrets,
    progressIntervalS: services.config.mcpProgressIntervalS,
  });
  await app.register(
    async (api) => {
      registerAuth(api, (token) => services.users.authenticate(token));
      registerBodyIdleTimeout(api, services.config.httpBodyIdleTimeoutS);
      await api.register(secretsRoutes, { secrets: services.secrets });
      await api.register(filesRoutes, { files: services.files, maxUploadBytes: services.config.maxUploadBytes });
      await api.register(connectorsRoutes, { connectors: services.connectors });
      await api.register(tasksRoutes, { tasks: services.tasks });
      await api.register(runsRoutes, { runs: services.runs, tasks: services.tasks });
      await api.register(captureSessionsRoutes, { svc: services.captureSessions });
      await api.register(webhooksRoutes, { webhooks: services.webhooks });
    },
    { prefix: '/v1beta' },
  );
  return app;
}
