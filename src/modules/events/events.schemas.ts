import { Type, type Static } from '@sinclair/typebox';
import { SCOPE_NAMES } from '../permissions/permissions.scopes.js';
import { ActionClassName } from '../permissions/permissions.actions.js';
import { IsoDateTime } from '../../http/schemas.js';

/*
 * What happened in an owner's account, as the console's live stream and the owner's webhooks carry it.
 * An event names things by id and name only: never a secret, and no free text beyond a name
 * (an agent's id is the name it chose, at most 128 characters; its message stays out), so that
 * any channel that carries it (another node, a webhook endpoint) learns nothing more.
 */

const ScopeName = Type.Union(SCOPE_NAMES.map((scope) => Type.Literal(scope)));

const TokenKind = Type.Union([Type.Literal('master'), Type.Literal('session'), Type.Literal('api'), Type.Literal('handshake'), Type.Literal('oauth')]);

const HandshakeRef = {
  handshakeId: Type.String(),
  agentId: Type.String({ description: 'The name the agent gave itself' }),
};

const AuthorizationRequestRef = {
  requestId: Type.String(),
  clientId: Type.String({ description: 'The OAuth client asking to connect' }),
  clientName: Type.String({ description: 'The name the client registered under' }),
};

const DeviceRef = {
  deviceId: Type.String(),
  name: Type.String({ description: 'The name the daemon registered the PC under' }),
};

/** Each event type with the shape of its `data`. */
export const EVENT_DATA = {
  'handshake.created': Type.Object({ ...HandshakeRef, requestedScopes: Type.Array(ScopeName) }, { title: 'HandshakeCreatedData' }),
  'handshake.decided': Type.Object(
    {
      ...HandshakeRef,
      decision: Type.Union([Type.Literal('approved'), Type.Literal('denied')]),
      tokenId: Type.Union([Type.String(), Type.Null()], { description: 'The token an approval made; null for a denial' }),
    },
    { title: 'HandshakeDecidedData' },
  ),
  'handshake.claimed': Type.Object({ ...HandshakeRef, tokenId: Type.Union([Type.String(), Type.Null()]) }, { title: 'HandshakeClaimedData' }),
  'handshake.revoked': Type.Object({ ...HandshakeRef, tokenId: Type.Union([Type.String(), Type.Null()]) }, { title: 'HandshakeRevokedData' }),
  'authorization.requested': Type.Object(
    { ...AuthorizationRequestRef, requestedScopes: Type.Array(ScopeName) },
    { title: 'AuthorizationRequestedData', description: "An app's authorization request was sent to the owner's console for a decision" },
  ),
  'authorization.decided': Type.Object(
    { ...AuthorizationRequestRef, decision: Type.Union([Type.Literal('approved'), Type.Literal('denied')]) },
    { title: 'AuthorizationDecidedData' },
  ),
  'token.created': Type.Object(
    { tokenId: Type.String(), name: Type.String(), kind: TokenKind, scopes: Type.Array(ScopeName) },
    { title: 'TokenCreatedData' },
  ),
  'token.revoked': Type.Object({ tokenId: Type.String(), kind: TokenKind }, { title: 'TokenRevokedData' }),
  'device.online': Type.Object({ ...DeviceRef }, { title: 'DeviceOnlineData' }),
  'device.offline': Type.Object({ ...DeviceRef }, { title: 'DeviceOfflineData' }),
  'oauth.needs_reauth': Type.Object(
    { provider: Type.String({ description: 'The OAuth service whose connection needs the owner to connect it again (`google`)' }) },
    { title: 'OAuthNeedsReauthData' },
  ),
  'login.failed': Type.Object(
    {
      userId: Type.String(),
      consecutiveFailures: Type.Integer({ description: 'Failed password attempts in a row from this address on the account' }),
      slowdown: Type.Union([Type.Literal('address'), Type.Literal('account')], {
        description: '`address`: one address now waits between attempts; `account`: several addresses guessing together slowed every unfamiliar address down',
      }),
      ip: Type.Union([Type.String(), Type.Null()], { description: 'The client address of the attempt that started the slowdown' }),
    },
    { title: 'LoginFailedData' },
  ),
  'approval.requested': Type.Object(
    {
      approvalId: Type.String(),
      tokenId: Type.String({ description: 'The token whose request waits for the decision' }),
      tokenName: Type.String(),
      actionClass: ActionClassName,
      expiresAt: IsoDateTime,
    },
    { title: 'ApprovalRequestedData', description: "A token's request was held for the owner's approval; its description is read from the approval" },
  ),
  'approval.decided': Type.Object(
    {
      approvalId: Type.String(),
      tokenId: Type.String(),
      actionClass: ActionClassName,
      decision: Type.Union([Type.Literal('approved'), Type.Literal('denied')]),
    },
    { title: 'ApprovalDecidedData' },
  ),
  'webhook.paused': Type.Object(
    {
      // Not its address: webhook addresses often carry a secret in their path (chat services'),
      // and this event may go to another endpoint.
      webhookId: Type.String(),
      consecutiveFailures: Type.Integer({ description: 'Attempts that failed in a row' }),
      failingSince: IsoDateTime,
      pausedUntil: IsoDateTime,
      lastError: Type.Union([Type.String(), Type.Null()], { description: 'Why the last attempt failed' }),
    },
    {
      title: 'WebhookPausedData',
      description:
        'The circuit breaker paused a webhook whose endpoint kept failing: it is sent nothing until `pausedUntil`, then one probe delivery resumes it if it succeeds. Its deliveries wait meanwhile; `POST /api/v1/webhooks/{id}/resume` resumes it at once',
    },
  ),
  'plan.changed': Type.Object(
    { planId: Type.String(), previousPlanId: Type.String() },
    { title: 'PlanChangedData' },
  ),
} as const;

export type EventType = keyof typeof EVENT_DATA;
export const EVENT_TYPES = Object.keys(EVENT_DATA) as EventType[];

/** What a service publishes: the type and its data; the bus gives it an id and a time. */
export type NewEvent = { [T in EventType]: { type: T; data: Static<(typeof EVENT_DATA)[T]> } }[EventType];

/** One event as every channel carries it. */
export const EventSchema = Type.Union(
  EVENT_TYPES.map((type) =>
    Type.Object(
      {
        id: Type.String({ description: 'Unique; sent as the SSE `id:` line' }),
        type: Type.Literal(type, { description: 'Sent as the SSE `event:` line' }),
        occurredAt: IsoDateTime,
        data: EVENT_DATA[type],
      },
      { additionalProperties: false },
    ),
  ),
  { title: 'AccountEvent' },
);
export type AccountEvent = NewEvent & { id: string; occurredAt: string };

/** The stream in the OpenAPI document: its framing in words, each event's JSON as the schema. */
export const EventStreamResponse = {
  description:
    'A Server-Sent Events stream (text/event-stream). It opens with `retry: 3000`; each event is `id: <id>`, `event: <type>` and `data: <the event as JSON, this schema>` followed by a blank line; a comment line (`: heartbeat`) comes about every 25 seconds. The stream ends when the token is revoked or expires, when the server shuts down, or when the owner opens more streams than allowed (the oldest closes).',
  content: { 'text/event-stream': { schema: EventSchema } },
};
