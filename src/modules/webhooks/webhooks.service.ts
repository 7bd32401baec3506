import { randomBytes } from 'node:crypto';
import type { WebhookSettings } from '../../config.js';
import { AppError, InputError, notFound } from '../../http/errors.js';
import { isPrivateHost } from '../../http/outbound.js';
import { newId } from '../../lib/ids.js';
import { isoNow } from '../../lib/time.js';
import type { AccountEvent } from '../events/events.schemas.js';
import type { Keyring } from '../keyring/keyring.service.js';
import type { WebhookDeliverer } from './webhooks.deliverer.js';
import { endpointEventsOf, type AttemptRow, type DeliveryRow, type EndpointRow, type WebhooksRepo } from './webhooks.repo.js';
import {
  TEST_EVENT_TYPE,
  type CreatedWebhook,
  type CreateWebhookInput,
  type UpdateWebhookInput,
  type Webhook,
  type WebhookDelivery,
} from './webhooks.schemas.js';

export interface WebhooksServiceOptions {
  repo: WebhooksRepo;
  keyring: Pick<Keyring, 'seal' | 'open'>;
  deliverer: Pick<WebhookDeliverer, 'wake'>;
  /** ALLOW_PRIVATE_NETWORK: http, loopback and private addresses are accepted only with it. */
  allowPrivateNetwork: boolean;
  settings: Pick<WebhookSettings, 'maxEndpointsPerOwner' | 'maxPendingPerEndpoint' | 'maxPendingPerOwner' | 'firstRetryMs'>;
}

/** Where an endpoint's sealed secret lives: the keyring binds the ciphertext to it. */
export const secretContext = (endpointId: string) => `webhook_endpoints:${endpointId}`;

/** A new signing secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks). */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

