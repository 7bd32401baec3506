import type { OutboundClient } from '../../http/outbound.js';
import type { AuditService } from '../audit/audit.service.js';
import type { EventsBus } from '../events/events.bus.js';
import { createOAuthClient } from './oauth.client.js';
import { createConnectFlow, type ConnectFlowDeps } from './oauth.connect.js';
import { createConnections } from './oauth.connections.js';
import type { OAuthProviderRegistry } from './oauth.providers.js';
import { createTokenRefresh } from './oauth.refresh.js';
import type { OAuthRepo } from './oauth.repo.js';
import { createOAuthSealing, type OAuthKeyring } from './oauth.sealing.js';

export type { OAuthKeyring } from './oauth.sealing.js';
export type { BrowserBindingCookie, ProviderAnswer } from './oauth.connect.js';
export type { ConnectionSummary } from './oauth.connections.js';
export type { AccessTokenOptions, AccessTokenResult } from './oauth.refresh.js';
export type { ConnectionStatus, DisconnectResult, ProviderStatus } from './oauth.schemas.js';

export interface OAuthServiceDeps {
  repo: OAuthRepo;
  providers: OAuthProviderRegistry;
  keyring: OAuthKeyring;
  outbound: Pick<OutboundClient, 'request'>;
  audit: Pick<AuditService, 'record'>;
  publicBaseUrl: string;
  owners: ConnectFlowDeps['owners'];
  /** How long an authorization link stays usable (default 10 minutes). */
  stateTtlMs?: number;
  /** An access token this close to its expiry is refreshed before use (default 60 s). */
  refreshMarginMs?: number;
  /** How long a claimed refresh is its claimant's alone; longer than a provider call can take (default 2 minutes). */
  refreshLeaseMs?: number;
  /** Told when a connection needs the owner to connect it again (`oauth.needs_reauth`). */
  events?: Pick<EventsBus, 'publish'> | undefined;
}

const DEFAULT_STATE_TTL_MS = 10 * 60_000;
const DEFAULT_REFRESH_MARGIN_MS = 60_000;
const DEFAULT_REFRESH_LEASE_MS = 2 * 60_000;

/**
 * OAuth connections to outside providers, composed of its parts: the connect flow
 * (oauth.connect.ts), token refresh (oauth.refresh.ts), the owner's connections and their end
 * (oauth.connections.ts), over the provider's HTTP endpoints (oauth.client.ts).
 */
export function createOAuthService(deps: OAuthServiceDeps) {
  const { repo, providers, audit } = deps;
  const sealing = createOAuthSealing(deps.keyring);
  const client = createOAuthClient({ outbound: deps.outbound, publicBaseUrl: deps.publicBaseUrl });
  const flow = createConnectFlow({
    repo,
    providers,
    sealing,
    client,
    audit,
    publicBaseUrl: deps.publicBaseUrl,
    owners: deps.owners,
    stateTtlMs: deps.stateTtlMs ?? DEFAULT_STATE_TTL_MS,
  });
  const refresh = createTokenRefresh({
    repo,
    providers,
    sealing,
    client,
    audit,
    refreshMarginMs: deps.refreshMarginMs ?? DEFAULT_REFRESH_MARGIN_MS,
    refreshLeaseMs: deps.refreshLeaseMs ?? DEFAULT_REFRESH_LEASE_MS,
    events: deps.events,
  });
  const connections = createConnections({ repo, providers, sealing, client, audit });

  return {
    authorize: flow.authorize,
    connectPage: flow.connectPage,
    bindBrowser: flow.bindBrowser,
    clearedBindingCookie: flow.clearedBindingCookie,
    callback: flow.callback,
    status: connections.status,
    connections: connections.connections,
    disconnect: connections.disconnect,
    accessToken: refresh.accessToken,
    providerIds(): string[] {
      return [...providers.keys()];
    },
  };
}

export type OAuthService = ReturnType<typeof createOAuthService>;
