import { sql } from 'kysely';
import type { Config } from './config.js';
import { createOutboundClient } from './http/outbound.js';
import { createLifecycle, type PartLog } from './lib/lifecycle.js';
import type { Storage } from './storage/storage.js';
import { createLocalCounters, createPgCounters } from './storage/shared-counters.js';
import { API_VERSION } from './version.js';
import { createAccountsRepo } from './modules/accounts/accounts.repo.js';
import { createPasswordAttemptLimiter } from './modules/accounts/accounts.attempts.js';
import { createAccountsService } from './modules/accounts/accounts.service.js';
import { createPasswordResetsRepo } from './modules/accounts/accounts.resets.repo.js';
import { createPasswordResets } from './modules/accounts/accounts.resets.js';
import { createUserContextSection } from './modules/accounts/accounts.context.js';
import { createAttachmentsRepo } from './modules/attachments/attachments.repo.js';
import { createAttachmentsService } from './modules/attachments/attachments.service.js';
import { createAfpRepo } from './modules/afp/afp.repo.js';
import { createDaemonDownloads } from './modules/afp/afp.downloads.js';
import { createClusterRelay } from './modules/afp/afp.cluster-relay.js';
import { createInProcessRelay, presenceEvents, type DeviceLinkHost, type DeviceRelay } from './modules/afp/afp.relay.js';
import { createAfpService, EXEC_HARD_LIMIT_MS } from './modules/afp/afp.service.js';
import { createApprovalsSweep } from './modules/approvals/approvals.jobs.js';
import { createApprovalsRepo } from './modules/approvals/approvals.repo.js';
import { createApprovalsService, replayLeaseMs } from './modules/approvals/approvals.service.js';
import { createBackupSchedule } from './modules/backups/backups.schedule.js';
import { createAuditRepo } from './modules/audit/audit.repo.js';
import { createAuditService } from './modules/audit/audit.service.js';
import { createLlmClient } from './modules/chat/chat.llm.js';
import { createChatRepo } from './modules/chat/chat.repo.js';
import { createChatService } from './modules/chat/chat.service.js';
import { createLimitsService } from './modules/billing/billing.limits.js';
import { createBillingRepo } from './modules/billing/billing.repo.js';
import { createBillingService } from './modules/billing/billing.service.js';
import { createEventsBus } from './modules/events/events.bus.js';
import { createOutboxRelay, createOutboxWriter } from './modules/events/events.outbox.js';
import { createChangeBus } from './modules/events/events.changes.js';
import { createEndpointsContextSection } from './modules/discovery/discovery.context.js';
import { createHealthService } from './modules/discovery/discovery.health.js';
import { createDiscoveryService } from './modules/discovery/discovery.service.js';
import { createGatewayService } from './modules/gateway/gateway.service.js';
import { createClientDirectory } from './modules/authorization/authorization.clients.js';
import { createAuthorizationRepo } from './modules/authorization/authorization.repo.js';
import { createAuthorizationServer } from './modules/authorization/authorization.service.js';
import { createHandshakesRepo } from './modules/handshakes/handshakes.repo.js';
import { createHandshakesService } from './modules/handshakes/handshakes.service.js';
import { createOwnerDocumentRepo } from './modules/identity/identity.repo.js';
import { createIdentityService } from './modules/identity/identity.service.js';
import { createKnowledgeRepo } from './modules/knowledge/knowledge.repo.js';
import { createKnowledgeService } from './modules/knowledge/knowledge.service.js';
import { createKnowledgeSearchProvider, knowledgeSearchSource } from './modules/knowledge/knowledge.search.js';
import { createMemoryRepo } from './modules/memory/memory.repo.js';
import { createMemoryService } from './modules/memory/memory.service.js';
import { createMemoryImportService } from './modules/memory-import/memory-import.service.js';
import { createMcpHub } from './modules/mcp/mcp.hub.js';
import { createParsingPool } from './modules/parsing/parsing.pool.js';
import { createEmbeddingsService } from './modules/embeddings/embeddings.service.js';
import { createMemorySearchProvider, memorySearchSource } from './modules/memory/memory.search.js';
import type { SearchProvider } from './modules/search/search.provider.js';
import { createSearchIndexer } from './modules/search/search.indexer.js';
import { createFusion, meaningFloorFor, type Fusion } from './modules/search/search.fusion.js';
import { createSearchRepo } from './modules/search/search.repo.js';
import { createVectorCache } from './storage/search/vectors.js';
import { createSkillsSearchProvider, skillsSearchSource } from './modules/skills/skills.search.js';
import { createPersonasRepo } from './modules/personas/personas.repo.js';
import { createPersonasService } from './modules/personas/personas.service.js';
import { createPlansService, loadPlans } from './modules/plans/plans.service.js';
import { createSkillsService } from './modules/skills/skills.service.js';
import { createMarketplaceRepo } from './modules/marketplace/marketplace.repo.js';
import { createMarketplaceService } from './modules/marketplace/marketplace.service.js';
import { createGoogleService } from './modules/google/google.service.js';
import { createProviderRegistry } from './modules/oauth/oauth.providers.js';
import { createOAuthRepo } from './modules/oauth/oauth.repo.js';
import { createOAuthService } from './modules/oauth/oauth.service.js';
import { createConnectorsContextSection } from './modules/connectors/connectors.context.js';
import { createConnectorsRepo } from './modules/connectors/connectors.repo.js';
import { createConnectorsService } from './modules/connectors/connectors.service.js';
import { loadCatalogue, reservedServiceNames } from './modules/integrations/integrations.catalogue.js';
import { createIntegrationsService } from './modules/integrations/integrations.service.js';
import { createTokensRepo } from './modules/tokens/tokens.repo.js';
import { createTokensService } from './modules/tokens/tokens.service.js';
import { createTokenContextSection } from './modules/tokens/tokens.context.js';
import { createServicesContextSection } from './modules/oauth/oauth.context.js';
import { recordOf } from './modules/keyring/keyring.crypto.js';
import { createKeyring } from './modules/keyring/keyring.service.js';
import type { RootKeys } from './modules/keyring/keyring.watch.js';
import { createApiDiscovery } from './modules/vault/vault.discovery.js';
import { createVaultRepo } from './modules/vault/vault.repo.js';
import { createVaultService } from './modules/vault/vault.service.js';
import { createIdentityContextSection, createPreferencesContextSection } from './modules/identity/identity.context.js';
import { createKnowledgeContextSection } from './modules/knowledge/knowledge.context.js';
import { createMemoryContextSection } from './modules/memory/memory.context.js';
import { createWebhookDeliverer } from './modules/webhooks/webhooks.deliverer.js';
import { createWebhookParts } from './modules/webhooks/webhooks.jobs.js';
import { createWebhooksRepo } from './modules/webhooks/webhooks.repo.js';
import { createWebhooksService, secretContext as webhookSecretContext } from './modules/webhooks/webhooks.service.js';
import { createPortabilityService } from './modules/portability/portability.service.js';
import type { CarriedDeclarations } from './modules/portability/portability.format.js';
import { afpTables } from './modules/afp/afp.tables.js';
import { attachmentsTables } from './modules/attachments/attachments.tables.js';
import { auditTables } from './modules/audit/audit.tables.js';
import { chatTables } from './modules/chat/chat.tables.js';
import { connectorsTables } from './modules/connectors/connectors.tables.js';
import { identityTables } from './modules/identity/identity.tables.js';
import { knowledgeTables } from './modules/knowledge/knowledge.tables.js';
import { memoryTables } from './modules/memory/memory.tables.js';
import { oauthTables } from './modules/oauth/oauth.tables.js';
import { personasTables } from './modules/personas/personas.tables.js';
import { skillsTables } from './modules/skills/skills.tables.js';
import { tokensTables } from './modules/tokens/tokens.tables.js';
import { vaultTables } from './modules/vault/vault.tables.js';
import { webhooksTables } from './modules/webhooks/webhooks.tables.js';
import { createErasureRepo } from './modules/erasure/erasure.repo.js';
import { createErasureService, type ErasureDeps } from './modules/erasure/erasure.service.js';
import { createPersonaContextSection } from './modules/personas/personas.context.js';
import { createSkillsContextSection } from './modules/skills/skills.context.js';

