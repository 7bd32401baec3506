import { randomBytes } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { hashToken } from '../../lib/crypto.js';
import { isoNow } from '../../lib/time.js';
import type { OutboundClient } from '../../http/outbound.js';
import type { AuthorizationClientsTable } from './authorization.tables.js';
import type { AuthorizationRepo } from './authorization.repo.js';
import { OAuthProtocolError } from './authorization.errors.js';
import type { RegisteredClientSchema } from './authorization.schemas.js';

/**
 * The clients the authorization server knows: registered dynamically (RFC 7591), or named by the
 * URL of their client metadata document (the MCP authorization spec's Client ID Metadata
 * Documents), fetched through the guarded outbound client, so a client id can never make Hearth
 * reach a private address.
 */

export const MAX_REDIRECT_URIS = 10;
/** How long a fetched metadata document is trusted before it is fetched again. */
export const METADATA_DOCUMENT_TTL_MS = 60 * 60_000;
const METADATA_DOCUMENT_MAX_BYTES = 64 * 1024;
const METADATA_DOCUMENT_TIMEOUT_MS = 5_000;

const AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;
type AuthMethod = (typeof AUTH_METHODS)[number];

/** Schemes a redirect must never use: they run code or read local files in the browser. */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:']);

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]';
}

/**
 * Why a redirect URI cannot be registered, or null when it can: https anywhere, http only to
 * this machine (native apps' loopback redirect), or an app's own scheme (`cursor://…`); never a
 * fragment, never a scheme that runs code.
 */
