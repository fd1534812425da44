// Request and response schemas of /v1beta/webhooks (subscriptions, the signing secret, the
// delivery log) and the `webhook_url` extension field of runs, capture sessions and tasks.
import { Type, type Static } from '@sinclair/typebox';
import { CursorQuery, DateTime, LimitQuery } from '../../http/schemas.js';
import { ALL_EVENTS, EVENT_TYPES } from './events.js';

const URL_MAX = 2083;

/** The per-request `webhook_url` of POST /runs, /capture_sessions and /tasks (absent or null: none). */
export const WebhookUrlField = Type.Unsafe<string | null>({
  type: ['string', 'null'],
  format: 'uri',
  pattern: '^https?://',
  maxLength: URL_MAX,
  description:
    'Extension: an http(s) URL that receives a signed POST (Standard Webhooks) when this resource reaches a terminal state. ' +
    'Signed with your signing secret (GET /v1beta/webhooks/signing-secret). The egress policy applies: metadata, link-local ' +
    'and this server’s own addresses are refused (422).',
  'x-extension': true,
});

export const EventTypeSchema = Type.Unsafe<string>({
  type: 'string',
  enum: [...EVENT_TYPES, ALL_EVENTS],
  title: 'WebhookEventType',
  description:
    'run.completed: a run reached a terminal status (success or not; see data.status). capture_session.completed: a capture ' +
    'session ended (completed, abandoned or failed; see data.state). task.completed: a task became ready or failed (data.current_state). ' +
    '"*": every event.',
});

export const CreateSubscriptionBody = Type.Object(
  {
    url: Type.String({ format: 'uri', pattern: '^https?://', minLength: 1, maxLength: URL_MAX, description: 'Where events are POSTed.' }),
    event_types: Type.Array(EventTypeSchema, { minItems: 1, maxItems: 10, uniqueItems: true }),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
  },
  { additionalProperties: false, title: 'CreateWebhookSubscriptionRequest' },
);
export type CreateSubscriptionBody = Static<typeof CreateSubscriptionBody>;

const subscriptionFields = {
  id: Type.String(),
  url: Type.String(),
  event_types: Type.Array(EventTypeSchema),
  description: Type.Union([Type.String(), Type.Null()]),
  created_at: DateTime,
};

export const SubscriptionSchema = Type.Object(subscriptionFields, {
  title: 'WebhookSubscription',
  description: 'A subscription; its signing secret is shown only in the answer that created it.',
});

export const CreatedSubscriptionSchema = Type.Object(
  {
    ...subscriptionFields,
    secret: Type.String({
      pattern: '^whsec_',
      description: 'The signing secret of this subscription (whsec_ + base64). Shown once: store it now.',
    }),
  },
  { title: 'CreatedWebhookSubscription' },
);

export const SigningSecretSchema = Type.Object(
  {
    secret: Type.String({ pattern: '^whsec_', description: 'Signs the deliveries to per-request webhook_urls (whsec_ + base64).' }),
    created_at: DateTime,
  },
  { title: 'WebhookSigningSecret' },
);

export const DeliveryStatus = Type.Unsafe<'pending' | 'succeeded' | 'failed'>({
  type: 'string',
  enum: ['pending', 'succeeded', 'failed'],
  title: 'WebhookDeliveryStatus',
});

export const AttemptSchema = Type.Object(
  {
    attempt: Type.Integer({ minimum: 1 }),
    started_at: DateTime,
    duration_ms: Type.Integer({ minimum: 0 }),
    response_status: Type.Union([Type.Integer(), Type.Null()], { description: 'The receiver’s HTTP status; null when none came.' }),
    error: Type.Union([Type.String(), Type.Null()], {
      description: 'Why the attempt failed (network error, timeout, egress denial, non-2xx answer with the start of its body), truncated.',
    }),
  },
  { title: 'WebhookDeliveryAttempt' },
);

export const DeliverySchema = Type.Object(
  {
    id: Type.String(),
    event_id: Type.String({ description: 'The webhook-id header: the same for every attempt and target of one event.' }),
    event_type: Type.String(),
    resource_id: Type.String({ description: 'The run, capture session or task the event is about.' }),
    subscription_id: Type.Union([Type.String(), Type.Null()], { description: 'null: the webhook_url given with the resource.' }),
    target_url: Type.String(),
    status: DeliveryStatus,
    attempt_count: Type.Integer({ minimum: 0 }),
    next_attempt_at: Type.Union([DateTime, Type.Null()], { description: 'When the next attempt is due (pending only).' }),
    last_response_status: Type.Union([Type.Integer(), Type.Null()]),
    last_error: Type.Union([Type.String(), Type.Null()]),
    created_at: DateTime,
    updated_at: DateTime,
    attempts: Type.Array(AttemptSchema, { description: 'Every attempt, oldest first.' }),
  },
  { title: 'WebhookDelivery' },
);

export const ListDeliveriesQuery = Type.Object(
  {
    limit: Type.Optional(LimitQuery),
    cursor: Type.Optional(CursorQuery),
    subscription_id: Type.Optional(Type.String({ maxLength: 200, description: 'Only this subscription’s deliveries.' })),
    status: Type.Optional(DeliveryStatus),
    resource_id: Type.Optional(Type.String({ maxLength: 200, description: 'Only deliveries about this run, session or task.' })),
  },
  { additionalProperties: false },
);

export const DeleteSubscriptionResponse = Type.Object(
  { id: Type.String(), deleted: Type.Boolean() },
  { title: 'DeleteWebhookSubscriptionResponse' },
);
