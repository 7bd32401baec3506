/**
 * Sends stored webhook deliveries, one worker per process, whatever the number of processes.
 *
 * A delivery is a row (webhooks.repo.ts) written before anything is sent. The worker wakes when
 * this process stores one, when a retry falls due (one unref'd timer), and at least every
 * `sweepMs` (deliveries another node stored and could not send, because it stopped). It claims
 * each due row with a lease, one atomic UPDATE, so that two nodes, or two wake-ups of one, never
 * make the same attempt; it then POSTs the stored body through the guarded outbound client (no
 * private addresses unless the server allows them, no redirects followed, a time limit, the
 * answer's body read to a small cap and dropped), and records the attempt with what follows:
 * delivered on a 2xx, else the next try after `firstRetryMs`, `secondRetryMs`, then doubling,
 * until `retryForMs` after the event, when the delivery is failed.
 *
 * Signing follows Standard Webhooks: `webhook-id` (the event id, the same on every attempt),
 * `webhook-timestamp` (seconds, this attempt's), and `webhook-signature: v1,<base64 of
 * HMAC-SHA256 over "<id>.<timestamp>.<body>">` keyed by the bytes after `whsec_`.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { OutboundClient } from '../../http/outbound.js';
import { newId } from '../../lib/ids.js';
import { isoIn, isoNow } from '../../lib/time.js';
import type { WebhooksRepo } from './webhooks.repo.js';

/** A logger's two calls the worker uses (Fastify's logger fits). */
export interface DelivererLog {
  warn(object: Record<string, unknown>, message: string): void;
  error(object: Record<string, unknown>, message: string): void;
}

export interface DelivererSettings {
  firstRetryMs: number;
  secondRetryMs: number;
  retryForMs: number;
  /** The time one attempt may take, answer included. */
  timeoutMs: number;
}

export interface DelivererDeps {
  repo: Pick<WebhooksRepo, 'dueDeliveries' | 'nextDue' | 'claim' | 'finishAttempt' | 'abandon' | 'release' | 'getEndpoint'>;
  outbound: Pick<OutboundClient, 'open'>;
  /** Opens an endpoint's sealed signing secret. */
  openSecret(ownerId: string, endpointId: string, sealed: string): Promise<string>;
  settings: DelivererSettings;
  /** How often, at most, the worker looks for due deliveries with nothing else waking it. */
  sweepMs?: number;
}

/** Rows claimed per look, and attempts in flight at once. */
const BATCH = 50;
const CONCURRENCY = 8;
/** Bytes of an endpoint's answer read (and dropped): only its status counts. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** Errors are stored this long at most. */
const MAX_ERROR_CHARS = 500;
const SWEEP_MS = 30_000;
/** setTimeout's largest delay. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** `v1,<base64 HMAC-SHA256>` of `id.timestamp.body` with the secret's key bytes, as Standard Webhooks signs. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * The wait before the next attempt, after `attempts` attempts have failed: the first two
 * delays as configured, then each twice the one before.
 */
export function retryDelayMs(attempts: number, settings: Pick<DelivererSettings, 'firstRetryMs' | 'secondRetryMs'>): number {
  if (attempts <= 1) return settings.firstRetryMs;
  return settings.secondRetryMs * 2 ** Math.min(attempts - 2, 30);
}

