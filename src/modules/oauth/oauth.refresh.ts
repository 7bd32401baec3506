import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { AppError } from '../../http/errors.js';
import { ignoreFailure } from '../../lib/ignore-failure.js';
import { isoIn, isoNow } from '../../lib/time.js';
import type { AuditService } from '../audit/audit.service.js';
import type { EventsBus } from '../events/events.bus.js';
import { TokenEndpointError, grantedScopes, lifetimeSeconds, type OAuthClient, type TokenResponse } from './oauth.client.js';
import { configuredProvider, needsReauth, notConnected, parseScopes, systemActor } from './oauth.common.js';
import type { OAuthProviderDefinition, OAuthProviderRegistry } from './oauth.providers.js';
import type { ConnectionRow, OAuthRepo } from './oauth.repo.js';
import type { OAuthSealing } from './oauth.sealing.js';

export interface AccessTokenResult {
  accessToken: string;
  scopes: string[];
  account: string | null;
}

export interface AccessTokenOptions {
  /**
   * The access token the provider just refused (401): refresh now, unless the stored token has
   * already been replaced by another request's refresh.
   */
  rejected?: string;
}

export interface TokenRefreshDeps {
  repo: Pick<OAuthRepo, 'getConnection' | 'claimRefresh' | 'releaseRefresh' | 'updateTokens' | 'markNeedsReauth'>;
  providers: OAuthProviderRegistry;
  sealing: Pick<OAuthSealing, 'openToken' | 'sealToken'>;
  client: Pick<OAuthClient, 'refreshTokens'>;
  audit: Pick<AuditService, 'record'>;
  /** An access token this close to its expiry is refreshed before use. */
  refreshMarginMs: number;
  /**
   * How long a claimed refresh is the claimant's alone: longer than the provider call may take.
   * A node that dies mid-refresh holds the others up for at most this long.
   */
  refreshLeaseMs: number;
  /** Told once per connection that turns to needs_reauth (the one request that marked it). */
  events?: Pick<EventsBus, 'publish'> | undefined;
}

/** How often a request waiting on another node's refresh looks again, at first and at most. */
const POLL_FIRST_MS = 20;
const POLL_MAX_MS = 250;

/** The outcome of a refresh this request claimed: its tokens, or `changed` when its result no longer fits the row. */
type ClaimedOutcome = { kind: 'ok'; result: AccessTokenResult } | { kind: 'changed' };

/**
 * Usable access tokens, refreshed when due. Concurrent callers in this process share one
 * refresh per connection; across processes (API nodes on one PostgreSQL) a refresh is claimed
 * with a lease on the connection's row, one atomic UPDATE, so exactly one node calls the
 * provider and no transaction or row lock is held while it does. The others look again until
 * the claimant's result is stored (or its lease runs out and one of them claims it).
 */
