import type { FastifyRequest } from 'fastify';
import { newId } from '../../lib/ids.js';
import { isoNow } from '../../lib/time.js';
import type { Executor } from '../../storage/columns.js';
import type { AuditLogTable } from './audit.tables.js';
import { detailsOf, type AuditQuery, type AuditRepo } from './audit.repo.js';
import type { AuditEntry } from './audit.schemas.js';

/** Who did it and from where; taken from the request. Never holds a secret. */
export interface AuditActor {
  ownerId: string | null;
  tokenId: string | null;
  ip: string | null;
  userAgent: string | null;
}

export interface AuditEvent {
  action: string;
  outcome: AuditLogTable['outcome'];
  targetType?: string;
  targetId?: string;
  /** Non-secret facts about the event (names, scopes, paths). */
  details?: Record<string, unknown>;
}

export function actorOf(request: FastifyRequest, ownerId?: string | null): AuditActor {
  const userAgent = request.headers['user-agent'];
  return {
    ownerId: ownerId ?? request.principal?.ownerId ?? null,
    tokenId: request.principal?.tokenId ?? null,
    ip: request.ip ?? null,
    userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 500) : null,
  };
}

function toEntry(row: AuditLogTable): AuditEntry {
  return {
    id: row.id,
    action: row.action,
    outcome: row.outcome,
    tokenId: row.token_id,
    ip: row.ip,
    userAgent: row.user_agent,
    targetType: row.target_type,
    targetId: row.target_id,
    details: detailsOf(row),
    createdAt: row.created_at,
  };
}

export function createAuditService(deps: { repo: AuditRepo }) {
  return {
    /** Appends one event. Pass the transaction when the event must commit with the change it records. */
    async record(actor: AuditActor, event: AuditEvent, trx?: Executor): Promise<void> {
      await deps.repo.insert(
        {
          id: newId('aud'),
          owner_id: actor.ownerId,
          action: event.action,
          outcome: event.outcome,
          token_id: actor.tokenId,
          ip: actor.ip,
          user_agent: actor.userAgent,
          target_type: event.targetType ?? null,
          target_id: event.targetId ?? null,
          details: event.details ? JSON.stringify(event.details) : null,
          created_at: isoNow(),
        },
        trx,
      );
    },

    async list(ownerId: string, query: AuditQuery): Promise<{ entries: AuditEntry[]; nextCursor: string | null }> {
      const rows = await deps.repo.list(ownerId, { ...query, limit: query.limit + 1 });
      const page = rows.slice(0, query.limit);
      return {
        entries: page.map(toEntry),
        nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null,
      };
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