export function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri} is not an absolute URI`;
  }
  if (url.hash || uri.includes('#')) return `${uri} has a fragment, which a redirect URI must not have`;
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `${uri} uses the ${url.protocol} scheme, which cannot receive a code`;
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) return `${uri} is plain http to another machine; use https (http is only for localhost)`;
  return null;
}

/** A registration's answer, as the route's schema sends it (client_secret only with a secret). */
export type RegisteredClient = Static<typeof RegisteredClientSchema>;

function stringArray(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;
}

/** Validates client metadata (registration or document) the way RFC 7591 answers: by field. */
function checkMetadata(body: Record<string, unknown>): { name: string; redirectUris: string[]; authMethod: AuthMethod; clientUri: string | null } {
  const redirectUris = stringArray(body.redirect_uris);
  if (!redirectUris || redirectUris.length === 0) {
    throw new OAuthProtocolError(400, 'invalid_redirect_uri', 'redirect_uris must be a non-empty array of the exact URIs the client will use');
  }
  if (redirectUris.length > MAX_REDIRECT_URIS) {
    throw new OAuthProtocolError(400, 'invalid_redirect_uri', `redirect_uris may hold at most ${MAX_REDIRECT_URIS} URIs`);
  }
  for (const uri of redirectUris) {
    if (uri.length > 2000) throw new OAuthProtocolError(400, 'invalid_redirect_uri', 'a redirect URI may be at most 2000 characters');
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthProtocolError(400, 'invalid_redirect_uri', problem);
  }
  const method = body.token_endpoint_auth_method ?? 'client_secret_basic';
  if (typeof method !== 'string' || !(AUTH_METHODS as readonly string[]).includes(method)) {
    throw new OAuthProtocolError(400, 'invalid_client_metadata', `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}`);
  }
  const grants = stringArray(body.grant_types) ?? ['authorization_code'];
  const unsupportedGrant = grants.find((grant) => grant !== 'authorization_code' && grant !== 'refresh_token');
  if (unsupportedGrant) throw new OAuthProtocolError(400, 'invalid_client_metadata', `grant type ${unsupportedGrant} is not supported: only authorization_code and refresh_token`);
  const responses = stringArray(body.response_types) ?? ['code'];
  if (responses.some((type) => type !== 'code')) throw new OAuthProtocolError(400, 'invalid_client_metadata', 'only the response type code is supported');
  // Control and invisible formatting characters (bidirectional overrides) could make a name read
  // as another on the consent page.
  const rawName = typeof body.client_name === 'string' ? body.client_name.replace(/[\p{Cc}\p{Cf}]/gu, '').trim() : '';
  const clientUri = typeof body.client_uri === 'string' && /^https:\/\//.test(body.client_uri) ? body.client_uri.slice(0, 500) : null;
  return { name: rawName.slice(0, 200) || 'Unnamed client', redirectUris, authMethod: method as AuthMethod, clientUri };
}

export interface ClientDirectoryDeps {
  repo: AuthorizationRepo;
  outbound: Pick<OutboundClient, 'request'>;
}

export function createClientDirectory(deps: ClientDirectoryDeps) {
  const { repo } = deps;

  /** Fetches and checks a client metadata document; its URL must be its own client_id. */
  async function fetchMetadataDocument(url: string): Promise<AuthorizationClientsTable> {
    let response;
    try {
      response = await deps.outbound.request({
        url,
        headers: { accept: 'application/json' },
        timeoutMs: METADATA_DOCUMENT_TIMEOUT_MS,
        maxResponseBytes: METADATA_DOCUMENT_MAX_BYTES,
        followRedirects: false,
      });
    } catch (error) {
      throw new OAuthProtocolError(400, 'invalid_client', `The client metadata document at ${url} could not be fetched: ${(error as Error).message}`);
    }
    if (response.status !== 200) throw new OAuthProtocolError(400, 'invalid_client', `The client metadata document at ${url} answered ${response.status}`);
    let body: Record<string, unknown>;
    try {
      body = response.json<Record<string, unknown>>();
    } catch {
      throw new OAuthProtocolError(400, 'invalid_client', `The client metadata document at ${url} is not JSON`);
    }
    if (typeof body !== 'object' || body === null || body.client_id !== url) {
      throw new OAuthProtocolError(400, 'invalid_client', `The client metadata document at ${url} must name itself as client_id`);
    }
    const metadata = checkMetadata(body);
    if (metadata.authMethod !== 'none') {
      throw new OAuthProtocolError(400, 'invalid_client', 'A client known by its metadata document authenticates with PKCE only (token_endpoint_auth_method none)');
    }
    const now = isoNow();
    const row: AuthorizationClientsTable = {
      id: url,
      kind: 'metadata_document',
      name: metadata.name,
      redirect_uris: JSON.stringify(metadata.redirectUris),
      auth_method: 'none',
      secret_hash: null,
      client_uri: metadata.clientUri,
      created_at: now,
      fetched_at: now,
    };
    await repo.saveFetchedClient(row);
    return (await repo.getClient(url)) ?? row;
  }

  return {
    /** RFC 7591 registration: the client's id, and a secret when it asked to authenticate with one. */
    async register(body: Record<string, unknown>): Promise<RegisteredClient> {
      const metadata = checkMetadata(body);
      const id = `mcpc_${randomBytes(16).toString('base64url')}`;
      const secret = metadata.authMethod === 'none' ? undefined : `mcps_${randomBytes(32).toString('base64url')}`;
      const now = new Date();
      await repo.insertClient({
        id,
        kind: 'registered',
        name: metadata.name,
        redirect_uris: JSON.stringify(metadata.redirectUris),
        auth_method: metadata.authMethod,
        secret_hash: secret ? hashToken(secret) : null,
        client_uri: metadata.clientUri,
        created_at: now.toISOString(),
        fetched_at: null,
      });
      return {
        client_id: id,
        client_id_issued_at: Math.floor(now.getTime() / 1000),
        ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
        client_name: metadata.name,
        redirect_uris: metadata.redirectUris,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: metadata.authMethod,
      };
    },

    /**
     * The client a client_id names: a registered one, or the metadata document at that https
     * URL (fetched again once the stored copy is older than an hour). Undefined when unknown.
     */
    async resolve(clientId: string): Promise<AuthorizationClientsTable | undefined> {
      if (/^https:\/\/[^/]+\/.+/.test(clientId)) {
        const known = await repo.getClient(clientId);
        if (known?.fetched_at && Date.now() - Date.parse(known.fetched_at) < METADATA_DOCUMENT_TTL_MS) return known;
        return fetchMetadataDocument(clientId);
      }
      return repo.getClient(clientId);
    },
  };
}

export type ClientDirectory = ReturnType<typeof createClientDirectory>;