export function createTokenRefresh(deps: TokenRefreshDeps) {
  const { repo, providers, sealing, client, audit } = deps;
  /** One refresh in flight per connection in this process; concurrent callers share it. */
  const refreshes = new Map<string, Promise<AccessTokenResult>>();

  function isFresh(row: Pick<ConnectionRow, 'expires_at'>, now = Date.now()): boolean {
    return Date.parse(row.expires_at) - deps.refreshMarginMs > now;
  }

  async function resultOf(row: ConnectionRow, accessToken?: string): Promise<AccessTokenResult> {
    return {
      accessToken: accessToken ?? (await sealing.openToken(row, 'access_token')),
      scopes: parseScopes(row.scopes),
      account: row.account_email,
    };
  }

  async function reauthFailed(provider: OAuthProviderDefinition, ownerId: string, reason: string): Promise<never> {
    await audit.record(systemActor(ownerId), {
      action: 'oauth.refresh_failed',
      outcome: 'failure',
      targetType: 'oauth_connection',
      targetId: provider.id,
      details: { provider: provider.id, reason },
    });
    deps.events?.publish(ownerId, { type: 'oauth.needs_reauth', data: { provider: provider.id } });
    throw needsReauth(provider, reason);
  }

  /** Calls the provider for a refresh this request holds the lease of, and stores the answer under that lease. */
  async function refreshClaimed(provider: OAuthProviderDefinition, row: ConnectionRow, lease: string): Promise<ClaimedOutcome> {
    const claim = { version: row.token_version, lease };
    const ownerId = row.owner_id;
    try {
      let tokens: TokenResponse;
      try {
        tokens = await client.refreshTokens(provider, await sealing.openToken(row, 'refresh_token'));
      } catch (error) {
        if (!(error instanceof TokenEndpointError)) throw error;
        if (error.code !== 'invalid_grant') {
          throw new AppError('UPSTREAM_ERROR', `${provider.label} did not refresh the access token (${error.message})`);
        }
        const reason = error.message;
        if (!(await repo.markNeedsReauth(ownerId, provider.id, claim, reason, isoNow()))) return { kind: 'changed' };
        return await reauthFailed(provider, ownerId, reason);
      }
      const scopes = grantedScopes(tokens, parseScopes(row.scopes));
      const now = isoNow();
      const written = await repo.updateTokens(ownerId, provider.id, claim, {
        access_token_sealed: await sealing.sealToken(ownerId, provider.id, 'access_token', tokens.access_token),
        // A rotated refresh token replaces the old one; without one the old stays valid.
        refresh_token_sealed: tokens.refresh_token
          ? await sealing.sealToken(ownerId, provider.id, 'refresh_token', tokens.refresh_token)
          : row.refresh_token_sealed,
        expires_at: isoIn(lifetimeSeconds(tokens) * 1000),
        scopes: JSON.stringify(scopes),
        refreshed_at: now,
        updated_at: now,
      });
      if (!written) return { kind: 'changed' };
      return { kind: 'ok', result: { accessToken: tokens.access_token, scopes, account: row.account_email } };
    } finally {
      // Whatever happened, the claim ends here (a no-op once the result or needs_reauth is stored).
      await ignoreFailure(repo.releaseRefresh(ownerId, provider.id, lease), 'a claim not released ends with its lease');
    }
  }

  /** Refreshes the connection, unless another request or node already did since `seenVersion` was read. */
  async function refresh(provider: OAuthProviderDefinition, ownerId: string, seenVersion: number): Promise<AccessTokenResult> {
    // Bounded: past one lease a waiter claims the refresh itself, so this is only a safety net.
    const giveUpAt = Date.now() + 2 * deps.refreshLeaseMs;
    let pause = POLL_FIRST_MS;
    for (;;) {
      const row = await repo.getConnection(ownerId, provider.id);
      if (!row) throw notConnected(provider);
      if (row.status === 'needs_reauth') throw needsReauth(provider, row.last_error);
      if (row.token_version !== seenVersion && isFresh(row)) return resultOf(row);
      if (!row.refresh_token_sealed) {
        const reason = 'no refresh token was issued for this connection';
        if (await repo.markNeedsReauth(ownerId, provider.id, { version: row.token_version }, reason, isoNow())) {
          return reauthFailed(provider, ownerId, reason);
        }
        throw needsReauth(provider, reason);
      }
      const lease = randomBytes(16).toString('hex');
      if (await repo.claimRefresh(ownerId, provider.id, row.token_version, lease, isoNow(), isoIn(deps.refreshLeaseMs))) {
        const outcome = await refreshClaimed(provider, row, lease);
        if (outcome.kind === 'ok') return outcome.result;
        // A reconnection or a disconnection landed meanwhile: what is stored now decides.
        seenVersion = row.token_version;
        continue;
      }
      // Another node holds the refresh: its result lands in the row (a new token version).
      if (Date.now() > giveUpAt) {
        throw new AppError('UPSTREAM_ERROR', `The ${provider.label} access token is being refreshed elsewhere and that has not finished; try again shortly`);
      }
      await delay(pause);
      pause = Math.min(pause * 2, POLL_MAX_MS);
    }
  }

  /** Joins the refresh already in flight for this connection, or starts the one. */
  function refreshOnce(provider: OAuthProviderDefinition, ownerId: string, seenVersion: number): Promise<AccessTokenResult> {
    const key = `${ownerId}\u0000${provider.id}`;
    let pending = refreshes.get(key);
    if (!pending) {
      pending = refresh(provider, ownerId, seenVersion).finally(() => refreshes.delete(key));
      refreshes.set(key, pending);
    }
    return pending;
  }

  return {
    /**
     * A usable access token for the owner's connection, refreshed first when it has expired or
     * expires within the margin. A refused refresh token marks the connection `needs_reauth`
     * and answers 403 PROVIDER_NOT_CONNECTED.
     */
    async accessToken(ownerId: string, service: string, options: AccessTokenOptions = {}): Promise<AccessTokenResult> {
      const provider = configuredProvider(providers, service);
      const row = await repo.getConnection(ownerId, provider.id);
      if (!row) throw notConnected(provider);
      if (row.status === 'needs_reauth') throw needsReauth(provider, row.last_error);
      if (isFresh(row)) {
        const current = await sealing.openToken(row, 'access_token');
        if (options.rejected === undefined || options.rejected !== current) return resultOf(row, current);
        // The provider refused the stored token before its time: refresh it now.
      }
      return refreshOnce(provider, ownerId, row.token_version);
    },
  };
}
