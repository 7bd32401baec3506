/**
 * Deleting an account at its owner's request: every row of the account in every table, its
 * vault keys, its export archives on disk and what this process keeps of it in memory, for good
 * (docs/decisions/tokens-and-accounts.md, "Deleting an account").
 */
import { AppError, InputError, notFound } from '../../http/errors.js';
import type { Executor } from '../../storage/columns.js';
import type { AccountsService } from '../accounts/accounts.service.js';
import type { AuditActor } from '../audit/audit.service.js';
import type { Keyring } from '../keyring/keyring.service.js';
import type { MarketplaceService } from '../marketplace/marketplace.service.js';
import type { MemoryService } from '../memory/memory.service.js';
import type { OAuthService } from '../oauth/oauth.service.js';
import type { PortabilityService } from '../portability/portability.service.js';
import type { TokensService } from '../tokens/tokens.service.js';
import type { ErasureRepo } from './erasure.repo.js';
import type { ErasureTables } from './erasure.tables.js';
import type { AccountDeleted } from './erasure.schemas.js';

export interface ErasureDeps {
  repo: ErasureRepo;
  accounts: Pick<AccountsService, 'getUser' | 'confirmPassword' | 'normaliseEmail'>;
  marketplace: Pick<MarketplaceService, 'forgetRatingsBy'>;
  portability: Pick<PortabilityService, 'exportIdsOf' | 'removeArchives'>;
  keyring: Pick<Keyring, 'forgetOwner'>;
  oauth: Pick<OAuthService, 'connections' | 'disconnect'>;
  /** Its cache of authenticated tokens, which must not answer for the account's tokens once they are gone. */
  tokens: Pick<TokensService, 'forgetOwner'>;
  /** What memory keeps of the account's entries in the process (SQLite's text keys), let go once its rows are gone. */
  memory: Pick<MemoryService, 'writtenElsewhere'>;
}

export interface AccountErasure extends AccountDeleted {
  /** Rows deleted per table, for the operator's log line. */
  tables: Record<string, number>;
  role: 'admin' | 'user';
}

export function createErasureService(deps: ErasureDeps) {
  const { repo, accounts } = deps;

  /** The administrator stays while other accounts remain: somebody must be able to run the server for them. */
  async function refuseLastAdministrator(account: { id: string; role: 'admin' | 'user' }, trx?: Executor<ErasureTables>): Promise<void> {
    if (account.role !== 'admin') return;
    const others = await repo.otherAccounts(account.id, trx);
    if (others === 0) return;
    throw new AppError(
      'CONFLICT',
      `This is the administrator's account, and ${others} other account${others === 1 ? '' : 's'} remain${others === 1 ? 's' : ''} on this server: ` +
        'the administrator cannot leave them without one. Have their owners delete them (or hand the server over) first; then delete this account',
    );
  }

  /**
   * Disconnects the account's OAuth connections first, revoking each grant at its provider
   * (best effort): once the rows are gone, the tokens needed to revoke them are gone too.
   */
  async function disconnectProviders(ownerId: string, actor: AuditActor): Promise<AccountDeleted['providers']> {
    const result: AccountDeleted['providers'] = [];
    for (const connection of await deps.oauth.connections(ownerId)) {
      try {
        const outcome = await deps.oauth.disconnect(ownerId, connection.provider, actor);
        result.push({ provider: outcome.provider, revoked: outcome.revoked });
      } catch (error) {
        // Deleted with the account whatever happens here; the answer says it was not revoked.
        if (!(error instanceof AppError && error.code === 'NOT_FOUND')) result.push({ provider: connection.provider, revoked: false });
      }
    }
    return result;
  }

  return {
    /**
     * Deletes the caller's account: `confirmEmail` must be the account's email and `password` its
     * password (checked under the login attempt limits: a wrong one answers 401 as login does and
     * counts toward the same slowdown). The rows go in one transaction; the archives, the cached
     * keys and the provider grants are handled around it.
     */
    async deleteAccount(ownerId: string, input: { password: string; confirmEmail: string }, actor: AuditActor): Promise<AccountErasure> {
      const account = await accounts.getUser(ownerId);
      if (accounts.normaliseEmail(input.confirmEmail) !== account.email) {
        throw new InputError('confirmEmail', "must be the account's email", "To confirm, type the email this account signs in with as confirmEmail; nothing was deleted");
      }
      await refuseLastAdministrator(account);
      if (!(await accounts.confirmPassword(ownerId, input.password, { ...actor, ownerId }))) {
        throw new AppError('UNAUTHORIZED', 'The password is wrong; nothing was deleted');
      }
      const providers = await disconnectProviders(ownerId, { ...actor, ownerId });
      const exportIds = await deps.portability.exportIdsOf(ownerId);
      const references = await repo.references();
      const tables = await repo.transaction(async (trx) => {
        const current = await repo.account(ownerId, trx);
        if (!current) throw notFound('User', ownerId);
        // Again inside the transaction: an account may have been made since the first look.
        await refuseLastAdministrator(current, trx);
        await repo.mark(ownerId, trx);
        const ratings = await deps.marketplace.forgetRatingsBy(ownerId, trx);
        const counts = await repo.eraseRows(ownerId, references, trx);
        if (ratings > 0) counts.marketplace_ratings = (counts.marketplace_ratings ?? 0) + ratings;
        await repo.unmark(ownerId, trx);
        return counts;
      });
      // At once after the commit: this process's cache of the account's tokens (other nodes'
      // caches follow the write to the tokens table).
      deps.tokens.forgetOwner(ownerId);
      await repo.forgetCounters(account);
      const files = deps.portability.removeArchives(exportIds);
      deps.keyring.forgetOwner(ownerId);
      deps.memory.writtenElsewhere(ownerId);
      const rows = Object.values(tables).reduce((sum, n) => sum + n, 0);
      return { deleted: true, userId: ownerId, rows, files, providers, tables, role: account.role };
    },
  };
}

export type ErasureService = ReturnType<typeof createErasureService>;
