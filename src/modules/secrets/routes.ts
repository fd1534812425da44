// /v1beta/secrets: thin HTTP layer over SecretsService. Every route marks the credential fields
// `sensitive` so a 422 never echoes them; responses are serialized through metadata-only schemas.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { SecretsService } from './service.js';
import { invalid, notFound } from '../../lib/errors.js';
import { IdParam, errorResponses } from '../../http/schemas.js';
import type { SecretMeta } from './service.js';
import { CreateSecretBody, CreateSecretResponse, DeleteSecretResponse, SENSITIVE_FIELDS, SecretSchema, TotpResponse } from './schemas.js';

const config = { sensitive: SENSITIVE_FIELDS };
const tags = ['Secrets'];

const secretOut = (m: SecretMeta) => ({
  id: m.id,
  name: m.name,
  secret_type: m.secret_type,
  has_totp: m.has_totp,
  created_at: m.created_at,
  updated_at: m.updated_at,
});

const taskBasedOut = (m: SecretMeta) => ({
  uuid: m.id,
  name: m.name,
  secret_type: m.secret_type,
  website: m.website,
  has_totp: m.has_totp,
  created_at: m.created_at,
  updated_at: m.updated_at,
});

/**
 * A non-object body (array, string, number) would be echoed whole as the 422 `input`, and it may
 * hold a credential that is not under a named field; answer dict_type without the input instead.
 */
async function rejectNonObjectBody(req: FastifyRequest): Promise<void> {
  const b = req.body as unknown;
  if (b !== undefined && b !== null && (typeof b !== 'object' || Array.isArray(b))) {
    throw invalid(['body'], 'Input should be a valid dictionary', 'dict_type');
  }
}

export const secretsRoutes: FastifyPluginAsync<{ secrets: SecretsService }> = async (app, { secrets }) => {
  app.get(
    '/secrets',
    {
      config,
      schema: {
        tags,
        operationId: 'listSecrets',
        summary: 'List secrets',
        description: "The caller's secrets, newest first. Metadata only; credential values are never returned.",
        response: { 200: Type.Array(SecretSchema), ...errorResponses() },
      },
    },
    async (req) => (await secrets.list(req.userId)).map(secretOut),
  );

  app.post<{ Body: CreateSecretBody }>(
    '/secrets',
    {
      config,
      schema: {
        tags,
        operationId: 'createSecret',
        summary: 'Create a secret',
        description:
          'login secrets need username and password (optional base32 totp_secret); string secrets need value. ' +
          'Fields of the other type are rejected. When the body has a `website` key (task-based variant) the ' +
          'response has the task-based shape (uuid, website); otherwise it is a Secret. The value goes to the ' +
          'credential vault and is never returned.',
        body: CreateSecretBody,
        response: { 200: CreateSecretResponse, ...errorResponses() },
      },
      preValidation: rejectNonObjectBody,
    },
    async (req) => {
      const body = req.body;
      const meta = await secrets.create(req.userId, body);
      return Object.hasOwn(body, 'website') ? taskBasedOut(meta) : secretOut(meta);
    },
  );

  app.post<{ Params: { id: string } }>(
    '/secrets/:id/totp',
    {
      config,
      schema: {
        tags,
        operationId: 'generateSecretTotp',
        summary: 'Generate the current TOTP code',
        description: 'For a login secret with a TOTP seed (RFC 6238, SHA-1, 30 s, 6 digits). Other secrets → 409.',
        params: IdParam(),
        response: { 200: TotpResponse, ...errorResponses(409) },
      },
    },
    async (req) => ({ id: req.params.id, code: await secrets.currentTotp(req.userId, req.params.id) }),
  );

  app.delete<{ Params: { id: string } }>(
    '/secrets/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'deleteSecret',
        summary: 'Delete a secret',
        description: 'Removes the metadata and the credential vault entry.',
        params: IdParam(),
        response: { 200: DeleteSecretResponse, ...errorResponses() },
      },
    },
    async (req) => {
      if (!(await secrets.delete(req.userId, req.params.id))) throw notFound('Secret');
      return { id: req.params.id, deleted: true };
    },
  );
};