export function createWebhookDeliverer(deps: DelivererDeps) {
  const { repo, settings } = deps;
  const sweepMs = deps.sweepMs ?? SWEEP_MS;
  // A claim outlasts the attempt it covers, which the time limit bounds.
  const leaseMs = settings.timeoutMs + 30_000;
  let log: DelivererLog | undefined;
  let started = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  /** The drain running now, and whether another look was asked for meanwhile. */
  let draining: Promise<void> | undefined;
  let again = false;
  /** Attempts in flight, aborted on close. */
  const inFlight = new Set<AbortController>();

  function report(error: unknown, message: string): void {
    log?.error({ err: error }, message);
  }

  function schedule(delayMs: number): void {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(wake, Math.max(0, Math.min(delayMs, sweepMs, MAX_TIMER_MS)));
    // A pending retry never keeps the process alive on its own.
    timer.unref();
  }

  async function attempt(id: string): Promise<void> {
    const lease = randomBytes(16).toString('hex');
    const claimed = await repo.claim(id, lease, isoNow(), isoIn(leaseMs));
    if (!claimed) return;
    const endpoint = await repo.getEndpoint(claimed.owner_id, claimed.endpoint_id);
    if (!endpoint || !endpoint.enabled) {
      await repo.abandon(id, lease, isoNow());
      return;
    }
    const secret = await deps.openSecret(endpoint.owner_id, endpoint.id, endpoint.secret_sealed);
    const attemptedAt = isoNow();
    const timestamp = Math.floor(Date.parse(attemptedAt) / 1000);
    const controller = new AbortController();
    inFlight.add(controller);
    const started = performance.now();
    let responseStatus: number | null = null;
    let error: string | null = null;
    try {
      const answer = await deps.outbound.open({
        method: 'POST',
        url: endpoint.url,
        headers: {
          'content-type': 'application/json',
          'webhook-id': claimed.event_id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(secret, claimed.event_id, timestamp, claimed.body),
        },
        body: claimed.body,
        timeoutMs: settings.timeoutMs,
        maxResponseBytes: MAX_ANSWER_BYTES,
        // A redirect is an answer like any other non-2xx: the owner fixes the address.
        followRedirects: false,
        signal: controller.signal,
      });
      responseStatus = answer.status;
      try {
        for await (const _chunk of answer.body) {
          // Read to the cap and dropped: only the status counts.
        }
      } catch {
        // An answer past the cap, or cut short, still carried its status.
      }
      if (answer.status < 200 || answer.status > 299) error = `The endpoint answered HTTP ${answer.status}; a 2xx status acknowledges a delivery`;
    } catch (failure) {
      error = failure instanceof Error ? failure.message : String(failure);
    } finally {
      inFlight.delete(controller);
    }
    if (closed && controller.signal.aborted) {
      // Stopped by shutdown, not by the endpoint: the attempt does not count, and the row is
      // free at once for the next process.
      await repo.release(id, lease).catch(() => undefined);
      return;
    }
    const durationMs = Math.round(performance.now() - started);
    const succeeded = error === null;
    const attempts = claimed.attempt_count + 1;
    const nextAt = Date.now() + retryDelayMs(attempts, settings);
    const givenUp = !succeeded && nextAt > Date.parse(claimed.created_at) + settings.retryForMs;
    await repo.finishAttempt(id, lease, {
      state: succeeded ? 'delivered' : givenUp ? 'failed' : 'pending',
      nextAttemptAt: succeeded || givenUp ? null : new Date(nextAt).toISOString(),
      attempt: {
        id: newId('wha'),
        delivery_id: id,
        attempted_at: attemptedAt,
        outcome: succeeded ? 'succeeded' : 'failed',
        response_status: responseStatus,
        error: error === null ? null : error.slice(0, MAX_ERROR_CHARS),
        duration_ms: durationMs,
      },
    });
  }

  async function drain(): Promise<void> {
    do {
      again = false;
      const due = await repo.dueDeliveries(isoNow(), BATCH);
      let next = 0;
      const lane = async () => {
        while (!closed && next < due.length) {
          const { id } = due[next++]!;
          await attempt(id).catch((error: unknown) => report(error, 'webhooks: a delivery attempt could not be made or recorded'));
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, due.length) }, lane));
      if (due.length === BATCH) again = true;
    } while (again && !closed);
    if (closed) return;
    const nextDue = await repo.nextDue(isoNow());
    schedule(nextDue === undefined ? sweepMs : Date.parse(nextDue) - Date.now());
  }

  /** Looks for due deliveries now (or right after the look in progress). */
  function wake(): void {
    if (!started || closed) return;
    if (draining) {
      again = true;
      return;
    }
    clearTimeout(timer);
    draining = drain()
      .catch((error: unknown) => {
        report(error, 'webhooks: looking for due deliveries failed; trying again shortly');
        schedule(Math.min(sweepMs, 5_000));
      })
      .finally(() => {
        draining = undefined;
        if (again && !closed) wake();
      });
  }

  return {
    /** Starts the worker (once the app is ready): sends what is due, including what an earlier run left. */
    start(logger: DelivererLog): void {
      if (started || closed) return;
      log = logger;
      started = true;
      wake();
    },

    wake,

    /** Logs a failure of work done for the worker elsewhere (storing deliveries). */
    report,

    /**
     * Stops the worker: no new attempt starts, attempts in flight are aborted and their rows freed
     * for the next process, and this resolves once the worker is idle. Called before storage closes.
     */
    async close(): Promise<void> {
      closed = true;
      clearTimeout(timer);
      for (const controller of inFlight) controller.abort();
      await draining;
    },
  };
}

export type WebhookDeliverer = ReturnType<typeof createWebhookDeliverer>;