export interface ContainerOptions {
  /** The vault's root keys, when the caller already read them for storage (one object, one file watch). */
  rootKeys?: RootKeys | undefined;
}

type Parts = ReturnType<typeof createLifecycle>;

/**
 * What every builder below is given: the settings, the storage, and the one registry of parts,
 * which each builder adds its own parts to as it builds them, so the registry keeps the order of
 * construction.
 */
interface Base {
  config: Config;
  storage: Storage;
  parts: Parts;
}

/** The items that get search vectors: memory entries, skills and knowledge passages. */
const SEARCH_SOURCES = [memorySearchSource, skillsSearchSource, knowledgeSearchSource];

/**
 * Search by meaning: the fusion of the words' ranking with the nearest stored vectors (handed
 * to the modules that search), and the background indexer that computes the vectors, registered
 * as a part that stops. A vector the indexer stores makes the owner's loaded vectors stale.
 */
function addSearchByMeaning(config: Config, parts: Parts, storage: Storage, embeddings: ReturnType<typeof createEmbeddingsService>) {
  const repo = createSearchRepo(storage.db);
  const fusion = createFusion({
    embeddings,
    repo,
    sources: SEARCH_SOURCES,
    cache: createVectorCache({ capacityBytes: config.searchVectorCacheMb * 1024 * 1024 }),
    writes: storage.writes,
    settings: {
      meaningMin: config.searchMeaningMin ?? meaningFloorFor(config.embeddings.kind).meaningMin,
      meaningMargin: config.searchMeaningMargin ?? meaningFloorFor(config.embeddings.kind).meaningMargin,
    },
    log: console,
  });
  const indexer = createSearchIndexer({
    repo,
    sources: SEARCH_SOURCES,
    embeddings,
    nodeId: storage.bus.nodeId,
    writes: storage.writes,
    log: console,
    onStored: (owners) => fusion.invalidate(owners),
  });
  parts.add({ name: 'search indexer', stop: () => indexer.stop() });
  return { fusion, indexer };
}

