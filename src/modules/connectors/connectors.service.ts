import { AppError, InputError, notFound } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { siteBindingRefusal, siteHost } from '../../lib/same-site.js';
import { isoNow } from '../../lib/time.js';
import { isUniqueViolation } from '../../storage/storage.js';
import type { TokenKind } from '../../lib/crypto.js';
import type { ConnectorsTable } from './connectors.tables.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import type { ApiStyle } from '../vault/vault.schemas.js';
import type { VaultService } from '../vault/vault.service.js';
import { readMethodsOf, type ConnectorChanges, type ConnectorsRepo } from './connectors.repo.js';
import type { Connector, ConnectorAuthType, CreateConnectorBody, UpdateConnectorBody } from './connectors.schemas.js';

/** A connector as the services engine uses it: the API's connector without presentation (`connected`). */
export type ConnectorRecord = Omit<Connector, 'connected'>;

/** Headers that describe the transport or the request itself: never a credential's carrier. */
const FORBIDDEN_HEADER_NAMES = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'cookie',
  'accept',
  'accept-encoding',
  'user-agent',
]);

function toRecord(row: ConnectorsTable): ConnectorRecord {
  return {
    id: row.id,
    name: row.name,
    baseUrl: row.base_url,
    authType: row.auth_type,
    vaultTokenId: row.vault_token_id,
    headerName: row.header_name,
    queryParam: row.query_param,
    apiStyle: row.api_style,
    readMethods: readMethodsOf(row),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * The API style and read methods a create or an update leaves: read methods only for rpc (a
 * connector turned rest drops them), a list given replacing the whole list.
 */
function readRule(
  given: { apiStyle?: ApiStyle | undefined; readMethods?: string[] | undefined },
  current: { apiStyle: ApiStyle; readMethods: string[] },
): { api_style: ApiStyle; read_methods: string | null } {
  const apiStyle = given.apiStyle ?? current.apiStyle;
  if (apiStyle !== 'rpc') {
    if (given.readMethods !== undefined && given.readMethods.length > 0) {
      throw invalid('readMethods', 'only applies to apiStyle rpc', 'readMethods lists the reads of an RPC-style API: send "apiStyle": "rpc" with it, or leave it out');
    }
    return { api_style: 'rest', read_methods: null };
  }
  return { api_style: 'rpc', read_methods: JSON.stringify(given.readMethods ?? current.readMethods) };
}

/** An input refused, named as the service knows it; the routes place it in the request. */
function invalid(field: string, message: string, text?: string): InputError {
  return new InputError(field, message, text);
}

/** `https://api.example.com/v2/` → `https://api.example.com/v2`: http(s), nothing after the path. */
export function normaliseBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('baseUrl', 'must be an absolute http(s) address, e.g. https://api.example.com/v1');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('baseUrl', `must be an http or https address, not ${url.protocol}`);
  if (url.username || url.password) throw invalid('baseUrl', 'must not carry a user name or password; store the secret in the vault');
  if (url.search || url.hash || raw.includes('?') || raw.includes('#')) {
    throw invalid('baseUrl', 'must not have a query or fragment; a credential in the query is set with authType query');
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

export interface ConnectorsServiceDeps {
  repo: ConnectorsRepo;
  vault: Pick<VaultService, 'get'>;
  audit: Pick<AuditService, 'record'>;
  /** Names a connector cannot take: the built-in services and the fixed segments under /services. */
  reservedNames: ReadonlySet<string>;
  /**
   * Checks the account password (the accounts service, under its attempt limiter; throws 429
   * when the caller must wait). A login session confirms it to bind a secret off its site.
   */
  confirmPassword(ownerId: string, password: string, actor: AuditActor): Promise<boolean>;
}

/**
 * Who is asking. Binding a vault secret to an address off the site it was stored for needs the
 * master token, or a login session together with the account password; scoped tokens never may.
 */
export interface ConnectorCaller {
  actor: AuditActor;
  tokenKind: TokenKind;
  /** The account password sent with the request (a login session's proof); never stored or logged. */
  password?: string | undefined;
}

/** A binding off the vault token's site that was allowed, and by what proof. */
interface OffSiteBinding {
  vaultTokenId: string;
  websiteUrl: string;
  baseUrl: string;
  proof: 'master token' | 'account password';
}

export function createConnectorsService(deps: ConnectorsServiceDeps) {
  const { repo, vault, audit } = deps;
  const reserved = new Set([...deps.reservedNames].map((n) => n.toLowerCase()));

  function checkName(name: string): string {
    const key = name.toLowerCase();
    if (reserved.has(key)) {
      throw new InputError(
        'name',
        'is a built-in service name',
        `"${name}" is taken by a built-in service (GET /api/v1/services lists them); choose another connector name`,
        'CONFLICT',
      );
    }
    return key;
  }

  /** Whether the vault token still exists (connectors keep their id after the token is deleted). */
  async function tokenExists(ownerId: string, id: string | null): Promise<boolean> {
    if (!id) return true;
    try {
      await vault.get(ownerId, id);
      return true;
    } catch (error) {
      if (error instanceof AppError && error.code === 'NOT_FOUND') return false;
      throw error;
    }
  }

  async function present(ownerId: string, row: ConnectorsTable, known?: boolean): Promise<Connector> {
    const record = toRecord(row);
    return { ...record, connected: known ?? (await tokenExists(ownerId, record.vaultTokenId)) };
  }

  /**
   * Whether the caller may send vault token `token` to `baseUrl`, which is off the site the token
   * was stored for (`refusal` says why). Otherwise `services:write`, or a stolen login session,
   * would be enough to send any stored secret to any server, while reveal is master-only. The
   * master token may; a login session may with the account password (the same proof as for
   * replacing the master token, counted by the same attempt limiter as logins); a scoped token
   * never. Every refusal is audited here; the binding itself once the connector is written.
   */
  async function authoriseOffSite(
    ownerId: string,
    token: { id: string; websiteUrl: string },
    baseUrl: string,
    refusal: string,
    caller: ConnectorCaller,
  ): Promise<OffSiteBinding> {
    const binding = { vaultTokenId: token.id, websiteUrl: token.websiteUrl, baseUrl };
    if (caller.tokenKind === 'master') return { ...binding, proof: 'master token' };
    const deny = async (reason: string, error: AppError): Promise<never> => {
      await audit.record(caller.actor, {
        action: 'connector.bind',
        outcome: 'denied',
        targetType: 'vault_token',
        targetId: token.id,
        details: { baseUrl, websiteUrl: token.websiteUrl, tokenKind: caller.tokenKind, reason, offSite: refusal },
      });
      throw error;
    };
    const host = new URL(baseUrl).host;
    if (caller.tokenKind === 'session') {
      if (caller.password === undefined) {
        return deny(
          'no password',
          new AppError(
            'FORBIDDEN',
            `Vault token ${token.id} was stored for ${token.websiteUrl}; sending it to ${host} (${refusal}) from a login session needs the account password: send "password": "…" with this request, or use the master token`,
          ),
        );
      }
      let ok: boolean;
      try {
        ok = await deps.confirmPassword(ownerId, caller.password, caller.actor);
      } catch (error) {
        if (error instanceof AppError && error.code === 'RATE_LIMITED') return deny('too many failed password attempts', error);
        throw error;
      }
      if (ok) return { ...binding, proof: 'account password' };
      return deny('wrong password', new AppError('FORBIDDEN', `The password is wrong; vault token ${token.id} was not bound to ${host}`));
    }
    let tokenSite = '';
    try {
      tokenSite = siteHost(new URL(token.websiteUrl).hostname);
    } catch {
      // not an address: no site to suggest
    }
    return deny(
      'scoped token',
      new AppError(
        'FORBIDDEN',
        `Vault token ${token.id} was stored for ${token.websiteUrl}; only the owner (the master token, or a login session with the account password) may send it to ${host} (${refusal}). Use an address on ${tokenSite || 'that site'}, or ask the owner to create this connector`,
      ),
    );
  }

  /**
   * The checks of a connector's resulting configuration. When `rebinding` puts a vault secret on
   * an address off the site it was stored for, the caller must be allowed to (authoriseOffSite);
   * the answer says so, for the audit. The site is the token's host or a subdomain (api.github.com
   * for github.com), never cleartext http for an https site, and the site's port when it names one.
   */
  async function checkConfig(
    ownerId: string,
    config: { baseUrl: string; authType: ConnectorAuthType; vaultTokenId: string | null; headerName: string | null; queryParam: string | null },
    rebinding: boolean,
    caller: ConnectorCaller,
  ): Promise<OffSiteBinding | undefined> {
    if (config.authType === 'header') {
      if (!config.headerName) throw invalid('headerName', 'is required when authType is header');
      if (FORBIDDEN_HEADER_NAMES.has(config.headerName.toLowerCase())) {
        throw invalid('headerName', `cannot be ${config.headerName}: it is not a credential header`);
      }
    }
    if (config.authType === 'query' && !config.queryParam) throw invalid('queryParam', 'is required when authType is query');
    if (config.authType === 'none') return undefined;
    if (!config.vaultTokenId) throw invalid('vaultTokenId', `is required when authType is ${config.authType}: store the secret with POST /api/v1/vault/tokens first`);
    // Another owner's id answers 404 exactly like an unknown one.
    const token = await vault.get(ownerId, config.vaultTokenId);
    if (!rebinding) return undefined;
    const refusal = siteBindingRefusal(config.baseUrl, token.websiteUrl);
    return refusal ? authoriseOffSite(ownerId, token, config.baseUrl, refusal, caller) : undefined;
  }

  /** Audits a binding off the vault token's site, once the connector holding it is written. */
  async function recordOffSite(caller: ConnectorCaller, connector: ConnectorsTable, binding: OffSiteBinding | undefined): Promise<void> {
    if (!binding) return;
    await audit.record(caller.actor, {
      action: 'connector.bind',
      outcome: 'success',
      targetType: 'vault_token',
      targetId: binding.vaultTokenId,
      details: {
        connectorId: connector.id,
        connectorName: connector.name,
        baseUrl: binding.baseUrl,
        websiteUrl: binding.websiteUrl,
        tokenKind: caller.tokenKind,
        proof: binding.proof,
      },
    });
  }

  function conflictOnName(error: unknown, name: string): never {
    if (isUniqueViolation(error)) {
      throw new InputError('name', 'is already used by another connector', `A connector named "${name}" already exists (names are unique whatever the case)`, 'CONFLICT');
    }
    throw error;
  }

  return {
    async list(ownerId: string, query: { limit: number; cursor?: string | undefined }): Promise<{ connectors: Connector[]; nextCursor: string | null }> {
      const rows = await repo.list(ownerId, { limit: query.limit + 1, cursor: query.cursor });
      const page = rows.slice(0, query.limit);
      return {
        connectors: await Promise.all(page.map((row) => present(ownerId, row))),
        nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null,
      };
    },

    async get(ownerId: string, id: string): Promise<Connector> {
      const row = await repo.get(ownerId, id);
      if (!row) throw notFound('Connector', id);
      return present(ownerId, row);
    },

    async create(ownerId: string, body: CreateConnectorBody, caller: ConnectorCaller): Promise<Connector> {
      const nameKey = checkName(body.name);
      const baseUrl = normaliseBaseUrl(body.baseUrl);
      if (body.authType !== 'header' && body.headerName !== undefined) throw invalid('headerName', 'only applies to authType header');
      if (body.authType !== 'query' && body.queryParam !== undefined) throw invalid('queryParam', 'only applies to authType query');
      if (body.authType === 'none' && body.vaultTokenId !== undefined) throw invalid('vaultTokenId', 'does not apply to authType none');
      const config = {
        baseUrl,
        authType: body.authType,
        vaultTokenId: body.vaultTokenId ?? null,
        headerName: body.headerName ?? null,
        queryParam: body.queryParam ?? null,
      };
      const offSite = await checkConfig(ownerId, config, true, caller);
      const now = isoNow();
      const row: ConnectorsTable = {
        id: newId('con'),
        owner_id: ownerId,
        name: body.name,
        name_key: nameKey,
        base_url: config.baseUrl,
        auth_type: config.authType,
        vault_token_id: config.vaultTokenId,
        header_name: config.headerName,
        query_param: config.queryParam,
        ...readRule(body, { apiStyle: 'rest', readMethods: [] }),
        created_at: now,
        updated_at: now,
      };
      try {
        await repo.insert(row);
      } catch (error) {
        conflictOnName(error, body.name);
      }
      await audit.record(caller.actor, {
        action: 'connector.create',
        outcome: 'success',
        targetType: 'connector',
        targetId: row.id,
        details: { name: row.name, baseUrl: row.base_url, authType: row.auth_type, vaultTokenId: row.vault_token_id, apiStyle: row.api_style },
      });
      await recordOffSite(caller, row, offSite);
      return present(ownerId, row, true);
    },

    async update(ownerId: string, id: string, body: UpdateConnectorBody, caller: ConnectorCaller): Promise<Connector> {
      const current = await repo.get(ownerId, id);
      if (!current) throw notFound('Connector', id);
      const { password: _proof, ...fields } = body;
      if (Object.keys(fields).length === 0) {
        throw invalid('', 'must have at least one field besides password', 'Nothing to change: name at least one field besides password');
      }
      const authType = body.authType ?? current.auth_type;
      if (authType !== 'header' && body.headerName !== undefined) throw invalid('headerName', 'only applies to authType header');
      if (authType !== 'query' && body.queryParam !== undefined) throw invalid('queryParam', 'only applies to authType query');
      if (authType === 'none' && body.vaultTokenId !== undefined) throw invalid('vaultTokenId', 'does not apply to authType none');
      const config = {
        baseUrl: body.baseUrl !== undefined ? normaliseBaseUrl(body.baseUrl) : current.base_url,
        authType,
        vaultTokenId: authType === 'none' ? null : (body.vaultTokenId ?? current.vault_token_id),
        headerName: authType === 'header' ? (body.headerName ?? current.header_name) : null,
        queryParam: authType === 'query' ? (body.queryParam ?? current.query_param) : null,
      };
      // Sending an existing secret to a new address, or a new secret anywhere, is a new binding.
      const rebinding = config.vaultTokenId !== null && (config.baseUrl !== current.base_url || config.vaultTokenId !== current.vault_token_id);
      const offSite = await checkConfig(ownerId, config, rebinding, caller);
      const changes: ConnectorChanges = {
        base_url: config.baseUrl,
        auth_type: config.authType,
        vault_token_id: config.vaultTokenId,
        header_name: config.headerName,
        query_param: config.queryParam,
        ...readRule(body, { apiStyle: current.api_style, readMethods: readMethodsOf(current) }),
        updated_at: isoNow(),
      };
      if (body.name !== undefined) {
        changes.name = body.name;
        changes.name_key = checkName(body.name);
      }
      let row: ConnectorsTable | undefined;
      try {
        row = await repo.update(ownerId, id, changes);
      } catch (error) {
        conflictOnName(error, body.name ?? current.name);
      }
      if (!row) throw notFound('Connector', id);
      await audit.record(caller.actor, {
        action: 'connector.update',
        outcome: 'success',
        targetType: 'connector',
        targetId: id,
        details: { changed: Object.keys(fields), name: row.name, baseUrl: row.base_url, authType: row.auth_type, vaultTokenId: row.vault_token_id },
      });
      await recordOffSite(caller, row, offSite);
      return present(ownerId, row);
    },

    async delete(ownerId: string, id: string, actor: AuditActor): Promise<{ id: string; deleted: true }> {
      if (!(await repo.delete(ownerId, id))) throw notFound('Connector', id);
      await audit.record(actor, { action: 'connector.delete', outcome: 'success', targetType: 'connector', targetId: id });
      return { id, deleted: true };
    },

    // --- For the services engine ------------------------------------------------------------

    /** The owner's connector of that name (case-insensitive), or undefined. */
    async findByName(ownerId: string, name: string): Promise<ConnectorRecord | undefined> {
      const row = await repo.getByName(ownerId, name.toLowerCase());
      return row ? toRecord(row) : undefined;
    },

    /** Every connector of the owner, by name. */
    async all(ownerId: string): Promise<ConnectorRecord[]> {
      return (await repo.listAll(ownerId)).map(toRecord);
    },
  };
}

export type ConnectorsService = ReturnType<typeof createConnectorsService>;
