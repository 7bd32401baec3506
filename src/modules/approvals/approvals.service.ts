import { randomBytes } from 'node:crypto';
import { hasOwnerRight, type ActionClass, type Principal } from '../../http/access.js';
import { ACTION_CLASS_NAMES } from '../permissions/permissions.actions.js';
import { AppError, notFound } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { isoNow } from '../../lib/time.js';
import type { ApprovalsTable } from './approvals.tables.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import type { EventsBus } from '../events/events.bus.js';
import type { SecretSealer } from '../keyring/keyring.service.js';
import type { TokensService } from '../tokens/tokens.service.js';
import { describeRequest, heldFields } from './approvals.describe.js';
import { policyRulesOf, type ApprovalsRepo, type PendingUsage } from './approvals.repo.js';
import type { Approval, ApprovalDetail, HeldRequestView, Policy, PolicyRules, PolicyRuleValue } from './approvals.schemas.js';

/** How long the answer of an approved request is kept for the token that made it. */
export const RESULT_TTL_MS = 24 * 3_600_000;

/**
 * What is added to the longest a replay can take before an approval still `approved` is taken for
 * one whose node stopped during the replay. Generous: a replay still running when the sweep
 * writes it failed would have its true answer lost, while a dead one only shows failed later.
 */
export const REPLAY_LEASE_MARGIN_MS = 5 * 60_000;

/**
 * How long after its start a replay is certainly over, had its node lived: the longest one step
 * of a replay can wait (a device command, at most 60 s; another device operation, the AFP request
 * timeout; a call out, the outbound timeout), twice (a call to a connected account may first
 * refresh its access token, each step bounded by its own timeout), plus the margin.
 */
export function replayLeaseMs(limits: { deviceCommandMs: number; deviceRequestMs: number; outboundMs: number }): number {
  return 2 * Math.max(limits.deviceCommandMs, limits.deviceRequestMs, limits.outboundMs) + REPLAY_LEASE_MARGIN_MS;
}

/** What the requesting token reads of an approval whose replay its node never finished. */
const INTERRUPTED_MESSAGE =
  'The server stopped while running this approved request, so whether it took effect is not known. ' +
  'It was not run again (an approved request runs at most once): check its effect before asking again';

/** A held request, as the approvals hook records it. */
export interface HeldRequest {
  actionClass: ActionClass;
  method: string;
  /** Path and query exactly as received (a `token` query parameter removed): what the replay runs. */
  url: string;
  operationId: string | null;
  /** The route's path parameters, named in the description. */
  params: Record<string, string>;
  /** The validated body: what the route acts on, and what the replay sends. */
  body: unknown;
  /** The channel it came over: its replay is recorded as having come over it too. */
  channel: ApprovalsTable['channel'];
}

/** What pending approvals may hold (config `approvalLimits`). */
export interface PendingLimits {
  pendingPerToken: number;
  pendingPerOwner: number;
  /** Characters (bytes) of one owner's sealed held bodies. */
  pendingBytesPerOwner: number;
}

/** What running an approved request answered. */
export interface ReplayAnswer {
  status: number;
  contentType: string;
  body: string;
}

/** Runs an approved request in-process, carrying `replayValue` in the approval-replay header. */
export type RunReplay = (request: { method: string; url: string; body: unknown; replayValue: string }) => Promise<ReplayAnswer>;

export interface ApprovalsServiceDeps {
  repo: ApprovalsRepo;
  sealer: SecretSealer;
  audit: Pick<AuditService, 'record'>;
  events: Pick<EventsBus, 'publish'>;
  tokens: Pick<TokensService, 'get' | 'livePrincipal'>;
  ttlMs: number;
  limits: PendingLimits;
  /** See replayLeaseMs. */
  replayLeaseMs: number;
}

/** The class stored with an approval: written only by `hold`, from the closed list. */
const classOf = (row: Pick<ApprovalsTable, 'action_class'>) => row.action_class as ActionClass;

const bodyContext = (id: string) => `approvals:${id}:body`;
const resultContext = (id: string) => `approvals:${id}:result`;

/** A replay waiting to be run: made by the node that won the approval, taken once by the access hook. */
interface PendingReplay {
  approvalId: string;
  ownerId: string;
  tokenId: string;
  method: string;
  url: string;
  channel: ApprovalsTable['channel'];
}