/**
 * What the modules call through rather than call: the shared rate counters, the guarded outbound
 * clients, the embedder with its background indexer, and the parsing workers. Built before any
 * module, so that they stop after every module that uses them.
 */
function buildPlumbing({ config, storage, parts }: Base) {
  const { db } = storage;
  // Rate limits and quotas: counted across the nodes of the database with PostgreSQL, in this
  // process with SQLite (one process per data directory).
  const counters =
    storage.dialect === 'postgres'
      ? createPgCounters(db, {
          onError: (error) => console.error(`Rate-limit counters could not be sent to PostgreSQL (kept, sent again at the next flush): ${(error as Error).message}`),
          after: storage.ready,
        })
      : createLocalCounters();
  parts.add({ name: 'rate-limit counters', stop: () => counters.close() });
  // Every call to the outside world goes through this guarded client, which trusts no origin:
  // whatever a caller names (a connector, a discovered site, a redirect) passes the address rule.
  const outbound = createOutboundClient({
    allowPrivateNetwork: config.allowPrivateNetwork,
    timeoutMs: config.outboundTimeoutMs,
    maxResponseBytes: config.outboundMaxBytes,
    userAgent: `Hearth/${API_VERSION}`,
  });
  // The chat's language model only: the one origin the operator configured (a self-hosted model
  // on localhost is expected) is exempt here and nowhere else; other private addresses are still
  // refused, and the LLM client follows no redirects.
  const llmOutbound = config.llm.baseUrl
    ? createOutboundClient({
        allowPrivateNetwork: config.allowPrivateNetwork,
        trustedOrigins: [config.llm.baseUrl],
        timeoutMs: config.outboundTimeoutMs,
        maxResponseBytes: config.outboundMaxBytes,
        userAgent: `Hearth/${API_VERSION}`,
      })
    : undefined;
  parts.add({ name: 'outbound client', stop: () => outbound.close() });
  if (llmOutbound) parts.add({ name: 'language-model client', stop: () => llmOutbound.close() });
  // Search vectors. The embeddings endpoint the operator configured is trusted as the chat
  // model's is (Ollama on localhost), by this client only; the built-in worker starts on first need.
  const embeddingsOutbound =
    config.embeddings.kind === 'openai' && config.embeddings.baseUrl
      ? createOutboundClient({ allowPrivateNetwork: config.allowPrivateNetwork, trustedOrigins: [config.embeddings.baseUrl], timeoutMs: config.embeddings.timeoutMs, maxResponseBytes: config.outboundMaxBytes, userAgent: `Hearth/${API_VERSION}` })
      : undefined;
  if (embeddingsOutbound) parts.add({ name: 'embeddings client', stop: () => embeddingsOutbound.close() });
  const embeddings = createEmbeddingsService({ settings: config.embeddings, outbound: embeddingsOutbound });
  parts.add({ name: 'embedder', stop: () => embeddings.close() });
  // Vectors of memory entries and skills, computed in the background after writes (each entry
  // once across nodes), and the fusion that ranks by them. The indexer is a part that only stops
  // here (before the embedder and storage it uses): the server starts it once it listens
  // (main.ts), so that an app built for a test starts no encoder.
  const { fusion: searchFusion, indexer: searchIndexer } = addSearchByMeaning(config, parts, storage, embeddings);
  // Untrusted files and documents (uploads, discovered OpenAPI YAML) are parsed in bounded workers.
  const parsing = createParsingPool(config.extract);
  parts.add({ name: 'parsing workers', stop: () => parsing.close() });
  return { counters, outbound, llmOutbound, embeddings, searchIndexer, searchFusion, parsing };
}
type Plumbing = ReturnType<typeof buildPlumbing>;

/**
 * The audit log and the keyring, which every module that records or seals something is handed;
 * the keyring reports a secret that fails its check to the audit log, so the log comes first.
 */
function buildAuditAndKeys({ config, storage }: Base, rootKeys: RootKeys | undefined) {
  const { db } = storage;
  const audit = createAuditService({ repo: createAuditRepo(db) });
  // Envelope encryption of every stored secret (vault tokens, OAuth tokens): seal/open. A value
  // that fails its integrity check on opening is recorded in its owner's audit log as tampering.
  const keyring = createKeyring({
    db,
    dataDir: config.dataDir,
    vaultKey: config.vaultKey,
    previousKeys: config.vaultPreviousKeys,
    rootKeys,
    onTampered: ({ ownerId, context, reason }) => {
      const record = recordOf(context);
      return audit.record(
        { ownerId, tokenId: null, ip: null, userAgent: null },
        { action: 'secret.tampered', outcome: 'failure', targetType: record.type, targetId: record.id, details: { record: context, reason } },
      );
    },
  });
  return { audit, keyring };
}
type AuditAndKeys = ReturnType<typeof buildAuditAndKeys>;

