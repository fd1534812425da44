// OpenAPI document generated from the route schemas (GET /openapi.json) and Swagger UI at /docs.
// Operations and fields that SPEC.md does not define carry `x-extension: true`.
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

export const API_VERSION = '0.0.1';

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Connector Service API',
        version: API_VERSION,
        description:
          'Turns recorded browser activity into callable connectors. Every path under /v1beta needs ' +
          '`Authorization: Bearer <API key>`. Operations marked `x-extension: true` go beyond the base contract.',
      },
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
          if (op && op['x-optional-body']) {
            if (op.requestBody) op.requestBody.required = false;
            delete op['x-optional-body'];
          }
        }
      }
      return openapiObject;
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } });
  app.get('/openapi.json', { schema: { hide: true } as object }, async () => app.swagger());
}
