import type { Executor } from '../../storage/columns.js';
import { AppError, notFound } from '../../http/errors.js';
import { generateTokenSecret, hashToken, tokenHint } from '../../lib/crypto.js';
import { isoNow } from '../../lib/time.js';
import type { TokensTable } from './tokens.tables.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import { toTokenRecord, type IssuedToken } from './tokens.records.js';
import type { TokensRepo } from './tokens.repo.js';

export interface TokenRotationDeps {
  repo: Pick<TokensRepo, 'getMaster' | 'update'>;
  audit: Pick<AuditService, 'record'>;
  /** The old secret is refused from the very next request. */
  forget(tokenId: string): void;
  requireToken(ownerId: string, id: string): Promise<TokensTable>;
}

/** New secrets for existing tokens: API and agent tokens, and the master token after its proof. */
export function createTokenRotation(deps: TokenRotationDeps) {
  const { repo, audit, forget } = deps;

  async function rotateSecret(ownerId: string, row: TokensTable, actor: AuditActor, action: string): Promise<IssuedToken> {
    if (row.revoked_at) throw new AppError('CONFLICT', `Token ${row.id} is revoked; create a new one instead`);
    const secret = generateTokenSecret(row.kind);
    const updated = await repo.update(ownerId, row.id, {
      secret_hash: hashToken(secret),
      hint: tokenHint(secret),
      updated_at: isoNow(),
    });
    forget(row.id);
    await audit.record(actor, { action, outcome: 'success', targetType: 'token', targetId: row.id });
    return { record: toTokenRecord(updated!), secret };
  }

  return {
    /** A new secret for an API token; the master token is replaced through MasterTokenReplacer only. */
    async regenerate(ownerId: string, id: string, actor: AuditActor): Promise<IssuedToken> {
      const row = await deps.requireToken(ownerId, id);
      if (row.kind === 'master') throw new AppError('CONFLICT', 'The master token is replaced with POST /api/v1/tokens/master/regenerate');
      if (row.kind === 'session') throw new AppError('CONFLICT', 'A login session cannot be regenerated; log in again');
      if (row.kind === 'oauth') throw new AppError('CONFLICT', 'An OAuth token is renewed by its client with its refresh token; revoke it to end the grant');
      return rotateSecret(ownerId, row, actor, 'token.regenerate');
    },

    /**
     * The next access token of an OAuth grant: a new secret and expiry on the same token, so the
     * grant stays one entry in the owner's list. The old secret is refused from the next request.
     */
    async renewForClient(ownerId: string, id: string, expiresAt: string, trx: Executor): Promise<IssuedToken | undefined> {
      const secret = generateTokenSecret('oauth');
      const updated = await repo.update(ownerId, id, { secret_hash: hashToken(secret), hint: tokenHint(secret), expires_at: expiresAt, updated_at: isoNow() }, trx);
      forget(id);
      return updated ? { record: toTokenRecord(updated), secret } : undefined;
    },

    /**
     * A new secret for the master token. Only for a caller that has checked the proof
     * (the accounts service's regenerateMaster): the master token alone reveals vault secrets.
     */
    async rotateMaster(ownerId: string, actor: AuditActor): Promise<IssuedToken> {
      const row = await repo.getMaster(ownerId);
      if (!row) throw notFound('Master token of user', ownerId);
      return rotateSecret(ownerId, row, actor, 'token.master_regenerate');
    },
  };
}
