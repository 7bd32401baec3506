import { AppError } from '../../http/errors.js';
import type { OutboundClient, OutboundRequest, OutboundResponse } from '../../http/outbound.js';
import type { AccessTokenResult, OAuthService } from '../oauth/oauth.service.js';

/** Google's JSON error answer of its REST APIs (Gmail, Drive). */
interface GoogleErrorBody {
  error?: {
    code?: number;
    message?: string;
    status?: string;
    errors?: Array<{ reason?: string; message?: string; location?: string }>;
    details?: Array<{ reason?: string }>;
  };
}

const RATE_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'quotaExceeded', 'dailyLimitExceeded', 'RATE_LIMIT_EXCEEDED']);
const SCOPE_REASONS = new Set(['insufficientPermissions', 'ACCESS_TOKEN_SCOPE_INSUFFICIENT']);

function reasonsOf(body: GoogleErrorBody): string[] {
  return [...(body.error?.errors ?? []).map((e) => e.reason), ...(body.error?.details ?? []).map((d) => d.reason)].filter(
    (r): r is string => typeof r === 'string',
  );
}

function parseError(response: OutboundResponse): GoogleErrorBody {
  try {
    return JSON.parse(response.text()) as GoogleErrorBody;
  } catch {
    return {};
  }
}

export interface GoogleCall extends Omit<OutboundRequest, 'url'> {
  url: string;
  /** What the path names, for a 404: "Message 18c…". */
  what: string;
}

/**
 * One owner's session with Google's APIs: the connection's access token, sent as a bearer
 * token through the guarded outbound client. A 401 refreshes the token once and retries;
 * Google's error answers become Hearth's codes (404 NOT_FOUND, 403 PROVIDER_NOT_CONNECTED for
 * a missing permission, 400 for what Google refused in the caller's input, 502 otherwise).
 */
export function createGoogleSession(
  deps: { oauth: Pick<OAuthService, 'accessToken'>; outbound: Pick<OutboundClient, 'request'> },
  ownerId: string,
  token: AccessTokenResult,
) {
  let current = token;

  async function send(call: GoogleCall, accessToken: string): Promise<OutboundResponse> {
    const { what: _what, ...request } = call;
    return deps.outbound.request({
      ...request,
      headers: { accept: 'application/json', ...request.headers, authorization: `Bearer ${accessToken}` },
    });
  }

  function failure(response: OutboundResponse, call: GoogleCall): AppError {
    const body = parseError(response);
    const message = body.error?.message ?? `HTTP ${response.status}`;
    const reasons = reasonsOf(body);
    if (response.status === 404) return new AppError('NOT_FOUND', `${call.what} not found`);
    if (response.status === 401) {
      return new AppError(
        'PROVIDER_NOT_CONNECTED',
        `Google refused the connection's access token (${message}): reconnect with GET /api/v1/oauth/authorize/google`,
      );
    }
    if (response.status === 429 || reasons.some((r) => RATE_REASONS.has(r))) {
      const retryAfter = response.headers['retry-after'];
      return new AppError('UPSTREAM_ERROR', `Google is rate-limiting this account (${message}); retry later`, {
        ...(retryAfter ? { headers: { 'Retry-After': retryAfter } } : {}),
      });
    }
    if (response.status === 403 && reasons.some((r) => SCOPE_REASONS.has(r))) {
      return new AppError(
        'PROVIDER_NOT_CONNECTED',
        `The Google connection lacks the permission for this (${message}): reconnect with GET /api/v1/oauth/authorize/google and grant every permission asked`,
      );
    }
    if (response.status === 400) {
      return new AppError('VALIDATION_ERROR', `Google refused the request: ${message}`, {
        details: { upstreamStatus: 400, reasons },
      });
    }
    return new AppError('UPSTREAM_ERROR', `Google answered ${response.status}: ${message}`, {
      details: { upstreamStatus: response.status, reasons },
    });
  }

  return {
    /** Sends the call; answers a 2xx response or throws the mapped error. */
    async request(call: GoogleCall): Promise<OutboundResponse> {
      let response = await send(call, current.accessToken);
      if (response.status === 401) {
        // Expired or revoked before its time: one refresh (shared with concurrent calls), one retry.
        current = await deps.oauth.accessToken(ownerId, 'google', { rejected: current.accessToken });
        response = await send(call, current.accessToken);
      }
      if (response.status >= 200 && response.status < 300) return response;
      throw failure(response, call);
    },

    async json<T>(call: GoogleCall): Promise<T> {
      const response = await this.request(call);
      return response.json<T>();
    },
  };
}

export type GoogleSession = ReturnType<typeof createGoogleSession>;
