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
 *
 * Fairness (one owner's silent endpoints must not hold back another owner's deliveries): the
 * process runs `concurrency` attempts at once, each started as soon as a lane frees (not in
 * batches that wait for their slowest); one owner's deliveries take at most `ownerConcurrency`
 * of them; candidates come round-robin by owner; a webhook has at most `endpointConcurrency`
 * attempts in flight across every node (the claim counts them under a lock on the webhook's
 * row). The circuit breaker: `pauseAfterFailures` failures in a row over at least
 * `pauseAfterMs` pause the webhook for `pauseForMs` (event `webhook.paused`); then one probe
 * attempt is made, whose success resumes it and whose failure pauses it again.
 *
 * Retention: at most once an hour per process, after a look for due deliveries, the
 * worker deletes the deliveries that finished more than `deliveryRetentionDays` ago, with their
 * attempts, in batches (`pruneDeliveries`). Without it a webhook that stays dead keeps a row, with
 * the event's body, for every event, and so does all history. Several nodes may prune at once.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { WebhookSettings } from '../../config.js';
import type { OutboundClient } from '../../http/outbound.js';
import { newId } from '../../lib/ids.js';
import { ignoreFailure } from '../../lib/ignore-failure.js';
import { isoIn, isoNow } from '../../lib/time.js';
import type { EventsBus } from '../events/events.bus.js';
import type { DeliveryRow, WebhooksRepo } from './webhooks.repo.js';

/** A logger's two calls the worker uses (Fastify's logger fits). */
export interface DelivererLog {
  warn(object: Record<string, unknown>, message: string): void;
  error(object: Record<string, unknown>, message: string): void;
}

export type DelivererSettings = Pick<
  WebhookSettings,
  | 'firstRetryMs'
  | 'secondRetryMs'
  | 'retryForMs'
  | 'timeoutMs'
  | 'concurrency'
  | 'ownerConcurrency'
  | 'endpointConcurrency'
  | 'pauseAfterFailures'
  | 'pauseAfterMs'
  | 'pauseForMs'
  | 'deliveryRetentionDays'
>;

export interface DelivererDeps {
  repo: Pick<
    WebhooksRepo,
    'dueDeliveries' | 'nextDue' | 'claim' | 'finishAttempt' | 'abandon' | 'release' | 'getEndpoint' | 'recordSuccess' | 'recordFailure' | 'deleteFinishedBefore'
  >;
  outbound: Pick<OutboundClient, 'open'>;
  /** Where `webhook.paused` is published (to the console's streams and the owner's other webhooks). */
  events: Pick<EventsBus, 'publish'>;
  /** Opens an endpoint's sealed signing secret. */
  openSecret(ownerId: string, endpointId: string, sealed: string): Promise<string>;
  settings: DelivererSettings;
  /** How often, at most, the worker looks for due deliveries with nothing else waking it. */
  sweepMs?: number;
}

/** Candidates read per look. */
const BATCH = 50;
/** Bytes of an endpoint's answer read (and dropped): only its status counts. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** Errors are stored this long at most. */
const MAX_ERROR_CHARS = 500;
const SWEEP_MS = 30_000;
/** setTimeout's largest delay. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Old deliveries are looked for hourly: the rule counts in days, and a run that finds none costs one indexed read. */
const PRUNE_EVERY_MS = 3_600_000;
/** Deliveries deleted per statement (and per transaction), so that none holds the table long. */
export const PRUNE_BATCH = 1_000;
const DAY_MS = 24 * 3_600_000;

/**
 * Deletes the finished deliveries (delivered or failed) that finished before `before`, with
 * their attempts, `batchSize` at a time until a batch deletes fewer; answers how many went.
 * Between batches the event loop runs, so that requests are served while a large backlog goes
 * (SQLite's calls block it). `stopped` ends the loop early, at shutdown.
 */
