import type { Config } from './config.js';
import type { Storage } from './storage/storage.js';
import { createAccountsRepo } from './modules/accounts/accounts.repo.js';
import { createAccountsService } from './modules/accounts/accounts.service.js';
import { createAuditRepo } from './modules/audit/audit.repo.js';
import { createAuditService } from './modules/audit/audit.service.js';
import { createTokensRepo } from './modules/tokens/tokens.repo.js';
import { createTokensService } from './modules/tokens/tokens.service.js';

/**
 * Builds every module's repository and service, in dependency order. Each module receives
 * only the services it calls; no module reaches into another's repository.
 */
export function createServices(config: Config, storage: Storage) {
  const { db } = storage;
  const audit = createAuditService({ repo: createAuditRepo(db) });
  const tokens = createTokensService({
    repo: createTokensRepo(db),
    audit,
    sessionTtlMs: config.sessionTtlMs,
    cacheTokens: storage.dialect === 'sqlite',
  });
  const accounts = createAccountsService({
    db,
    repo: createAccountsRepo(db),
    tokens,
    audit,
    registration: config.registration,
    passwordHashCost: config.passwordHashCost,
  });
  return { audit, tokens, accounts };
}

export type Services = ReturnType<typeof createServices>;
