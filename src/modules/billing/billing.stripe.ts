import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError, InputError } from '../../http/errors.js';
import type { OutboundClient } from '../../http/outbound.js';

/**
 * Stripe, spoken directly over its REST API (no SDK): form-encoded requests with the secret
 * key as a bearer token, JSON answers, errors as `{ "error": { type, code?, message, param? } }`.
 * Every call goes through the guarded outbound client.
 */

/** The API version Hearth is written against; pinned so answers keep their shape. */
export const STRIPE_API_VERSION = '2024-06-20';

/** Webhook timestamps older (or newer) than this are refused: Stripe's own default tolerance. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

export type FormValue = string | number | boolean | null | undefined | FormValue[] | { [key: string]: FormValue };

/**
 * Stripe's form encoding: nested objects and arrays in bracket notation
 * (`line_items[0][price]=…`, `metadata[planId]=…`). Brackets stay literal, as Stripe's own
 * libraries send them; null and undefined are left out.
 */
export function encodeStripeForm(params: Record<string, FormValue>): string {
  const pairs: string[] = [];
  const walk = (key: string, value: FormValue): void => {
    if (value === null || value === undefined) return;
    if (Array.isArray(value)) return value.forEach((item, i) => walk(`${key}[${i}]`, item));
    if (typeof value === 'object') return Object.entries(value).forEach(([k, v]) => walk(`${key}[${k}]`, v));
    const encodedKey = encodeURIComponent(key).replace(/%5B/g, '[').replace(/%5D/g, ']');
    pairs.push(`${encodedKey}=${encodeURIComponent(String(value))}`);
  };
  for (const [key, value] of Object.entries(params)) walk(key, value);
  return pairs.join('&');
}

export interface StripeCheckoutSession {
  id: string;
  url: string;
}

interface StripeErrorBody {
  error?: { type?: string; code?: string; message?: string; param?: string };
}

export function createStripeClient(deps: { outbound: Pick<OutboundClient, 'request'>; secretKey: string; apiBaseUrl: string }) {
  async function post<T>(path: string, params: Record<string, FormValue>, idempotencyKey: string): Promise<T> {
    let response: Awaited<ReturnType<OutboundClient['request']>>;
    try {
      response = await deps.outbound.request({
        method: 'POST',
        url: `${deps.apiBaseUrl}${path}`,
        headers: {
          authorization: `Bearer ${deps.secretKey}`,
          'content-type': 'application/x-www-form-urlencoded',
          'idempotency-key': idempotencyKey,
          'stripe-version': STRIPE_API_VERSION,
          accept: 'application/json',
        },
        body: encodeStripeForm(params),
        // Redirects would carry the secret key elsewhere; Stripe's API never redirects.
        followRedirects: false,
      });
    } catch (error) {
      // The guarded client refusing the address (STRIPE_API_BASE_URL on a private network) is
      // the server's setting, not the caller's mistake: an upstream failure, like a timeout.
      if (error instanceof AppError && error.code !== 'UPSTREAM_ERROR') {
        throw new AppError('UPSTREAM_ERROR', `Stripe could not be called: ${error.message}`, { cause: error });
      }
      throw error;
    }
    if (response.status >= 200 && response.status < 300) return response.json<T>();
    let stripeError: StripeErrorBody['error'];
    try {
      stripeError = response.json<StripeErrorBody>().error;
    } catch {
      stripeError = undefined;
    }
    // A refused key: Stripe's message quotes part of it, which is not the caller's to see.
    const message =
      response.status === 401
        ? "Stripe does not accept this server's secret key; the operator must check STRIPE_SECRET_KEY"
        : (stripeError?.message ?? `Stripe answered HTTP ${response.status}`);
    throw new AppError('UPSTREAM_ERROR', `Stripe refused the request: ${message}`, {
      details: {
        provider: 'stripe',
        status: response.status,
        ...(stripeError?.type ? { type: stripeError.type } : {}),
        ...(stripeError?.code ? { code: stripeError.code } : {}),
        ...(stripeError?.param ? { param: stripeError.param } : {}),
      },
    });
  }

  return {
    /** POST /v1/checkout/sessions: answers the session's id and the hosted page's url. */
    async createCheckoutSession(params: Record<string, FormValue>, idempotencyKey: string): Promise<StripeCheckoutSession> {
      const session = await post<{ id?: unknown; url?: unknown }>('/v1/checkout/sessions', params, idempotencyKey);
      if (typeof session.id !== 'string' || typeof session.url !== 'string') {
        throw new AppError('UPSTREAM_ERROR', 'Stripe answered a checkout session without an id or url');
      }
      return { id: session.id, url: session.url };
    },
  };
}

/**
 * Checks a `Stripe-Signature` header the way Stripe documents it: `t=<unix seconds>` and one or
 * more `v1=<hex HMAC-SHA256>` over `<t>.<raw body>` with the endpoint's signing secret,
 * compared in constant time; any matching v1 is enough (several appear while a secret is being
 * rolled). A timestamp further than the tolerance from now is refused, which bounds replays.
 * Throws 400 VALIDATION_ERROR naming what is wrong.
 */
export function verifyStripeSignature(
  rawBody: Buffer,
  header: string | undefined,
  secret: string,
  options: { toleranceSeconds?: number; nowMs?: number } = {},
): void {
  // The signature is named as the header that carries it; the route places it among the headers.
  const refuse = (why: string) => new InputError('stripe-signature', why, `Stripe webhook refused: ${why}`);
  if (!header) throw refuse('the Stripe-Signature header is missing');
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase());
  }
  if (timestamp === undefined) throw refuse('the Stripe-Signature header has no timestamp (t=…)');
  if (signatures.length === 0) throw refuse('the Stripe-Signature header has no v1 signature');
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  const matches = signatures.some((candidate) => timingSafeEqual(Buffer.from(candidate, 'hex'), expected));
  if (!matches) throw refuse('no signature matches the payload; check STRIPE_WEBHOOK_SECRET and that the body reaches the server unchanged');
  const tolerance = options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.nowMs ?? Date.now()) / 1000);
  if (Math.abs(nowSeconds - timestamp) > tolerance) {
    throw refuse(`the signature's timestamp is more than ${tolerance} s from the server's clock (a replayed or delayed delivery)`);
  }
}