/** The two buses the modules speak on, built before them so that they stop after them. */
function buildBuses({ storage, parts }: Base) {
  // What happens in an owner's account, to the console's live streams on every node (through
  // the cluster bus) and to the webhooks of the node where it happened.
  const events = createEventsBus({ cluster: storage.bus });
  parts.add({ name: 'events', stop: () => events.close() });
  // And what the command line published (events.outbox.ts), as this node's own.
  parts.add(createOutboxRelay({ db: storage.db, events, writes: storage.writes }));
  // What changed in an owner's skills, personas and knowledge base, said by their services, to
  // whoever keeps something derived from them (MCP sessions) on every node.
  const changes = createChangeBus({ cluster: storage.bus });
  parts.add({ name: 'changes', stop: () => changes.close() });
  return { events, changes };
}
type Buses = ReturnType<typeof buildBuses>;

/**
 * Who may call: plans, tokens and accounts, the plan limits that follow an account's plan, and
 * the vault of the owner's third-party tokens, whose count those limits bound.
 */
function buildAccounts(
  { config, storage }: Base,
  { counters, outbound, parsing, audit, keyring, events }: Pick<Plumbing & AuditAndKeys & Buses, 'counters' | 'outbound' | 'parsing' | 'audit' | 'keyring' | 'events'>,
) {
  const { db } = storage;
  // The plans come from PLANS_FILE or the built-in list, checked here at start.
  const plans = createPlansService(loadPlans(config.plansFile));
  const tokens = createTokensService({
    repo: createTokensRepo(db),
    audit,
    sessionTtlMs: config.sessionTtlMs,
    cacheTokens: true,
    // Other processes may change tokens (other nodes on PostgreSQL, through the shared write feed;
    // `hearth reset-password` ending sessions, on either engine): cached principals follow the tracker.
    writes: storage.writes,
    events,
  });
  const accountsRepo = createAccountsRepo(db);
  const accounts = createAccountsService({
    db,
    repo: accountsRepo,
    tokens,
    audit,
    registration: config.registration,
    passwordHashCost: config.passwordHashCost,
    // Every password check, on every route, is counted here, per process like the other limits.
    attempts: createPasswordAttemptLimiter({ perAddressPerMinute: config.authRateLimitPerMinute, counters }),
    plans,
    events,
  });
  // The way back from a forgotten password: links made on the server's command line, spent here.
  const passwordResets = createPasswordResets({ repo: createPasswordResetsRepo(db), users: accountsRepo, accounts, audit, publicBaseUrl: config.publicBaseUrl });
  // Plan limits, checked where records are created; off (no work at all) unless config.planLimits.
  const limits = createLimitsService({ enabled: config.planLimits, plans, accounts, counters });
  // Stored third-party tokens (sealed by the keyring) and API discovery of their websites.
  const vault = createVaultService({
    db,
    repo: createVaultRepo(db),
    keyring,
    audit,
    apiDiscovery: createApiDiscovery({ outbound, parsing, timeoutMs: Math.min(config.outboundTimeoutMs, 10_000) }),
    // The plan's vaultTokens limit.
    ...(config.planLimits
      ? { checkLimit: (ownerId: string, _resource: 'vault_tokens', count: number) => limits.assertCanAdd(ownerId, 'vaultTokens', 1, async () => count) }
      : {}),
  });
  return { plans, tokens, accounts, passwordResets, limits, vault };
}
type AccountServices = ReturnType<typeof buildAccounts>;

/** What this server says about itself: its API's description, and its health and its database's. */
function describeServer({ config, storage }: Base) {
  const discovery = createDiscoveryService({ publicBaseUrl: config.publicBaseUrl, version: API_VERSION });
  // This node's state (serving, draining) and its database's, for GET /api/v1/health.
  const health = createHealthService({ nodeId: storage.bus.nodeId, engine: storage.dialect, ping: () => sql`select 1`.execute(storage.db) });
  return { discovery, health };
}
type ServerInfo = ReturnType<typeof describeServer>;

/**
 * The owner's own records: skills, personas and the attachments between them and documents,
 * identity and preferences, memory and the knowledge base. The gateway, the marketplace and the
 * chat read them, so they come before those.
 */
function buildOwnerData(
  { config, storage }: Base,
  { parsing, searchFusion, changes, accounts, limits }: Pick<Plumbing & Buses & AccountServices, 'parsing' | 'searchFusion' | 'changes' | 'accounts' | 'limits'>,
) {
  const { db } = storage;
  const attachments = createAttachmentsService({ repo: createAttachmentsRepo(db), changes });
  const skills = createSkillsService({
    db,
    dialect: storage.dialect,
    attachments,
    groupCommit: storage.groupCommit,
    writes: storage.writes,
    searchIndexPercent: config.searchIndexPercent,
    changes,
  });
  const personas = createPersonasService({ db, repo: createPersonasRepo(db), changes });
  const identity = createIdentityService({
    db,
    identityRepo: createOwnerDocumentRepo(db, storage.dialect, 'identity'),
    preferencesRepo: createOwnerDocumentRepo(db, storage.dialect, 'preferences'),
    accounts,
  });
  const memory = createMemoryService({
    repo: createMemoryRepo(db, storage.dialect, storage.groupCommit, storage.writes, config.searchIndexPercent),
    limits,
    writes: storage.writes,
    fusion: searchFusion,
    duplicateCosine: config.memoryDuplicateCosine,
  });
  const knowledge = createKnowledgeService({
    repo: createKnowledgeRepo(db, storage.dialect, storage.groupCommit, storage.writes, config.searchIndexPercent),
    limits,
    parsing,
    changes,
    fusion: searchFusion,
  });
  // The knowledge base's part of the one search for agents.
  const knowledgeSearch = createKnowledgeSearchProvider(knowledge);
  return { attachments, skills, personas, identity, memory, knowledge, knowledgeSearch };
}
type OwnerData = ReturnType<typeof buildOwnerData>;