export async function pruneDeliveries(
  repo: Pick<WebhooksRepo, 'deleteFinishedBefore'>,
  before: string,
  options: { batchSize?: number; stopped?: () => boolean } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? PRUNE_BATCH;
  let total = 0;
  for (;;) {
    const deleted = await repo.deleteFinishedBefore(before, batchSize);
    total += deleted;
    // Fewer than a batch: nothing older is left, or another node holds the rest (it deletes them).
    if (deleted < batchSize || options.stopped?.()) return total;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

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
  /** When this process may next delete old deliveries (the first look after start may), and the run in progress. */
  let nextPruneAt = 0;
  let pruning: Promise<void> | undefined;
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

  /** Attempts in flight in this process, in all and per owner (the lanes they take). */
  let running = 0;
  const runningByOwner = new Map<string, number>();
  const attempts = new Set<Promise<void>>();

  async function attempt(claimed: DeliveryRow, lease: string, probe: boolean): Promise<void> {
    const id = claimed.id;
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
      await ignoreFailure(repo.release(id, lease), 'a row not released is free again once its lease ends');
      return;
    }
    const durationMs = Math.round(performance.now() - started);
    const succeeded = error === null;
    const attempts = claimed.attempt_count + 1;
    const nextAt = Date.now() + retryDelayMs(attempts, settings);
    const givenUp = !succeeded && nextAt > Date.parse(claimed.created_at) + settings.retryForMs;
    const storedError = error === null ? null : error.slice(0, MAX_ERROR_CHARS);
    const recorded = await repo.finishAttempt(id, lease, {
      state: succeeded ? 'delivered' : givenUp ? 'failed' : 'pending',
      nextAttemptAt: succeeded || givenUp ? null : new Date(nextAt).toISOString(),
      attempt: {
        id: newId('wha'),
        delivery_id: id,
        attempted_at: attemptedAt,
        outcome: succeeded ? 'succeeded' : 'failed',
        response_status: responseStatus,
        error: storedError,
        duration_ms: durationMs,
      },
    });
    // An attempt whose webhook was disabled or deleted meanwhile says nothing of it.
    if (!recorded) return;
    if (succeeded) {
      await repo.recordSuccess(endpoint.id);
      return;
    }
    const now = isoNow();
    const paused = await repo.recordFailure(endpoint.id, now, {
      probe,
      pauseAfterFailures: settings.pauseAfterFailures,
      pauseAfterMs: settings.pauseAfterMs,
      pauseUntil: isoIn(settings.pauseForMs),
    });
    if (paused?.paused_until) {
      log?.warn({ webhookId: paused.id, ownerId: paused.owner_id, consecutiveFailures: paused.consecutive_failures }, 'webhooks: a failing webhook was paused');
      deps.events.publish(paused.owner_id, {
        type: 'webhook.paused',
        data: {
          webhookId: paused.id,
          consecutiveFailures: paused.consecutive_failures,
          failingSince: paused.failing_since ?? now,
          pausedUntil: paused.paused_until,
          lastError: storedError,
        },
      });
    }
  }

  /** Runs a claimed attempt in a lane of its own; the lane, once free, looks for more. */
  function launch(claimed: DeliveryRow, lease: string, probe: boolean): void {
    const owner = claimed.owner_id;
    running++;
    runningByOwner.set(owner, (runningByOwner.get(owner) ?? 0) + 1);
    const work = attempt(claimed, lease, probe)
      .catch((error: unknown) => report(error, 'webhooks: a delivery attempt could not be made or recorded'))
      .finally(() => {
        running--;
        const left = (runningByOwner.get(owner) ?? 1) - 1;
        if (left > 0) runningByOwner.set(owner, left);
        else runningByOwner.delete(owner);
        attempts.delete(work);
        wake();
      });
    attempts.add(work);
  }

  /** Claims due deliveries, fairly, until every lane is taken or nothing more can be claimed now. */
  async function drain(): Promise<void> {
    let lookedAt = isoNow();
    do {
      again = false;
      if (running >= settings.concurrency) break;
      const full = [...runningByOwner].filter(([, n]) => n >= settings.ownerConcurrency).map(([owner]) => owner);
      lookedAt = isoNow();
      const due = await repo.dueDeliveries(lookedAt, { limit: BATCH, perEndpoint: settings.endpointConcurrency, exceptOwners: full });
      let claimedAny = false;
      for (const candidate of due) {
        if (closed || running >= settings.concurrency) break;
        if ((runningByOwner.get(candidate.owner_id) ?? 0) >= settings.ownerConcurrency) continue;
        const lease = randomBytes(16).toString('hex');
        const claim = await repo.claim(candidate.id, lease, isoNow(), isoIn(leaseMs), settings.endpointConcurrency);
        if (!claim) continue;
        claimedAny = true;
        launch(claim.row, lease, claim.probe);
      }
      // A full page may have more behind it; a page of which nothing could be claimed is not
      // read again at once (the attempts that end wake the worker).
      if (claimedAny && due.length === BATCH) again = true;
    } while (again && !closed);
    if (closed) return;
    pruneIfDue();
    const nextDue = await repo.nextDue(lookedAt);
    schedule(nextDue === undefined ? sweepMs : Date.parse(nextDue) - Date.now());
  }

  /**
   * Deletes the deliveries past their retention, when this process has not for an hour.
   * Runs beside the deliveries, not before them: a large backlog never delays an attempt. A
   * failure is logged, and the rule runs again an hour later.
   */
  function pruneIfDue(): void {
    const now = Date.now();
    if (closed || pruning || now < nextPruneAt) return;
    nextPruneAt = now + PRUNE_EVERY_MS;
    const before = new Date(now - settings.deliveryRetentionDays * DAY_MS).toISOString();
    pruning = pruneDeliveries(repo, before, { stopped: () => closed })
      .then(() => undefined)
      .catch((error: unknown) => report(error, 'webhooks: deliveries past their retention could not be deleted; trying again in an hour'))
      .finally(() => {
        pruning = undefined;
      });
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
      await Promise.all([...attempts]);
      await pruning;
    },
  };
}

export type WebhookDeliverer = ReturnType<typeof createWebhookDeliverer>;
