import type { Config } from './config.js';
import { createOutboundClient } from './http/outbound.js';
import type { Storage } from './storage/storage.js';
import { API_VERSION } from './version.js';
import { createAccountsRepo } from './modules/accounts/accounts.repo.js';
import { createAccountsService } from './modules/accounts/accounts.service.js';
import { createAttachmentsRepo } from './modules/attachments/attachments.repo.js';
import { createAttachmentsService } from './modules/attachments/attachments.service.js';
import { createAuditRepo } from './modules/audit/audit.repo.js';
import { createAuditService } from './modules/audit/audit.service.js';
import { createDiscoveryService } from './modules/discovery/discovery.service.js';
import { endpointsSection, tokenSection, userSection } from './modules/gateway/gateway.sections.js';
import { createGatewayService } from './modules/gateway/gateway.service.js';
import { createHandshakesRepo } from './modules/handshakes/handshakes.repo.js';
import { createHandshakesService } from './modules/handshakes/handshakes.service.js';
import { createOwnerDocumentRepo } from './modules/identity/identity.repo.js';
import { createIdentityService } from './modules/identity/identity.service.js';
import { createKnowledgeRepo } from './modules/knowledge/knowledge.repo.js';
import { createKnowledgeService } from './modules/knowledge/knowledge.service.js';
import { createMemoryRepo } from './modules/memory/memory.repo.js';
import { createMemoryService } from './modules/memory/memory.service.js';
import { createPersonasRepo } from './modules/personas/personas.repo.js';
import { createPersonasService } from './modules/personas/personas.service.js';
import { createSkillsService } from './modules/skills/skills.service.js';
import { createTokensRepo } from './modules/tokens/tokens.repo.js';
import { createTokensService } from './modules/tokens/tokens.service.js';
import { createIdentityContextSection, createPreferencesContextSection } from './modules/identity/identity.context.js';
import { createKnowledgeContextSection } from './modules/knowledge/knowledge.context.js';
import { createMemoryContextSection } from './modules/memory/memory.context.js';
import { createPersonaContextSection } from './modules/personas/personas.context.js';
import { createSkillsContextSection } from './modules/skills/skills.context.js';

/**
 * Builds every module's repository and service, in dependency order. Each module receives
 * only the services it calls; no module reaches into another's repository.
 */
export function createServices(config: Config, storage: Storage) {
  const { db } = storage;
  // Every call to the outside world goes through this one guarded client.
  const outbound = createOutboundClient({
    allowPrivateNetwork: config.allowPrivateNetwork,
    // The operator configured these; a self-hosted model on localhost is expected.
    trustedOrigins: config.llm.baseUrl ? [config.llm.baseUrl] : [],
    timeoutMs: config.outboundTimeoutMs,
    maxResponseBytes: config.outboundMaxBytes,
    userAgent: `Hearth/${API_VERSION}`,
  });
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
  const discovery = createDiscoveryService({ publicBaseUrl: config.publicBaseUrl, version: API_VERSION });
  const attachments = createAttachmentsService({ repo: createAttachmentsRepo(db) });
  const skills = createSkillsService({ db, dialect: storage.dialect, attachments, writes: storage.writes });
  const personas = createPersonasService({ db, repo: createPersonasRepo(db) });
  const identity = createIdentityService({
    db,
    identityRepo: createOwnerDocumentRepo(db, storage.dialect, 'identity'),
    preferencesRepo: createOwnerDocumentRepo(db, storage.dialect, 'preferences'),
    accounts,
  });
  const memory = createMemoryService({ repo: createMemoryRepo(db, storage.dialect) });
  const knowledge = createKnowledgeService({ repo: createKnowledgeRepo(db, storage.dialect) });
  // What an agent sees first: each module contributes its part; each part shows only to the scopes that may read it.
  const gateway = createGatewayService({
    sections: [
      userSection(accounts),
      tokenSection(),
      endpointsSection(discovery),
      createPersonaContextSection(personas, attachments),
      createIdentityContextSection(identity),
      createPreferencesContextSection(identity),
      createMemoryContextSection(memory),
      createSkillsContextSection(skills),
      createKnowledgeContextSection(knowledge),
    ],
    writes: storage.writes,
  });
  const handshakes = createHandshakesService({
    db,
    repo: createHandshakesRepo(db),
    accounts,
    tokens,
    audit,
    ttlMs: config.handshakeTtlMs,
  });
  return { outbound, audit, tokens, accounts, discovery, gateway, handshakes, attachments, personas, identity, memory, skills, knowledge };
}

export type Services = ReturnType<typeof createServices>;
