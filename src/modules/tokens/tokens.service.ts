import type { Static } from '@sinclair/typebox';
import type { TokensTable } from './tokens.tables.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import type { EventsBus } from '../events/events.bus.js';
import { createTokenAuthentication, type TokenAuthenticationDeps } from './tokens.auth.js';
import { createTokenIssuing } from './tokens.issue.js';
import { createTokenManagement } from './tokens.manage.js';
import type { IssuedToken } from './tokens.records.js';
import type { TokensRepo } from './tokens.repo.js';
import { createTokenRotation } from './tokens.rotation.js';
import type { MasterProofBody } from './tokens.schemas.js';

export { toTokenRecord, type IssuedToken, type TokenRecord } from './tokens.records.js';

/** Who asks to replace the master token, and the password a login session must confirm. */
export type MasterProof = Static<typeof MasterProofBody> & { callerKind: TokensTable['kind'] };

/**
 * Replaces the master token once the caller has proved who they are: the master token itself,
 * or a login session with the account password. The accounts service does it, since it checks
 * passwords; the token routes call it for the master token and this service for the others.
 */
export interface MasterTokenReplacer {
  regenerateMaster(ownerId: string, actor: AuditActor, proof: MasterProof): Promise<IssuedToken>;
}

export interface TokensServiceOptions {
  repo: TokensRepo;
  audit: Pick<AuditService, 'record'>;
  sessionTtlMs: number;
  cacheTokens: TokenAuthenticationDeps['cacheTokens'];
  writes?: TokenAuthenticationDeps['writes'];
  /** Told when API tokens are made and tokens revoked. */
  events?: Pick<EventsBus, 'publish'> | undefined;
}

/**
 * Bearer tokens, composed of their parts: authentication and its cache (tokens.auth.ts), making
 * tokens (tokens.issue.ts), the owner's management of them (tokens.manage.ts) and new secrets
 * (tokens.rotation.ts). Every change goes through `forget`, so a cached principal never outlives it.
 */
export function createTokensService(deps: TokensServiceOptions) {
  const { repo, audit } = deps;
  const auth = createTokenAuthentication({ repo, cacheTokens: deps.cacheTokens, writes: deps.writes });
  const issuing = createTokenIssuing({ repo, audit, sessionTtlMs: deps.sessionTtlMs, events: deps.events });
  const management = createTokenManagement({ repo, audit, forget: auth.forget, events: deps.events });
  const rotation = createTokenRotation({ repo, audit, forget: auth.forget, requireToken: management.requireToken });

  return {
    authenticate: auth.authenticate,
    authenticateRequest: auth.authenticateRequest,
    authenticateNow: auth.authenticateNow,
    createMaster: issuing.createMaster,
    createSession: issuing.createSession,
    mintForHandshake: issuing.mintForHandshake,
    saveForHandshake: issuing.saveForHandshake,
    createForClient: issuing.createForClient,
    renewForClient: rotation.renewForClient,
    create: issuing.create,
    list: management.list,
    get: management.get,
    livePrincipal: management.livePrincipal,
    update: management.update,
    revoke: management.revoke,
    regenerate: rotation.regenerate,
    rotateMaster: rotation.rotateMaster,
    /** Drops cached principals after a change made outside this service (e.g. a role change). */
    forget: auth.forget,
    /** Drops every cached principal of an account, after a change to the account (it was disabled or deleted). */
    forgetOwner: auth.forgetOwner,
  };
}

export type TokensService = ReturnType<typeof createTokensService>;