/**
 * What the one search for agents (`GET /api/v1/search`, the MCP `search` tool) searches: each
 * module's provider, ranking its items by words and handing them to `fusion`, which adds meaning
 * where an embedder serves (words only otherwise).
 */
function buildSearchProviders({ memory, skills, knowledgeSearch }: Pick<OwnerData, 'memory' | 'skills' | 'knowledgeSearch'>, fusion: Fusion): SearchProvider[] {
  return [createMemorySearchProvider(memory, fusion), knowledgeSearch, createSkillsSearchProvider(skills, fusion)];
}

/**
 * The services an owner's agents call out to: OAuth connections and Google on top of them, the
 * owner's connectors over the vault, and the integrations that put the catalogue, connectors,
 * vault and OAuth behind one name per service.
 */
function buildIntegrations(
  { config, storage }: Base,
  { outbound, audit, keyring, events, accounts, vault }: Pick<Plumbing & AuditAndKeys & Buses & AccountServices, 'outbound' | 'audit' | 'keyring' | 'events' | 'accounts' | 'vault'>,
) {
  const { db } = storage;
  // OAuth connections (Google): tokens sealed by the keyring, refreshed once per connection.
  const oauth = createOAuthService({
    repo: createOAuthRepo(db),
    providers: createProviderRegistry(config),
    keyring,
    outbound,
    audit,
    publicBaseUrl: config.publicBaseUrl,
    owners: {
      emailOf: async (ownerId) => (await accounts.getUser(ownerId)).email,
      confirmPassword: accounts.confirmPassword,
    },
    // A refresh's claim outlasts its provider call, which the outbound timeout bounds.
    refreshLeaseMs: config.outboundTimeoutMs + 30_000,
    events,
  });
  // Gmail and Google Drive of the connected account.
  const google = createGoogleService({ oauth, outbound, google: config.google });
  // Every callable service: the built-in catalogue (checked here at start), the owner's connectors and discovered APIs.
  const serviceCatalogue = loadCatalogue();
  const connectors = createConnectorsService({
    repo: createConnectorsRepo(db),
    vault,
    audit,
    reservedNames: reservedServiceNames(serviceCatalogue),
    // A login session binding a vault secret off its site confirms the account password.
    confirmPassword: accounts.confirmPassword,
  });
  const integrations = createIntegrationsService({
    catalogue: serviceCatalogue,
    outbound,
    connectors,
    vault,
    oauth,
    audit,
    providerOrigins: { google: config.google.endpointOverride, microsoft: config.microsoft.endpointOverride },
  });
  return { oauth, google, connectors, integrations };
}
type Integrations = ReturnType<typeof buildIntegrations>;

/**
 * How agents reach an owner's account: the gateway's first view of it, the OAuth authorization
 * server, the approvals that token policies wait on (with their sweep, a part), and handshakes.
 * The gateway reads every module before it, so this comes after the owner's data and integrations.
 */
function buildAgentAccess(
  { config, storage, parts }: Base,
  deps: Pick<
    Plumbing & AuditAndKeys & Buses & AccountServices & ServerInfo & OwnerData & Integrations,
    | 'outbound' | 'audit' | 'keyring' | 'events' | 'tokens' | 'accounts' | 'discovery' | 'attachments' | 'skills' | 'personas'
    | 'identity' | 'memory' | 'knowledge' | 'knowledgeSearch' | 'oauth' | 'connectors'
  >,
) {
  const { outbound, audit, keyring, events, tokens, accounts, discovery, attachments, skills, personas, identity, memory, knowledge, knowledgeSearch, oauth, connectors } = deps;
  const { db } = storage;
  // What an agent sees first: each module contributes its part, with its schema, in this order;
  // each part shows only to the scopes that may read it.
  const gateway = createGatewayService({
    sections: [
      createUserContextSection(accounts),
      createPersonaContextSection(personas, attachments),
      createIdentityContextSection(identity),
      createPreferencesContextSection(identity),
      createMemoryContextSection(memory, config.gatewayMemoryLimit),
      createSkillsContextSection(skills),
      createKnowledgeContextSection(knowledge, async (ownerId, q, limit) => (await knowledgeSearch.search(ownerId, q, limit)).map((provided) => provided.hit)),
      createServicesContextSection(oauth),
      createConnectorsContextSection(connectors),
      createEndpointsContextSection(discovery),
      createTokenContextSection(),
    ],
    writes: storage.writes,
  });
  // Hearth as the OAuth authorization server of its own API: MCP clients get ordinary tokens
  // of kind `oauth` with the owner's consent.
  const authorizationRepo = createAuthorizationRepo(db);
  const authorization = createAuthorizationServer({
    db,
    repo: authorizationRepo,
    clients: createClientDirectory({ repo: authorizationRepo, outbound }),
    tokens,
    accounts,
    audit,
    publicBaseUrl: config.publicBaseUrl,
    events,
  });
  // Requests that token policies hold for the owner's decision; bodies and answers sealed by the keyring.
  const approvals = createApprovalsService({
    repo: createApprovalsRepo(db, storage.dialect),
    sealer: keyring,
    audit,
    events,
    tokens,
    ttlMs: config.approvalTtlMs,
    limits: config.approvalLimits,
    replayLeaseMs: replayLeaseMs({ deviceCommandMs: EXEC_HARD_LIMIT_MS, deviceRequestMs: config.afp.requestTimeoutMs, outboundMs: config.outboundTimeoutMs }),
  });
  parts.add(createApprovalsSweep(approvals));
  const handshakes = createHandshakesService({
    db,
    repo: createHandshakesRepo(db),
    accounts,
    tokens,
    audit,
    sealer: keyring,
    ttlMs: config.handshakeTtlMs,
    events,
  });
  return { gateway, authorization, approvals, handshakes };
}