const MiB = 1024 * 1024;
const mib = (bytes: number) => (bytes < MiB ? `${Math.ceil(bytes / 1024)} KiB` : `${(bytes / MiB).toFixed(bytes < 10 * MiB ? 1 : 0)} MiB`);

/** 429 with Retry-After: room is made when the owner decides, or at the latest when `firstExpiry` passes. */
function tooMany(message: string, firstExpiry: string | null, details: Record<string, unknown>): AppError {
  const retryAfter = Math.max(1, Math.ceil(((firstExpiry ? Date.parse(firstExpiry) : Date.now()) - Date.now()) / 1000));
  return new AppError(
    'RATE_LIMITED',
    `${message}. Ask the owner to approve or deny the pending ones (GET /api/v1/approvals?status=pending), or wait until they expire (the first in ${retryAfter} s), then send it again`,
    { headers: { 'Retry-After': String(retryAfter) }, details: { ...details, retryAfterSeconds: retryAfter } },
  );
}

/**
 * Refuses a held request that would take the token's or the owner's pending approvals past
 * their limits. A body larger than the whole byte budget could never be held: 413, not 429.
 */
export function checkPendingLimits(limits: PendingLimits, usage: PendingUsage, bodyBytes: number): void {
  if (bodyBytes > limits.pendingBytesPerOwner) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `This request's body (${mib(bodyBytes)} once sealed) is larger than all held requests together may be (${mib(limits.pendingBytesPerOwner)}), so it cannot be held for approval. Send a smaller one, or ask the owner to allow this action for the token`,
      { details: { limit: limits.pendingBytesPerOwner, bytes: bodyBytes } },
    );
  }
  if (usage.tokenCount >= limits.pendingPerToken) {
    throw tooMany(`This token already has ${usage.tokenCount} requests waiting for the owner's approval, the most one token may have (${limits.pendingPerToken})`, usage.tokenFirstExpiry, {
      limit: limits.pendingPerToken,
      pending: usage.tokenCount,
    });
  }
  if (usage.ownerCount >= limits.pendingPerOwner) {
    throw tooMany(`The owner already has ${usage.ownerCount} requests waiting for approval, the most an account may have (${limits.pendingPerOwner})`, usage.ownerFirstExpiry, {
      limit: limits.pendingPerOwner,
      pending: usage.ownerCount,
    });
  }
  if (usage.ownerBytes + bodyBytes > limits.pendingBytesPerOwner) {
    throw tooMany(
      `The requests waiting for the owner's approval already hold ${mib(usage.ownerBytes)}; with this one (${mib(bodyBytes)}) they would pass the ${mib(limits.pendingBytesPerOwner)} an account may hold`,
      usage.ownerFirstExpiry,
      { limitBytes: limits.pendingBytesPerOwner, pendingBytes: usage.ownerBytes, bytes: bodyBytes },
    );
  }
}

/** The action classes a token holding `scopes` can meet (src/http/access.ts reachableActionClasses over the routes). */
export type Reach = (scopes: readonly string[]) => ReadonlySet<ActionClass>;

/** `reach` of the scopes, in the classes' own order. */
function reachableOf(scopes: readonly string[], reach: Reach): ActionClass[] {
  const reached = reach(scopes);
  return ACTION_CLASS_NAMES.filter((name) => reached.has(name));
}

