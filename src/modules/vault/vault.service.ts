import { AppError, InputError, notFound } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { isoNow } from '../../lib/time.js';
import type { Executor } from '../../storage/columns.js';
import type { VaultTables } from './vault.tables.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import type { ApiDiscovery } from './vault.discovery.js';
import type { SecretSealer } from '../keyring/keyring.service.js';
import { apiMetadataOf, type StoredApiMetadata, type VaultRepo, type VaultTokenRow } from './vault.repo.js';
import type { ApiAuthScheme, ApiDocumentRef, ApiOperation, ApiStyle, DiscoveredApi, VaultApiSummary, VaultToken, VaultTokenCreateRequest } from './vault.schemas.js';

/** A token with its secret, for the services that call an API with it (never for a response, except reveal). */
export interface VaultSecret {
  id: string;
  name: string;
  service: string;
  websiteUrl: string;
  secret: string;
}

/** A site stored with `discoverApi: true` whose API was found: a callable service using the token. */
export interface DiscoveredService {
  vaultTokenId: string;
  service: string;
  name: string;
  websiteUrl: string;
  title: string | null;
  description: string | null;
  baseUrl: string;
  authSchemes: ApiAuthScheme[];
  documents: ApiDocumentRef[];
  operationCount: number;
  operations: ApiOperation[];
  /** As the owner declared it when storing the token: rpc APIs read only through readMethods. */
  apiStyle: ApiStyle;
  readMethods: string[];
}

/** Where a sealed secret lives: the keyring binds each ciphertext to it. */
const secretContext = (id: string) => `vault_tokens:${id}`;

/** The last four characters, and only for secrets long enough that four give nothing away. */
function hintFor(secret: string): string {
  return secret.length >= 12 ? `…${secret.slice(-4)}` : '…';
}