/** The marketplace shared across owners, and the chat over an owner's personas, knowledge and memory. */
function buildMarketplaceAndChat(
  { config, storage }: Base,
  { llmOutbound, audit, attachments, skills, personas, memory, knowledge }: Pick<
    Plumbing & AuditAndKeys & OwnerData,
    'llmOutbound' | 'audit' | 'attachments' | 'skills' | 'personas' | 'memory' | 'knowledge'
  >,
) {
  const { db } = storage;
  // Shared across owners; publishing and installing go through the skills and personas services.
  const marketplace = createMarketplaceService({ db, repo: createMarketplaceRepo(db, storage.dialect), skills, personas, audit });
  // Chat: the configured language model (LLM_BASE_URL), or retrieval answers without one.
  const chat = createChatService({
    db,
    repo: createChatRepo(db),
    personas,
    attachments,
    knowledge,
    memory,
    llm: llmOutbound && config.llm.baseUrl
      ? createLlmClient({
          outbound: llmOutbound,
          settings: { baseUrl: config.llm.baseUrl, apiKey: config.llm.apiKey, model: config.llm.model, timeoutMs: config.llm.timeoutMs },
        })
      : undefined,
    contextTokens: config.chatContextTokens,
  });
  return { marketplace, chat };
}

/**
 * Remote PCs: on PostgreSQL a request reaches the daemon whichever node holds its link (the
 * cluster relay, a part); on SQLite there is one node, and the links live in this process.
 */
function buildDevices(
  { config, storage, parts }: Base,
  { audit, events, limits }: Pick<AuditAndKeys & Buses & AccountServices, 'audit' | 'events' | 'limits'>,
) {
  const { db } = storage;
  const onPresence = presenceEvents(events);
  const clusterRelay = storage.dialect === 'postgres' ? createClusterRelay({ db, bus: storage.bus, nodes: storage.nodes, audit, onPresence }) : undefined;
  if (clusterRelay) parts.add({ name: 'afp.cluster-relay', start: () => clusterRelay.start(), stop: () => clusterRelay.close() });
  const afpRelay: DeviceRelay & DeviceLinkHost = clusterRelay ?? createInProcessRelay({ onPresence });
  const afp = createAfpService({ repo: createAfpRepo(db), relay: afpRelay, audit, requestTimeoutMs: config.afp.requestTimeoutMs, limits });
  const afpDownloads = createDaemonDownloads({ buildDir: config.afp.buildDir });
  return { afpRelay, afp, afpDownloads };
}
type Devices = ReturnType<typeof buildDevices>;

/**
 * Plans, Stripe checkout and Stripe's webhook; the plan itself is kept by accounts. Last of the
 * services, since it counts usage in the modules that own the records, devices included.
 */
function buildBilling(
  { config, storage }: Base,
  deps: Pick<
    Plumbing & AuditAndKeys & AccountServices & OwnerData & Devices,
    'outbound' | 'audit' | 'plans' | 'accounts' | 'limits' | 'vault' | 'memory' | 'knowledge' | 'afp'
  >,
) {
  const { outbound, audit, plans, accounts, limits, vault, memory, knowledge, afp } = deps;
  const { db } = storage;
  const billing = createBillingService({
    db,
    repo: createBillingRepo(db),
    plans,
    accounts,
    limits,
    // Usage against the plan's limits, counted by the modules that own the records.
    usage: {
      memoryEntries: memory.count,
      knowledgeBytes: knowledge.storedBytes,
      vaultTokens: vault.count,
      devices: afp.countDevices,
    },
    audit,
    outbound,
    stripe: config.stripe,
    publicBaseUrl: config.publicBaseUrl,
  });
  return { billing };
}

/**
 * The background work that tells the outside what changed: webhooks and the open MCP sessions.
 * Their parts are added last, so they stop first, before anything they send through or read from.
 */
