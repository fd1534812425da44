// OpenAPI document generated from the route schemas (GET /openapi.json) and Swagger UI at /docs.
// Operations and fields beyond the published /v1beta contract carry `x-extension: true`.
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { nameComponents } from './openapi-components.js';

export const API_VERSION = '0.0.1';

/** One tag per resource; routes use exactly these names (redocly's operation-tag-defined checks it). */
export const TAGS = [
  { name: 'Capture sessions', description: 'Record what a person does in a remote browser, with a live view to embed.' },
  { name: 'Connectors', description: 'Versioned connectors: published by hand or synthesized from a recording.' },
  { name: 'Runs', description: 'Runs of a connector with new arguments (and the task-based variant of POST /v1beta/runs).' },
  { name: 'Files', description: 'Uploads (signed PUT) and run outputs, with signed download URLs.' },
  { name: 'Secrets', description: 'Logins and strings in the encrypted vault; values are never returned.' },
  { name: 'Tasks', description: 'The task-based family: a task becomes ready after a manual session.' },
  { name: 'Webhooks', description: 'Signed notifications when runs, capture sessions and tasks end: subscriptions and the delivery log.' },
] as const;

export async function registerOpenApi(app: FastifyInstance, publicBaseUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Connector Service API',
        version: API_VERSION,
        description:
          'Turns recorded browser activity into callable connectors. Every path under /v1beta needs ' +
          '`Authorization: Bearer <API key>`. Operations marked `x-extension: true` go beyond the base contract.',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      servers: [{ url: publicBaseUrl, description: 'This server (PUBLIC_BASE_URL).' }],
      tags: TAGS.map((t) => ({ ...t })),
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'API Key' } },
      },
      security: [{ bearer: [] }],
    },
    refResolver: { buildLocalReference: (json, _base, _frag, i) => String(json.$id ?? json.title ?? `def-${i}`) },
    // @fastify/swagger marks every body required; routes whose body may be absent say so with
    // `x-optional-body: true` in their schema.
    transformObject: ({ openapiObject }: any) => {
      for (const ops of Object.values(openapiObject.paths ?? {}) as any[]) {
        for (const op of Object.values(ops ?? {}) as any[]) {
          if (op?.['x-optional-body']) {
            if (op.requestBody) op.requestBody.required = false;
            delete op['x-optional-body'];
          }
        }
      }
      return nameComponents(openapiObject);
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } });
  app.get('/openapi.json', { schema: { hide: true } as object }, async () => app.swagger());
}
