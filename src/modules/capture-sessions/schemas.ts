// Request and response schemas of /v1beta/capture_sessions (CaptureSession,
// SessionCookie, Capture sessions). `start_url`, `webhook_url` and the recording route are extensions.
import { Type, type Static } from '@sinclair/typebox';
import { DateTime } from '../../http/schemas.js';
import { WebhookUrlField } from '../webhooks/schemas.js';

export const CaptureSessionState = Type.Unsafe<'active' | 'completing' | 'completed' | 'abandoned' | 'failed'>({
  type: 'string',
  enum: ['active', 'completing', 'completed', 'abandoned', 'failed'],
  title: 'CaptureSessionState',
});

export const CaptureSessionSchema = Type.Object(
  {
    id: Type.String(),
    state: CaptureSessionState,
    browser_session_id: Type.Union([Type.String(), Type.Null()], {
      description: 'Opaque id of the browser context; null once the browser is gone.',
    }),
    iframe_url: Type.Union([Type.String(), Type.Null()], {
      description: 'Live view to embed in an iframe (any origin); carries a per-session token and works only while the session is active.',
    }),
    iframe_view_url: Type.Union([Type.String(), Type.Null()], {
      description:
        'Extension: the read-only live view (frames only; the server drops any input on its socket). Its own token, so sharing it grants no control; null when iframe_url is.',
    }),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { title: 'CaptureSession' },
);

const nullable = <T extends object>(s: T) => Type.Unsafe<any>({ ...s, type: [(s as any).type, 'null'] });

export const SessionCookie = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 4096 }),
    value: Type.String({ maxLength: 16384 }),
    domain: Type.Optional(
      nullable({
        type: 'string',
        maxLength: 253,
        description:
          "Optional. Without it the cookie is host-only for start_url's host, or (no start_url) for the first site the session navigates to.",
      }),
    ),
    path: Type.Optional(nullable({ type: 'string', maxLength: 2048 })),
    secure: Type.Optional(nullable({ type: 'boolean' })),
    http_only: Type.Optional(nullable({ type: 'boolean' })),
  },
  { additionalProperties: false, title: 'SessionCookie' },
);

// type [object, null]: the body may be absent or null; properties apply only to an object.
export const CreateCaptureSessionBody = Type.Unsafe<{
  use_proxy?: boolean;
  cookies?: Static<typeof SessionCookie>[] | null;
  start_url?: string | null;
  webhook_url?: string | null;
} | null>({
  type: ['object', 'null'],
  title: 'CreateCaptureSessionRequest',
  additionalProperties: false,
  properties: {
    use_proxy: { type: 'boolean', default: false, description: 'Route the session through the configured proxy (CAPTURE_PROXY_URL).' },
    cookies: {
      type: ['array', 'null'],
      items: SessionCookie,
      maxItems: 500,
      description: 'Cookies set in the browser before the session starts.',
    },
    start_url: {
      type: ['string', 'null'],
      format: 'uri',
      pattern: '^https?://',
      maxLength: 2083,
      description: 'Extension: page the browser opens first (http or https).',
      'x-extension': true,
    },
    webhook_url: WebhookUrlField,
  },
});

export const PasteBody = Type.Object(
  {
    field: Type.Unsafe<'username' | 'password' | 'totp'>({ type: 'string', enum: ['username', 'password', 'totp'] }),
    secret_id: Type.String({ maxLength: 200, description: 'A stored login secret of the caller.' }),
  },
  { additionalProperties: false, title: 'PasteRequest' },
);
export type PasteBody = Static<typeof PasteBody>;
