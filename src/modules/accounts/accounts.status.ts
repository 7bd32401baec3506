import { AppError, notFound } from '../../http/errors.js';
import { isoNow } from '../../lib/time.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import type { TokensService } from '../tokens/tokens.service.js';
import type { AccountsRepo } from './accounts.repo.js';
import type { UsersTable } from './accounts.tables.js';

/** What a disabled account's sign-in answers, once its password was right (a wrong one says nothing of it). */
export function accountDisabled(): AppError {
  return new AppError(
    'ACCOUNT_DISABLED',
    "The server's administrator disabled this account, so it cannot sign in and its tokens do not work. Ask the administrator to enable it again",
  );
}

export interface AccountStatusDeps {
  repo: Pick<AccountsRepo, 'findById' | 'update'>;
  tokens: Pick<TokensService, 'forgetOwner'>;
  audit: Pick<AuditService, 'record'>;
}

/**
 * Whether an account may act: the administrator disables one and enables it again. The refusals
 * themselves are where credentials are checked: the sign-in (accounts.service.ts) and the token
 * lookup (tokens.auth.ts), which reads the state in the query that finds the token.
 */
export function createAccountStatus(deps: AccountStatusDeps) {
  const { repo, tokens, audit } = deps;
  return {
    /**
     * Disables an account, or enables it again (the administrator's PUT /users/{id}/status).
     * Disabling keeps every token and session as it is, so enabling gives back exactly the access
     * the account had; meanwhile the authentication path refuses them, and the principals cached
     * for the account are dropped here at once. The administrator's own account cannot be
     * disabled: nobody would be left to enable it (nor any other). Answers the account as it is now.
     */
    async setDisabled(id: string, disabled: boolean, actor: AuditActor): Promise<UsersTable> {
      const row = await repo.findById(id);
      if (!row) throw notFound('User', id);
      if (disabled && (row.id === actor.ownerId || row.role === 'admin')) {
        const reason = row.id === actor.ownerId ? 'own account' : "the administrator's account";
        await audit.record(actor, { action: 'user.disable', outcome: 'denied', targetType: 'user', targetId: id, details: { reason } });
        throw new AppError(
          'CONFLICT',
          row.id === actor.ownerId
            ? 'You cannot disable your own account: you are the administrator, and nobody could enable it again'
            : "The administrator's account cannot be disabled: nobody could enable it again",
        );
      }
      const changed = (row.disabled_at !== null) !== disabled;
      const now = isoNow();
      const next = changed ? { disabled_at: disabled ? now : null, updated_at: now } : { disabled_at: row.disabled_at, updated_at: row.updated_at };
      if (changed) await repo.update(id, next);
      // After the write: a lookup that read the account before it may have cached its principal
      // (one still running is not kept, see tokens.auth.ts). Other nodes see the write to users.
      tokens.forgetOwner(id);
      await audit.record(actor, { action: disabled ? 'user.disable' : 'user.enable', outcome: 'success', targetType: 'user', targetId: id, details: { email: row.email, changed } });
      // The account's own log says it too, for its owner to read once enabled again.
      if (changed) {
        await audit.record({ ...actor, ownerId: id }, {
          action: disabled ? 'account.disabled' : 'account.enabled',
          outcome: 'success',
          targetType: 'user',
          targetId: id,
          details: { byAdministrator: true },
        });
      }
      return { ...row, ...next };
    },

    /** Whether the administrator disabled the account (false for one that does not exist). */
    async isDisabled(id: string): Promise<boolean> {
      return ((await repo.findById(id))?.disabled_at ?? null) !== null;
    },
  };
}
