import { Type, type Static } from '@sinclair/typebox';
import { Data, IsoDateTime, List, NoNul, NullableDateTime, Page, PageQuery } from '../../http/schemas.js';
import { EVENT_TYPES } from '../events/events.schemas.js';

/** The events a webhook may subscribe to: every account event the bus carries. */
export const WEBHOOK_EVENT_TYPES = [...EVENT_TYPES] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The event `POST /webhooks/{id}/test` sends; no subscription is needed for it. */
export const TEST_EVENT_TYPE = 'webhook.test';

const EventTypeName = Type.Union(
  WEBHOOK_EVENT_TYPES.map((type) => Type.Literal(type)),
  { description: 'An event type' },
);

const Url = Type.String({
  minLength: 1,
  maxLength: 2000,
  ...NoNul,
  description:
    'Where events are POSTed: an https address (http, and loopback or private addresses, only when the server allows private network calls)',
});

const Events = Type.Array(EventTypeName, { minItems: 1, maxItems: WEBHOOK_EVENT_TYPES.length, uniqueItems: true, description: 'The event types to send' });

export const WebhookSchema = Type.Object(
  {
    id: Type.String(),
    url: Type.String(),
    events: Type.Array(Type.String()),
    enabled: Type.Boolean({ description: 'A disabled webhook is sent nothing; its pending deliveries are given up' }),
    status: Type.Union([Type.Literal('active'), Type.Literal('paused'), Type.Literal('disabled')], {
      description:
        '`active`: sent to. `paused`: its endpoint kept failing, so the circuit breaker stopped sending to it until `pausedUntil`, when one probe delivery is tried (its success resumes it); its deliveries wait meanwhile, and `POST /webhooks/{id}/resume` resumes it at once. `disabled`: `enabled` is false',
    }),
    pausedUntil: Type.Union([IsoDateTime, Type.Null()], {
      description: 'While paused: when the probe delivery is due (a time past means it is due or under way); null otherwise',
    }),
    consecutiveFailures: Type.Integer({ minimum: 0, description: 'Attempts that failed in a row; a success resets it' }),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  },
  { title: 'Webhook', additionalProperties: false },
);
export type Webhook = Static<typeof WebhookSchema>;

export const CreatedWebhookSchema = Type.Object(
  {
    ...WebhookSchema.properties,
    secret: Type.String({
      description:
        'The signing secret (`whsec_` + base64 of 32 random bytes, as Standard Webhooks defines it). Shown only in this answer: keep it, it cannot be read again',
    }),
  },
  { title: 'CreatedWebhook', additionalProperties: false },
);
export type CreatedWebhook = Static<typeof CreatedWebhookSchema>;

export const CreateWebhookBody = Type.Object({ url: Url, events: Events }, { additionalProperties: false });
export type CreateWebhookInput = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = Type.Object(
  { url: Type.Optional(Url), events: Type.Optional(Events), enabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateWebhookInput = Static<typeof UpdateWebhookBody>;

export const WebhookAttemptSchema = Type.Object(
  {
    attemptedAt: IsoDateTime,
    outcome: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]),
    responseStatus: Type.Union([Type.Integer(), Type.Null()], { description: "The endpoint's HTTP status; null when it was not reached" }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Why the attempt failed; null when it succeeded' }),
    durationMs: Type.Integer(),
  },
  { title: 'WebhookAttempt', additionalProperties: false },
);
export type WebhookAttempt = Static<typeof WebhookAttemptSchema>;

export const WebhookDeliverySchema = Type.Object(
  {
    id: Type.String(),
    webhookId: Type.String(),
    eventId: Type.String({ description: 'The `webhook-id` header of every attempt: the receiver deduplicates by it' }),
    eventType: Type.String(),
    state: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')], {
      description: '`pending` until an attempt succeeds (`delivered`) or retrying ends (`failed`)',
    }),
    body: Type.String({ description: 'The JSON body sent, exactly as signed: `{ "type", "timestamp", "data" }`' }),
    attemptCount: Type.Integer(),
    nextAttemptAt: NullableDateTime,
    failureReason: Type.Union([Type.String(), Type.Null()], {
      description:
        'Why it failed when no attempt says so: an event that found too many deliveries already waiting for this webhook or this account is recorded as failed, never sent. Null otherwise',
    }),
    createdAt: IsoDateTime,
    attempts: Type.Array(WebhookAttemptSchema, { description: 'Oldest first' }),
  },
  { title: 'WebhookDelivery', additionalProperties: false },
);
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>;

export const WebhookResponse = Data(WebhookSchema);
export const CreatedWebhookResponse = Data(CreatedWebhookSchema);
export const WebhookList = List(WebhookSchema);
export const DeliveryResponse = Data(WebhookDeliverySchema);
export const DeliveryPage = Page(WebhookDeliverySchema);
export const ListDeliveriesQuery = Type.Object({ ...PageQuery });
export const DeletedWebhookResponse = Data(Type.Object({ id: Type.String(), deleted: Type.Literal(true) }, { title: 'DeletedWebhook' }));