function buildNotifiers(
  { config, storage, parts }: Base,
  { outbound, keyring, events, changes }: Pick<Plumbing & AuditAndKeys & Buses, 'outbound' | 'keyring' | 'events' | 'changes'>,
) {
  // Webhooks: every owner's events, stored as deliveries before they are sent, and sent by one
  // worker per process through the guarded outbound client; both run once the container starts.
  const webhooksRepo = createWebhooksRepo(storage.db, storage.dialect);
  const webhookDeliverer = createWebhookDeliverer({
    repo: webhooksRepo,
    outbound,
    events,
    openSecret: (ownerId, endpointId, sealed) => keyring.open(ownerId, webhookSecretContext(endpointId), sealed),
    settings: config.webhooks,
  });
  const webhooks = createWebhooksService({
    repo: webhooksRepo,
    keyring,
    deliverer: webhookDeliverer,
    allowPrivateNetwork: config.allowPrivateNetwork,
    settings: config.webhooks,
  });
  for (const part of createWebhookParts({ events, webhooks, deliverer: webhookDeliverer })) parts.add(part);

  // Open MCP sessions, each told when its owner's resources or prompts change (on any node).
  const mcpHub = createMcpHub({ changes });
  parts.add(mcpHub.part);
  return { webhooks, webhookDeliverer, mcpHub };
}

/**
 * The tables an archive carries, each as the module that owns it declares it. Portability copies
 * whole rows, so it needs every column, and may not import another module's tables (the
 * architecture test): it is handed them from here, where a column added by its owner is carried
 * with no second declaration to keep in step.
 */
export const carriedDeclarations: CarriedDeclarations = {
  identity: identityTables.tables.identity,
  preferences: identityTables.tables.preferences,
  memory_entries: memoryTables.tables.memory_entries,
  kb_documents: knowledgeTables.tables.kb_documents,
  kb_passages: knowledgeTables.tables.kb_passages,
  personas: personasTables.tables.personas,
  skills: skillsTables.tables.skills,
  persona_documents: attachmentsTables.tables.persona_documents,
  persona_skills: attachmentsTables.tables.persona_skills,
  skill_documents: attachmentsTables.tables.skill_documents,
  chat_conversations: chatTables.tables.chat_conversations,
  chat_messages: chatTables.tables.chat_messages,
  vault_tokens: vaultTables.tables.vault_tokens,
  connectors: connectorsTables.tables.connectors,
  oauth_connections: oauthTables.tables.oauth_connections,
  webhook_endpoints: webhooksTables.tables.webhook_endpoints,
  audit_log: auditTables.tables.audit_log,
  tokens: tokensTables.tables.tokens,
  afp_devices: afpTables.tables.afp_devices,
};

/**
 * Export and import of a whole account: reads and writes every module's rows of one owner (see
 * docs/data-portability.md), opens and seals secrets with the keyring, asks accounts to check the
 * password a login session sends. Its running exports are waited for when the server stops; on
 * start and every hour, archives no download may still ask for are removed from the node's disk.
 */
function buildPortability(
  { config, storage, parts }: Base,
  { audit, keyring, accounts, limits, memory }: Pick<AuditAndKeys & AccountServices & OwnerData, 'audit' | 'keyring' | 'accounts' | 'limits' | 'memory'>,
) {
  const portability = createPortabilityService({
    db: storage.db,
    carried: carriedDeclarations,
    dialect: storage.dialect,
    dataDir: config.dataDir,
    keyring,
    audit,
    confirmPassword: accounts.confirmPassword,
    imported: (ownerId) => memory.writtenElsewhere(ownerId),
    // An import adds records as their routes would: the plan's limits count them.
    limits,
  });
  parts.add({ name: 'portability.exports', start: (log) => portability.start(log), stop: () => portability.drain() });
  return { portability };
}

/**
 * Deleting an account at its owner's request: erases its rows in every table (found in the
 * database, not listed here), its export archives and cached keys, and disconnects its providers.
 */
function buildErasure(
  { storage }: Base,
  deps: Omit<ErasureDeps, 'repo'>,
) {
  const erasure = createErasureService({ repo: createErasureRepo(storage.db, storage.dialect), ...deps });
  return { erasure };
}

/**
 * The composition root: builds every module's repository and service in dependency order, each
 * receiving only the services it calls (no module reaches into another's repository), and keeps
 * the registry of parts: what runs beside the requests (each module's timers, workers and
 * subscriptions) and what is held open (pools, storage). Building starts nothing; `start(log)`
 * starts the parts in the order they were added, and `close()` stops them in the reverse order,
 * each even when one before it failed, storage last. It takes over `storage`; `buildApp` closes
 * it when the app closes, and whoever serves the app calls `start` once it is ready.
 *
 * The building is done by area, by the functions above, called here in dependency order: each
 * is handed by name only what was built before it (the architecture test checks this function
 * and each of them for a const that names a later one).
 */
