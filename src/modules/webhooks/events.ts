// The events a webhook can carry: one per resource, sent when the resource reaches a terminal
// state (whatever the outcome; `data` is the resource as its GET returns it and says which).
export const EVENT_TYPES = ['run.completed', 'capture_session.completed', 'task.completed'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Subscribes to every event type. */
export const ALL_EVENTS = '*';

/** A terminal state reached, as the producers' hooks report it (src/services.ts builds these). */
export interface WebhookEvent {
  type: EventType;
  userId: string;
  resourceId: string;
  /** The webhook_url given with the resource's creation request, if any. */
  webhookUrl: string | null;
  /** The resource as GET returns it: never a secret value (runs redact their results and errors). */
  data: unknown;
}

/** The JSON body of a delivery (the Standard Webhooks payload shape). */
export function payloadOf(e: WebhookEvent, timestamp: string): string {
  return JSON.stringify({ type: e.type, timestamp, data: e.data });
}

export function subscribed(eventTypes: readonly string[], type: EventType): boolean {
  return eventTypes.includes(ALL_EVENTS) || eventTypes.includes(type);
}