export function createApprovalsService(deps: ApprovalsServiceDeps) {
  const { repo, sealer, audit, events, tokens } = deps;
  // One-time values of replays under way in this process. A value is 32 random bytes: one sent
  // from outside matches nothing; each is taken (deleted) on first use.
  const replays = new Map<string, PendingReplay>();

  async function requirePolicyToken(ownerId: string, tokenId: string) {
    const token = await tokens.get(ownerId, tokenId);
    if (token.kind === 'master' || token.kind === 'session') {
      throw new AppError('VALIDATION_ERROR', `Token ${tokenId} is a ${token.kind} token: the owner's own tokens follow no policy. Policies are for API, agent and OAuth tokens`);
    }
    return token;
  }

  function fullRules(given: Partial<Record<ActionClass, PolicyRuleValue>>): Policy['rules'] {
    return Object.fromEntries(ACTION_CLASS_NAMES.map((name) => [name, given[name] ?? 'allow'])) as Policy['rules'];
  }

  function statusOf(row: ApprovalsTable, now: string): Approval['status'] {
    return row.status === 'pending' && row.expires_at <= now ? 'expired' : row.status;
  }

  async function toView(row: ApprovalsTable, forRequester: boolean): Promise<Approval> {
    const now = isoNow();
    let result: Approval['result'] = null;
    if (forRequester && row.result_sealed && row.result_status !== null && row.result_expires_at && row.result_expires_at > now) {
      const answer = JSON.parse(await sealer.open(row.owner_id, resultContext(row.id), row.result_sealed)) as ReplayAnswer;
      let body: unknown = answer.body;
      if (answer.contentType.includes('json') && answer.body) {
        try {
          body = JSON.parse(answer.body);
        } catch {
          // Not JSON after all: kept as text.
        }
      }
      result = { status: answer.status, body };
    }
    return {
      id: row.id,
      status: statusOf(row, now),
      actionClass: classOf(row),
      tokenId: row.token_id,
      tokenName: row.token_name,
      method: row.method,
      path: row.url,
      operationId: row.operation_id,
      description: row.description,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      decidedAt: row.decided_at,
      decidedBy: row.decided_by,
      executedAt: row.executed_at,
      resultStatus: row.result_status,
      result,
    };
  }

  /** The request as it will run: method, path and every field of its body (see heldFields). */
  async function heldRequest(row: ApprovalsTable): Promise<HeldRequestView> {
    const base = { method: row.method, path: row.url, fields: [], omittedFields: 0 };
    if (!row.body_sealed) return { ...base, bodyStatus: row.status === 'pending' || row.status === 'approved' ? 'none' : 'dropped' };
    const body = JSON.parse(await sealer.open(row.owner_id, bodyContext(row.id), row.body_sealed)) as unknown;
    const { fields, omitted } = heldFields(classOf(row), body);
    return { ...base, bodyStatus: 'held', fields, omittedFields: omitted };
  }

  async function requireApproval(ownerId: string, id: string): Promise<ApprovalsTable> {
    const row = await repo.get(ownerId, id);
    if (!row) throw notFound('Approval', id);
    return row;
  }

  /** Why a decision lost: already decided, or expired. */
  function notPending(row: ApprovalsTable): AppError {
    const status = statusOf(row, isoNow());
    return new AppError('CONFLICT', `Approval ${row.id} is ${status}, not pending: it can be decided only once, before it expires`, { details: { status } });
  }

  return {
    /** The token's policy; `reach` answers the classes its scopes meet (from the routes, which the service does not see). */
    async getPolicy(ownerId: string, tokenId: string, reach: Reach): Promise<Policy> {
      const token = await requirePolicyToken(ownerId, tokenId);
      const row = await repo.getPolicy(tokenId);
      return { tokenId, rules: fullRules(row ? policyRulesOf(row) : {}), updatedAt: row?.updated_at ?? null, reachable: reachableOf(token.scopes, reach) };
    },

    async setPolicy(ownerId: string, tokenId: string, rules: PolicyRules, actor: AuditActor, reach: Reach): Promise<Policy> {
      const token = await requirePolicyToken(ownerId, tokenId);
      // Only what is not `allow` is stored: a class added later starts allowed.
      const stored = Object.fromEntries(Object.entries(rules).filter(([, rule]) => rule !== 'allow'));
      const now = isoNow();
      await repo.putPolicy({ token_id: tokenId, owner_id: ownerId, rules: JSON.stringify(stored), updated_at: now });
      await audit.record(actor, { action: 'token.policy_changed', outcome: 'success', targetType: 'token', targetId: tokenId, details: { rules: stored } });
      return { tokenId, rules: fullRules(stored), updatedAt: now, reachable: reachableOf(token.scopes, reach) };
    },

    /** The rule the token's policy gives this class; the owner's own tokens are never held. */
    async ruleFor(principal: Principal, actionClass: ActionClass): Promise<PolicyRuleValue> {
      if (hasOwnerRight(principal)) return 'allow';
      const row = await repo.getPolicy(principal.tokenId);
      return fullRules(row ? policyRulesOf(row) : {})[actionClass] ?? 'allow';
    },

    /** Records a request for the owner's decision; its body is sealed. */
    async hold(principal: Principal, request: HeldRequest, actor: AuditActor): Promise<{ id: string; expiresAt: string }> {
      const id = newId('apr');
      const token = await tokens.get(principal.ownerId, principal.tokenId);
      const bodySealed = request.body === undefined ? null : await sealer.seal(principal.ownerId, bodyContext(id), JSON.stringify(request.body));
      const now = new Date();
      const expiresAt = new Date(now.getTime() + deps.ttlMs).toISOString();
      const description = describeRequest({
        tokenName: token.name,
        actionClass: request.actionClass,
        method: request.method,
        operationId: request.operationId,
        params: request.params,
        url: request.url,
        body: request.body,
      });
      const row: ApprovalsTable = {
        id,
        owner_id: principal.ownerId,
        token_id: principal.tokenId,
        token_name: token.name,
        action_class: request.actionClass,
        method: request.method,
        url: request.url,
        operation_id: request.operationId,
        description,
        body_sealed: bodySealed,
        status: 'pending',
        expires_at: expiresAt,
        decided_at: null,
        decided_by: null,
        executed_at: null,
        result_status: null,
        result_sealed: null,
        result_expires_at: null,
        created_at: now.toISOString(),
        replay_started_at: null,
        channel: request.channel,
      };
      await repo.insertWithin(row, (usage) => checkPendingLimits(deps.limits, usage, bodySealed?.length ?? 0));
      await audit.record(actor, {
        action: 'approval.requested',
        outcome: 'success',
        targetType: 'approval',
        targetId: id,
        details: { actionClass: request.actionClass, method: request.method, path: request.url, operationId: request.operationId },
      });
      events.publish(principal.ownerId, {
        type: 'approval.requested',
        data: { approvalId: id, tokenId: principal.tokenId, tokenName: token.name, actionClass: request.actionClass, expiresAt },
      });
      return { id, expiresAt };
    },

    async list(ownerId: string, query: { limit: number; cursor?: string | undefined; status?: Approval['status'] | undefined }): Promise<{ approvals: Approval[]; nextCursor: string | null }> {
      const rows = await repo.list(ownerId, { ...query, limit: query.limit + 1, now: isoNow() });
      const page = rows.slice(0, query.limit);
      return { approvals: await Promise.all(page.map((row) => toView(row, false))), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
    },

    /**
     * One approval, for the owner or for the token that made the request (only it sees the
     * answer); anyone else gets 404. The owner, who decides, also reads the exact held request.
     */
    async get(principal: Principal, id: string): Promise<ApprovalDetail> {
      const row = await repo.get(principal.ownerId, id);
      const isRequester = row?.token_id === principal.tokenId;
      const isOwner = hasOwnerRight(principal);
      if (!row || (!isRequester && !isOwner)) throw notFound('Approval', id);
      return { ...(await toView(row, isRequester)), request: isOwner ? await heldRequest(row) : null };
    },

    async deny(ownerId: string, id: string, actor: AuditActor): Promise<Approval> {
      const row = await requireApproval(ownerId, id);
      if (!(await repo.decide(ownerId, id, 'denied', actor.tokenId ?? 'owner', isoNow()))) throw notPending(row);
      await audit.record(actor, { action: 'approval.denied', outcome: 'success', targetType: 'approval', targetId: id, details: { actionClass: row.action_class, tokenId: row.token_id } });
      events.publish(ownerId, { type: 'approval.decided', data: { approvalId: id, tokenId: row.token_id, actionClass: classOf(row), decision: 'denied' } });
      return toView(await requireApproval(ownerId, id), false);
    },

    /**
     * Approves and runs the request, once: the conditional UPDATE lets one caller win on any
     * node; that caller runs it, as the token that asked (checked afresh by the access hook:
     * revoked, expired or lacking the scope now, it fails), and stores the answer sealed.
     */
    async approve(ownerId: string, id: string, actor: AuditActor, run: RunReplay): Promise<Approval> {
      const row = await requireApproval(ownerId, id);
      if (!(await repo.decide(ownerId, id, 'approved', actor.tokenId ?? 'owner', isoNow()))) throw notPending(row);
      await audit.record(actor, { action: 'approval.approved', outcome: 'success', targetType: 'approval', targetId: id, details: { actionClass: row.action_class, tokenId: row.token_id } });
      events.publish(ownerId, { type: 'approval.decided', data: { approvalId: id, tokenId: row.token_id, actionClass: classOf(row), decision: 'approved' } });

      const body = row.body_sealed ? (JSON.parse(await sealer.open(ownerId, bodyContext(id), row.body_sealed)) as unknown) : undefined;
      const replayValue = randomBytes(32).toString('base64url');
      replays.set(replayValue, { approvalId: id, ownerId, tokenId: row.token_id, method: row.method, url: row.url, channel: row.channel });
      let answer: ReplayAnswer;
      try {
        answer = await run({ method: row.method, url: row.url, body, replayValue });
      } finally {
        replays.delete(replayValue);
      }
      const executedAt = new Date();
      const succeeded = answer.status >= 200 && answer.status < 300;
      await repo.finish(id, {
        status: succeeded ? 'executed' : 'failed',
        executed_at: executedAt.toISOString(),
        result_status: answer.status,
        result_sealed: await sealer.seal(ownerId, resultContext(id), JSON.stringify(answer)),
        result_expires_at: new Date(executedAt.getTime() + RESULT_TTL_MS).toISOString(),
      });
      await audit.record(
        { ...actor, tokenId: row.token_id },
        {
          action: 'approval.executed',
          outcome: succeeded ? 'success' : 'failure',
          targetType: 'approval',
          targetId: id,
          details: { actionClass: row.action_class, method: row.method, path: row.url, resultStatus: answer.status, approvedBy: actor.tokenId },
        },
      );
      return toView(await requireApproval(ownerId, id), false);
    },

    /**
     * The token an approval-replay header stands for, when its value is a replay under way in
     * this process for this very request; taken once. Null otherwise, or when the token is no
     * longer valid (revoked, expired): the replay then answers 401 and the approval fails.
     */
    async takeReplay(value: string, method: string, url: string): Promise<{ principal: Principal; approvalId: string; channel: ApprovalsTable['channel'] } | null> {
      const replay = replays.get(value);
      if (!replay) return null;
      replays.delete(value);
      if (replay.method !== method || replay.url !== url) return null;
      const principal = await tokens.livePrincipal(replay.ownerId, replay.tokenId);
      return principal ? { principal, approvalId: replay.approvalId, channel: replay.channel } : null;
    },

    /**
     * Writes expired what was not decided in time; writes failed what was approved but whose
     * replay started longer ago than any replay takes (its node stopped during it), without
     * running it again: a request that may have taken effect (an `rm`, a sent mail) must never
     * run twice. Then drops answers kept past their day.
     */
    async sweep(): Promise<void> {
      const now = new Date();
      const system = (ownerId: string): AuditActor => ({ ownerId, tokenId: null, ip: null, userAgent: null });
      for (const row of await repo.expire(now.toISOString())) {
        await audit.record(system(row.owner_id), {
          action: 'approval.expired',
          outcome: 'failure',
          targetType: 'approval',
          targetId: row.id,
          details: { actionClass: row.action_class, tokenId: row.token_id },
        });
      }
      for (const row of await repo.staleReplays(new Date(now.getTime() - deps.replayLeaseMs).toISOString())) {
        const answer: ReplayAnswer = { status: 500, contentType: 'application/json', body: JSON.stringify({ error: 'INTERNAL_ERROR', message: INTERRUPTED_MESSAGE }) };
        const written = await repo.finish(row.id, {
          status: 'failed',
          executed_at: null,
          result_status: answer.status,
          result_sealed: await sealer.seal(row.owner_id, resultContext(row.id), JSON.stringify(answer)),
          result_expires_at: new Date(now.getTime() + RESULT_TTL_MS).toISOString(),
        });
        // Its replay ended after all, between the read and the write: that answer stands.
        if (!written) continue;
        await audit.record(system(row.owner_id), {
          action: 'approval.interrupted',
          outcome: 'failure',
          targetType: 'approval',
          targetId: row.id,
          details: { actionClass: row.action_class, tokenId: row.token_id, method: row.method, path: row.url, replayStartedAt: row.replay_started_at, retried: false },
        });
      }
      await repo.dropOldResults(now.toISOString());
    },
  };
}

export type ApprovalsService = ReturnType<typeof createApprovalsService>;