export function createContainer(config: Config, storage: Storage, options: ContainerOptions = {}) {
  const parts = createLifecycle();
  // Added first, so stopped last: everything below may still use it while it stops.
  parts.add({ name: 'storage', stop: () => storage.close() });
  const base: Base = { config, storage, parts };
  const { counters, outbound, llmOutbound, embeddings, searchIndexer, searchFusion, parsing } = buildPlumbing(base);
  const { audit, keyring } = buildAuditAndKeys(base, options.rootKeys);
  const { events, changes } = buildBuses(base);
  const { plans, tokens, accounts, passwordResets, limits, vault } = buildAccounts(base, { counters, outbound, parsing, audit, keyring, events });
  const { discovery, health } = describeServer(base);
  const { attachments, skills, personas, identity, memory, knowledge, knowledgeSearch } = buildOwnerData(base, { parsing, searchFusion, changes, accounts, limits });
  const searchProviders = buildSearchProviders({ memory, skills, knowledgeSearch }, searchFusion);
  const memoryImport = createMemoryImportService({ memory });
  const { oauth, google, connectors, integrations } = buildIntegrations(base, { outbound, audit, keyring, events, accounts, vault });
  const { gateway, authorization, approvals, handshakes } = buildAgentAccess(base, {
    outbound,
    audit,
    keyring,
    events,
    tokens,
    accounts,
    discovery,
    attachments,
    skills,
    personas,
    identity,
    memory,
    knowledge,
    knowledgeSearch,
    oauth,
    connectors,
  });
  const { marketplace, chat } = buildMarketplaceAndChat(base, { llmOutbound, audit, attachments, skills, personas, memory, knowledge });
  const { afpRelay, afp, afpDownloads } = buildDevices(base, { audit, events, limits });
  const { billing } = buildBilling(base, { outbound, audit, plans, accounts, limits, vault, memory, knowledge, afp });
  const { webhooks, webhookDeliverer, mcpHub } = buildNotifiers(base, { outbound, keyring, events, changes });
  // Scheduled backups (BACKUP_DIR): started with the other parts, so only by a serving process.
  parts.add(
    createBackupSchedule({
      settings: config.backups,
      dataDir: config.dataDir,
      databaseUrl: config.databaseUrl,
      vaultKey: config.vaultKey,
      vaultPreviousKeys: config.vaultPreviousKeys,
      db: storage.db,
      dialect: storage.dialect,
    }),
  );
  const { portability } = buildPortability(base, { audit, keyring, accounts, limits, memory });
  const { erasure } = buildErasure(base, { accounts, marketplace, portability, keyring, oauth, tokens, memory });

  let closing: Promise<void> | undefined;
  /** Stops every part, newest first, storage last; once only, later calls wait for the first. */
  function close(): Promise<void> {
    closing ??= parts.stop();
    return closing;
  }

  return {
    storage,
    events,
    parsing,
    afp,
    afpRelay,
    afpDownloads,
    plans,
    limits,
    billing,
    outbound,
    llmOutbound,
    embeddings,
    searchIndexer,
    /** The knowledge base's provider for the one search for agents (GET /api/v1/search). */
    knowledgeSearch,
    searchFusion,
    searchProviders,
    keyring,
    vault,
    oauth,
    google,
    connectors,
    integrations,
    audit,
    tokens,
    accounts,
    passwordResets,
    discovery,
    health,
    gateway,
    handshakes,
    approvals,
    authorization,
    attachments,
    personas,
    identity,
    memory,
    memoryImport,
    skills,
    knowledge,
    marketplace,
    chat,
    webhooks,
    webhookDeliverer,
    mcpHub,
    portability,
    erasure,
    counters,
    changes,
    /** Starts every part's background work, in order, reporting to `log`; once only. Call it once the app is ready. */
    start: (log: PartLog) => parts.start(log),
    /** The parts' names, in the order they start (stopped the other way round). */
    partNames: () => parts.names(),
    close,
  };
}

export type Container = ReturnType<typeof createContainer>;

/**
 * The account services `hearth reset-password` runs on the server's command line
 * (src/modules/accounts/accounts.cli.ts), on the server's own storage and settings, and nothing
 * else of the server: no part is started and no route is built. Its login sessions are ended as
 * the server ends them, and its audit records go where the server's go.
 */
export function createAccountsCommandLine(config: Config, storage: Storage) {
  const { db } = storage;
  const audit = createAuditService({ repo: createAuditRepo(db) });
  // The `token.revoked` event of each session ended goes into the outbox, which a running server
  // publishes (live streams, webhooks, the other nodes), as it publishes its own revocations.
  const outbox = createOutboxWriter(db);
  // No cache: this process authenticates nobody. With PostgreSQL the servers hear of the ended
  // sessions through the shared write feed, as of another node's changes.
  const tokens = createTokensService({ repo: createTokensRepo(db), audit, sessionTtlMs: config.sessionTtlMs, cacheTokens: false, events: outbox });
  const accountsRepo = createAccountsRepo(db);
  const accounts = createAccountsService({
    db,
    repo: accountsRepo,
    tokens,
    audit,
    registration: config.registration,
    passwordHashCost: config.passwordHashCost,
    // No password is checked here; the limiter is only what the service is built with.
    attempts: createPasswordAttemptLimiter({ perAddressPerMinute: config.authRateLimitPerMinute }),
    plans: createPlansService(loadPlans(config.plansFile)),
  });
  const resets = createPasswordResets({ repo: createPasswordResetsRepo(db), users: accountsRepo, accounts, audit, publicBaseUrl: config.publicBaseUrl });
  return {
    ...resets,
    async setPassword(...args: Parameters<typeof resets.setPassword>) {
      try {
        return await resets.setPassword(...args);
      } finally {
        // Stored before the command answers and closes the database, whether or not it ended every session.
        await outbox.flush();
      }
    },
  };
}