function toRecord(row: VaultTokenRow): VaultToken {
  const meta = apiMetadataOf(row);
  let api: VaultApiSummary | null = null;
  if (meta) {
    api = { status: meta.status, discoveredAt: meta.discoveredAt, apiStyle: meta.apiStyle ?? 'rest', readMethods: meta.readMethods ?? [] };
    if (meta.error) api.error = meta.error;
    if (meta.api) {
      api.title = meta.api.title;
      api.description = meta.api.description;
      api.baseUrl = meta.api.baseUrl;
      if (meta.api.baseUrlRejected) api.baseUrlRejected = meta.api.baseUrlRejected;
      api.documents = meta.api.documents;
      api.authSchemes = meta.api.authSchemes;
      api.operationCount = meta.api.operationCount;
    }
  }
  return {
    id: row.id,
    name: row.name,
    service: row.service,
    websiteUrl: row.website_url,
    hint: row.hint,
    discoverApi: row.discover_api === 1,
    api,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const serviceKey = (service: string) => service.trim().toLowerCase();

function checkWebsiteUrl(websiteUrl: string): void {
  let url: URL;
  try {
    url = new URL(websiteUrl);
  } catch {
    throw new InputError('websiteUrl', 'must be an http(s) address', 'websiteUrl is not a valid address');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InputError('websiteUrl', 'must be an http(s) address', 'websiteUrl must be an http or https address');
  }
  if (url.username || url.password) {
    throw new InputError('websiteUrl', 'must not contain a user name or password', 'websiteUrl must not carry credentials; store the secret in `token`');
  }
}

export interface VaultServiceDeps {
  db: Executor<VaultTables>;
  repo: VaultRepo;
  keyring: SecretSealer;
  audit: Pick<AuditService, 'record'>;
  apiDiscovery: ApiDiscovery;
  /**
   * Plan limits (billing): the one place a store is checked against the owner's quota. Called
   * before a vault token is stored, with the owner's current count; throws PLAN_LIMIT_REACHED.
   */
  checkLimit?: (ownerId: string, resource: 'vault_tokens', currentCount: number) => Promise<void>;
}

export function createVaultService(deps: VaultServiceDeps) {
  const { db, repo, keyring, audit, apiDiscovery } = deps;

  async function discoverForStore(ownerId: string, websiteUrl: string): Promise<StoredApiMetadata> {
    const discoveredAt = isoNow();
    try {
      const api = await apiDiscovery.discover(websiteUrl, ownerId);
      return { status: api.documents.length > 0 ? 'found' : 'none', discoveredAt, api };
    } catch (error) {
      // Too many discoveries at once: the caller retries (nothing is stored), rather than
      // keeping a token whose discovery never ran.
      if (error instanceof AppError && error.code === 'RATE_LIMITED') throw error;
      // The token is stored either way; the record says why discovery did not work.
      const message = error instanceof AppError ? error.message : 'API discovery failed';
      return { status: 'failed', discoveredAt, error: message };
    }
  }

  return {
    /** Stores a token: the secret is sealed before it reaches the database. */
    /** How many vault tokens the owner stores: what the plan's vaultTokens limit counts. */
    async count(ownerId: string): Promise<number> {
      return repo.count(ownerId);
    },

    async create(
      ownerId: string,
      body: VaultTokenCreateRequest,
      actor: AuditActor,
    ): Promise<VaultToken> {
      checkWebsiteUrl(body.websiteUrl);
      if (body.name.trim() === '' || body.name.includes('\u0000')) {
        throw new InputError('name', 'must not be blank or contain NUL characters', 'name must not be blank or contain NUL (\\u0000) characters');
      }
      if (body.token.trim() === '') {
        throw new InputError('token', 'must not be blank', 'token must not be blank');
      }
      if (deps.checkLimit) await deps.checkLimit(ownerId, 'vault_tokens', await repo.count(ownerId));

      if (body.apiStyle !== undefined && !body.discoverApi) {
        throw new InputError('apiStyle', 'only applies with discoverApi', 'apiStyle describes the discovered API: send "discoverApi": true with it, or leave it out');
      }
      if (body.readMethods !== undefined && body.readMethods.length > 0 && body.apiStyle !== 'rpc') {
        throw new InputError('readMethods', 'only applies to apiStyle rpc', 'readMethods lists the reads of an RPC-style API: send "apiStyle": "rpc" (and "discoverApi": true) with it, or leave it out');
      }
      const found = body.discoverApi ? await discoverForStore(ownerId, body.websiteUrl) : null;
      const metadata = found && body.apiStyle === 'rpc' ? { ...found, apiStyle: body.apiStyle, readMethods: body.readMethods ?? [] } : found;
      const id = newId('vtk');
      const now = isoNow();
      const row = {
        id,
        owner_id: ownerId,
        name: body.name.trim(),
        service: body.service,
        service_key: serviceKey(body.service),
        website_url: body.websiteUrl,
        secret_sealed: await keyring.seal(ownerId, secretContext(id), body.token),
        hint: hintFor(body.token),
        discover_api: body.discoverApi ? 1 : 0,
        api_metadata: metadata ? JSON.stringify(metadata) : null,
        created_at: now,
        updated_at: now,
      };
      await db.transaction().execute(async (trx) => {
        await repo.insert(row, trx);
        await audit.record(
          actor,
          {
            action: 'vault.store',
            outcome: 'success',
            targetType: 'vault_token',
            targetId: id,
            details: { name: row.name, service: row.service, discoverApi: Boolean(body.discoverApi), ...(metadata ? { discovery: metadata.status } : {}) },
          },
          trx,
        );
      });
      const { secret_sealed: _sealed, ...publicRow } = row;
      return toRecord(publicRow);
    },

    async list(
      ownerId: string,
      query: { limit: number; cursor?: string | undefined; service?: string | undefined },
    ): Promise<{ tokens: VaultToken[]; nextCursor: string | null }> {
      const rows = await repo.list(ownerId, {
        limit: query.limit + 1,
        cursor: query.cursor,
        serviceKey: query.service === undefined ? undefined : serviceKey(query.service),
      });
      const page = rows.slice(0, query.limit);
      return { tokens: page.map(toRecord), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
    },

    async get(ownerId: string, id: string): Promise<VaultToken> {
      const row = await repo.get(ownerId, id);
      if (!row) throw notFound('Vault token', id);
      return toRecord(row);
    },

    async remove(ownerId: string, id: string, actor: AuditActor): Promise<{ id: string; deleted: true }> {
      await db.transaction().execute(async (trx) => {
        if (!(await repo.delete(ownerId, id, trx))) throw notFound('Vault token', id);
        await audit.record(actor, { action: 'vault.delete', outcome: 'success', targetType: 'vault_token', targetId: id }, trx);
      });
      return { id, deleted: true };
    },

    /**
     * The record with its decrypted secret, for the reveal route. The grant is written to the
     * audit log before the secret is returned (refusals are recorded by the route). Unknown ids
     * and decryption failures throw; the route records those too.
     */
    async reveal(ownerId: string, id: string, actor: AuditActor): Promise<VaultToken & { token: string }> {
      const row = await repo.getWithSecret(ownerId, id);
      if (!row) throw notFound('Vault token', id);
      const secret = await keyring.open(ownerId, secretContext(id), row.secret_sealed);
      await audit.record(actor, {
        action: 'vault.reveal',
        outcome: 'success',
        targetType: 'vault_token',
        targetId: id,
        details: { name: row.name, service: row.service },
      });
      const { secret_sealed: _sealed, ...publicRow } = row;
      return { ...toRecord(publicRow), token: secret };
    },

    /** POST /vault/discover-api: what the site publishes for machines. */
    async discover(ownerId: string, websiteUrl: string): Promise<DiscoveredApi> {
      checkWebsiteUrl(websiteUrl);
      return apiDiscovery.discover(websiteUrl, ownerId);
    },

    // --- For other modules (integrations, connectors) -------------------------------------

    /** A token with its secret, to call an API with it. 404 NOT_FOUND when the owner has no such token. */
    async secretFor(ownerId: string, vaultTokenId: string): Promise<VaultSecret> {
      const row = await repo.getWithSecret(ownerId, vaultTokenId);
      if (!row) throw notFound('Vault token', vaultTokenId);
      const secret = await keyring.open(ownerId, secretContext(row.id), row.secret_sealed);
      return { id: row.id, name: row.name, service: row.service, websiteUrl: row.website_url, secret };
    },

    /** The newest vault token for a service name (case-insensitive), without its secret. */
    async findByService(ownerId: string, service: string): Promise<VaultToken | undefined> {
      const row = await repo.newestForService(ownerId, serviceKey(service));
      return row ? toRecord(row) : undefined;
    },

    /**
     * Sites stored with `discoverApi: true` whose API description was found: each a callable
     * service using its token. One per service name (the newest), newest first.
     */
    async discoveredServices(ownerId: string): Promise<DiscoveredService[]> {
      const out: DiscoveredService[] = [];
      const seen = new Set<string>();
      for (const row of await repo.listDiscovered(ownerId)) {
        const meta = apiMetadataOf(row);
        if (meta?.status !== 'found' || !meta.api || seen.has(row.service_key)) continue;
        seen.add(row.service_key);
        out.push({
          vaultTokenId: row.id,
          service: row.service,
          name: row.name,
          websiteUrl: row.website_url,
          title: meta.api.title,
          description: meta.api.description,
          baseUrl: meta.api.baseUrl,
          authSchemes: meta.api.authSchemes,
          documents: meta.api.documents,
          operationCount: meta.api.operationCount,
          operations: meta.api.operations,
          apiStyle: meta.apiStyle ?? 'rest',
          readMethods: meta.apiStyle === 'rpc' ? (meta.readMethods ?? []) : [],
        });
      }
      return out;
    },
  };
}

export type VaultService = ReturnType<typeof createVaultService>;
