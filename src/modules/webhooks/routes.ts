// /v1beta/webhooks: thin HTTP layer over WebhooksService (subscriptions, the signing secret of
// per-request webhooks, the delivery log and redelivery). Signing secrets are written only by
// the two operations that hand one out; every other response schema lacks the field.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import { IdParam, errorResponses, listEnvelope } from '../../http/schemas.js';
import type { ListDeliveriesParams, WebhooksService } from './service.js';
import {
  CreateSubscriptionBody,
  CreatedSubscriptionSchema,
  DeleteSubscriptionResponse,
  DeliverySchema,
  ListDeliveriesQuery,
  SigningSecretSchema,
  SubscriptionSchema,
} from './schemas.js';

const tags = ['Webhooks'];
const extension = { 'x-extension': true };
type IdParams = { id: string };

export const webhooksRoutes: FastifyPluginAsync<{ webhooks: WebhooksService }> = async (app, { webhooks }) => {
  app.post<{ Body: CreateSubscriptionBody }>(
    '/webhooks',
    {
      schema: {
        tags,
        operationId: 'createWebhookSubscription',
        summary: 'Subscribe a URL to events',
        description:
          'Extension. Every matching event of yours is POSTed to url, signed the Standard Webhooks way with this subscription’s ' +
          'secret, which this answer shows once. The egress policy applies to url (metadata, link-local and this server’s own ' +
          'addresses are refused with 422) and again at every delivery. 409 beyond 25 subscriptions.',
        body: CreateSubscriptionBody,
        response: { 200: CreatedSubscriptionSchema, ...errorResponses(409) },
        ...extension,
      },
    },
    async (req) => webhooks.createSubscription(req.userId, req.body),
  );

  app.get(
    '/webhooks',
    {
      schema: {
        tags,
        operationId: 'listWebhookSubscriptions',
        summary: 'List webhook subscriptions',
        description: 'Extension. Newest first; secrets are never listed.',
        response: { 200: Type.Array(SubscriptionSchema), ...errorResponses() },
        ...extension,
      },
    },
    async (req) => webhooks.listSubscriptions(req.userId),
  );

  app.get(
    '/webhooks/signing-secret',
    {
      schema: {
        tags,
        operationId: 'getWebhookSigningSecret',
        summary: 'Get the signing secret of per-request webhooks',
        description:
          'Extension. The secret (created on first use) that signs deliveries to the webhook_url given with POST /v1beta/runs, ' +
          '/v1beta/capture_sessions and /v1beta/tasks. Subscriptions have secrets of their own.',
        response: { 200: SigningSecretSchema, ...errorResponses() },
        ...extension,
      },
    },
    async (req) => webhooks.signingSecret(req.userId),
  );

  app.post(
    '/webhooks/signing-secret',
    {
      schema: {
        tags,
        operationId: 'createWebhookSigningSecret',
        summary: 'Rotate the signing secret of per-request webhooks',
        description:
          'Extension. Replaces the secret; every attempt from now on, retries of earlier events included, is signed with the new one.',
        response: { 200: SigningSecretSchema, ...errorResponses(409) },
        ...extension,
      },
    },
    async (req) => webhooks.rotateSigningSecret(req.userId),
  );

  app.get<{ Querystring: ListDeliveriesParams }>(
    '/webhooks/deliveries',
    {
      schema: {
        tags,
        operationId: 'listWebhookDeliveries',
        summary: 'List webhook deliveries',
        description:
          'Extension. The delivery log, newest first: each event sent to each URL, its status and every attempt (time, response ' +
          `status, error). Finished deliveries are kept 30 days.`,
        querystring: ListDeliveriesQuery,
        response: { 200: listEnvelope(DeliverySchema, 'ListWebhookDeliveriesResponse'), ...errorResponses() },
        ...extension,
      },
    },
    async (req) => webhooks.listDeliveries(req.userId, req.query),
  );

  app.get<{ Params: IdParams }>(
    '/webhooks/deliveries/:id',
    {
      schema: {
        tags,
        operationId: 'getWebhookDelivery',
        summary: 'Get a webhook delivery',
        description: 'Extension.',
        params: IdParam(),
        response: { 200: DeliverySchema, ...errorResponses() },
        ...extension,
      },
    },
    async (req) => webhooks.getDelivery(req.userId, req.params.id),
  );

  app.post<{ Params: IdParams }>(
    '/webhooks/deliveries/:id/redeliver',
    {
      schema: {
        tags,
        operationId: 'redeliverWebhookDelivery',
        summary: 'Redeliver a webhook delivery',
        description:
          'Extension. Queues the delivery again, due now, with a fresh WEBHOOK_MAX_ATTEMPTS budget and the same payload and ' +
          'webhook-id; 202 with the delivery. 409 while an attempt is in flight or when its subscription was deleted.',
        params: IdParam(),
        response: { 202: DeliverySchema, ...errorResponses(409) },
        ...extension,
      },
    },
    async (req, reply) => reply.code(202).send(await webhooks.redeliver(req.userId, req.params.id)),
  );

  app.get<{ Params: IdParams }>(
    '/webhooks/:id',
    {
      schema: {
        tags,
        operationId: 'getWebhookSubscription',
        summary: 'Get a webhook subscription',
        description: 'Extension. Without its secret.',
        params: IdParam(),
        response: { 200: SubscriptionSchema, ...errorResponses() },
        ...extension,
      },
    },
    async (req) => webhooks.getSubscription(req.userId, req.params.id),
  );

  app.delete<{ Params: IdParams }>(
    '/webhooks/:id',
    {
      schema: {
        tags,
        operationId: 'deleteWebhookSubscription',
        summary: 'Delete a webhook subscription',
        description: 'Extension. Deletes it and its secret; its pending deliveries end failed (they stay in the delivery log).',
        params: IdParam(),
        response: { 200: DeleteSubscriptionResponse, ...errorResponses() },
        ...extension,
      },
    },
    async (req) => webhooks.deleteSubscription(req.userId, req.params.id),
  );
};