function toWebhook(row: EndpointRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    events: endpointEventsOf(row),
    enabled: row.enabled === 1,
    status: row.enabled !== 1 ? 'disabled' : row.paused_until !== null ? 'paused' : 'active',
    pausedUntil: row.enabled === 1 ? row.paused_until : null,
    consecutiveFailures: row.consecutive_failures,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toDelivery(row: DeliveryRow, attempts: AttemptRow[]): WebhookDelivery {
  return {
    id: row.id,
    webhookId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    state: row.state,
    body: row.body,
    attemptCount: row.attempt_count,
    nextAttemptAt: row.next_attempt_at,
    failureReason: row.failure_reason,
    createdAt: row.created_at,
    attempts: attempts.map((a) => ({
      attemptedAt: a.attempted_at,
      outcome: a.outcome,
      responseStatus: a.response_status,
      error: a.error,
      durationMs: a.duration_ms,
    })),
  };
}

/** The body of every attempt, as Standard Webhooks recommends: `{ type, timestamp, data }`. */
function bodyOf(event: { type: string; occurredAt: string; data: unknown }): string {
  return JSON.stringify({ type: event.type, timestamp: event.occurredAt, data: event.data });
}

export function createWebhooksService(deps: WebhooksServiceOptions) {
  const { repo, keyring, deliverer } = deps;

  /**
   * Refuses an address deliveries could never reach: not http(s), http or a loopback/private
   * host while the server forbids private network calls. A name that resolves to such an
   * address is refused when it is called (the outbound client checks every connection).
   */
  function checkUrl(raw: string): string {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new InputError('url', 'must be an absolute address', `url is not an absolute address: give one such as https://example.com/hooks/hearth`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new InputError('url', 'must be https', `url must be an https address, not ${url.protocol}`);
    }
    if (url.username || url.password) {
      throw new InputError('url', 'must not hold credentials', 'url must not hold a user name or password; authenticate deliveries by their signature');
    }
    if (url.hash) throw new InputError('url', 'must not have a fragment', 'url must not have a #fragment: it is never sent');
    if (!deps.allowPrivateNetwork) {
      if (url.protocol === 'http:') {
        throw new InputError('url', 'must be https', 'url must be an https address: deliveries carry account events. (http is accepted only when the server allows private network calls)');
      }
      // The delivery guard's own check, so that every form it refuses is refused here first.
      if (isPrivateHost(url.hostname)) {
        throw new InputError(
          'url',
          'must not be a loopback or private address',
          `url names ${url.hostname}, a loopback, private or reserved address; this server does not call those (its ALLOW_PRIVATE_NETWORK setting allows them)`,
        );
      }
    }
    return url.toString();
  }

  async function getRow(ownerId: string, id: string): Promise<EndpointRow> {
    const row = await repo.getEndpoint(ownerId, id);
    if (!row) throw notFound('Webhook', id);
    return row;
  }

  /**
   * Stores the deliveries of one event and wakes the worker. A delivery past the pending caps
   * (its webhook's, or the owner's) is stored as failed, with the reason, and never sent: the
   * owner sees what was lost, and one owner's failing endpoints cannot grow the queue without
   * bound.
   */
  async function store(ownerId: string, endpoints: EndpointRow[], event: { id: string; type: string; occurredAt: string; data: unknown }): Promise<DeliveryRow[]> {
    const now = isoNow();
    const body = bodyOf(event);
    const { settings } = deps;
    const pending = await repo.pendingCounts(ownerId, endpoints.map((endpoint) => endpoint.id));
    let ownerPending = pending.owner;
    const rows: DeliveryRow[] = endpoints.map((endpoint) => {
      const endpointPending = pending.byEndpoint.get(endpoint.id) ?? 0;
      let reason: string | null = null;
      if (endpointPending >= settings.maxPendingPerEndpoint) {
        reason = `Not sent: webhook ${endpoint.id} already had ${endpointPending} deliveries waiting, the most one webhook may hold (${settings.maxPendingPerEndpoint}); its endpoint is failing or slow. Fix the endpoint (or resume the webhook if it is paused) so that the waiting ones are sent`;
      } else if (ownerPending >= settings.maxPendingPerOwner) {
        reason = `Not sent: this account's webhooks already had ${ownerPending} deliveries waiting, the most an account may hold (${settings.maxPendingPerOwner}); fix the failing endpoints, or disable the webhooks that cannot be reached`;
      } else {
        ownerPending++;
      }
      return {
        id: newId('whd'),
        owner_id: ownerId,
        endpoint_id: endpoint.id,
        event_id: event.id,
        event_type: event.type,
        body,
        state: reason === null ? 'pending' : 'failed',
        attempt_count: 0,
        next_attempt_at: reason === null ? now : null,
        lease: null,
        lease_until: null,
        failure_reason: reason,
        created_at: now,
        updated_at: now,
      };
    });
    if ((await repo.insertDeliveries(rows)) > 0 && rows.some((row) => row.state === 'pending')) deliverer.wake();
    return rows;
  }

  /** A webhook's circuit breaker, reset: nothing failed yet, not paused. */
  const closedBreaker = { consecutive_failures: 0, failing_since: null, paused_until: null } as const;

  return {
    async create(ownerId: string, input: CreateWebhookInput): Promise<CreatedWebhook> {
      const url = checkUrl(input.url);
      const count = await repo.countEndpoints(ownerId);
      const max = deps.settings.maxEndpointsPerOwner;
      if (count >= max) {
        throw new AppError(
          'CONFLICT',
          `This account already has ${count} webhooks, the most it may hold (${max}); delete one, or subscribe an existing one to more events`,
          { details: { limit: max } },
        );
      }
      const id = newId('whk');
      const secret = newSecret();
      const now = isoNow();
      const row: EndpointRow = {
        id,
        owner_id: ownerId,
        url,
        events: JSON.stringify(input.events),
        enabled: 1,
        secret_sealed: await keyring.seal(ownerId, secretContext(id), secret),
        created_at: now,
        updated_at: now,
        ...closedBreaker,
      };
      await repo.insertEndpoint(row);
      return { ...toWebhook(row), secret };
    },

    async list(ownerId: string): Promise<Webhook[]> {
      return (await repo.listEndpoints(ownerId)).map(toWebhook);
    },

    async get(ownerId: string, id: string): Promise<Webhook> {
      return toWebhook(await getRow(ownerId, id));
    },

    /**
     * Changes the address, the events or whether it is enabled; disabling gives up its pending
     * deliveries. A new address, or enabling, also resumes a paused webhook: the owner has acted
     * on what failed.
     */
    async update(ownerId: string, id: string, input: UpdateWebhookInput): Promise<Webhook> {
      let changes: Parameters<WebhooksRepo['updateEndpoint']>[2] = { updated_at: isoNow() };
      if (input.url !== undefined) changes.url = checkUrl(input.url);
      if (input.events !== undefined) changes.events = JSON.stringify(input.events);
      if (input.enabled !== undefined) changes.enabled = input.enabled ? 1 : 0;
      if (input.url !== undefined || input.enabled !== undefined) changes = { ...changes, ...closedBreaker };
      const row = await repo.updateEndpoint(ownerId, id, changes);
      if (!row) throw notFound('Webhook', id);
      if (input.enabled === false) await repo.failPending(id, changes.updated_at!);
      else if (changes.paused_until === null) deliverer.wake();
      return toWebhook(row);
    },

    /**
     * Resumes a webhook the circuit breaker paused: its waiting deliveries are sent now (a
     * webhook that is not paused is answered as it is).
     */
    async resume(ownerId: string, id: string): Promise<Webhook> {
      const row = await getRow(ownerId, id);
      if (!row.enabled) {
        throw new AppError('CONFLICT', `Webhook ${id} is disabled, not paused; enable it with PATCH { "enabled": true }`);
      }
      if (row.paused_until === null) return toWebhook(row);
      const resumed = await repo.updateEndpoint(ownerId, id, { ...closedBreaker, updated_at: isoNow() });
      if (!resumed) throw notFound('Webhook', id);
      deliverer.wake();
      return toWebhook(resumed);
    },

    async remove(ownerId: string, id: string): Promise<{ id: string; deleted: true }> {
      if (!(await repo.deleteEndpoint(ownerId, id))) throw notFound('Webhook', id);
      return { id, deleted: true };
    },

    /** Sends a `webhook.test` event to this webhook alone, whatever it subscribes to. */
    async sendTest(ownerId: string, id: string): Promise<WebhookDelivery> {
      const row = await getRow(ownerId, id);
      if (!row.enabled) {
        throw new AppError('CONFLICT', `Webhook ${id} is disabled; enable it (PATCH { "enabled": true }) before sending it a test event`);
      }
      const { settings } = deps;
      const pending = await repo.pendingCounts(ownerId, [id]);
      const waiting = pending.byEndpoint.get(id) ?? 0;
      if (waiting >= settings.maxPendingPerEndpoint || pending.owner >= settings.maxPendingPerOwner) {
        // A test event past the caps would only be recorded as not sent: refused instead, as a
        // request to slow down, since the deliveries waiting go out as the endpoint answers.
        const retryAfter = Math.max(1, Math.ceil(settings.firstRetryMs / 1000));
        throw new AppError(
          'RATE_LIMITED',
          waiting >= settings.maxPendingPerEndpoint
            ? `Webhook ${id} already has ${waiting} deliveries waiting, the most one webhook may hold (${settings.maxPendingPerEndpoint}); a test event would not be sent. Fix its endpoint, or resume it if it is paused, and try again once they are sent`
            : `This account's webhooks already have ${pending.owner} deliveries waiting, the most an account may hold (${settings.maxPendingPerOwner}); a test event would not be sent. Fix the failing endpoints and try again once they are sent`,
          { headers: { 'Retry-After': String(retryAfter) }, details: { retryAfterSeconds: retryAfter, pending: waiting } },
        );
      }
      const event = { id: newId('evt'), type: TEST_EVENT_TYPE, occurredAt: isoNow(), data: { webhookId: id } };
      const [delivery] = await store(ownerId, [row], event);
      return toDelivery(delivery!, []);
    },

    async listDeliveries(
      ownerId: string,
      id: string,
      query: { limit: number; cursor?: string | undefined },
    ): Promise<{ deliveries: WebhookDelivery[]; nextCursor: string | null }> {
      await getRow(ownerId, id);
      const rows = await repo.listDeliveries(ownerId, id, { limit: query.limit + 1, cursor: query.cursor });
      const page = rows.slice(0, query.limit);
      const attempts = await repo.attemptsOf(page.map((r) => r.id));
      const byDelivery = new Map<string, AttemptRow[]>();
      for (const a of attempts) {
        const list = byDelivery.get(a.delivery_id) ?? [];
        list.push(a);
        byDelivery.set(a.delivery_id, list);
      }
      return {
        deliveries: page.map((r) => toDelivery(r, byDelivery.get(r.id) ?? [])),
        nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null,
      };
    },

    /**
     * Stores a delivery of `event` for each of the owner's enabled webhooks that subscribe to
     * its type, before anything is sent (a restart loses nothing); the bus calls it for every event.
     */
    async enqueue(ownerId: string, event: AccountEvent): Promise<void> {
      const endpoints = (await repo.listEndpoints(ownerId)).filter(
        (endpoint) => endpoint.enabled === 1 && endpointEventsOf(endpoint).includes(event.type),
      );
      if (endpoints.length > 0) await store(ownerId, endpoints, event);
    },

    /** Opens an endpoint's signing secret for the deliverer. */
    openSecret(ownerId: string, endpointId: string, sealed: string): Promise<string> {
      return keyring.open(ownerId, secretContext(endpointId), sealed);
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
