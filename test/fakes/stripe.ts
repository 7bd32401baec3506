/**
 * A local stand-in for the parts of Stripe's API that Hearth uses, honest to the documented
 * wire format:
 * - `POST /v1/checkout/sessions`: `application/x-www-form-urlencoded` with Stripe's bracket
 *   notation (`line_items[0][price_data][recurring][interval]=month`), the secret key as a
 *   bearer token, an optional `Idempotency-Key` (a repeat with the same parameters replays the
 *   first answer with `Idempotent-Replayed: true`; with other parameters it is refused);
 *   answers a `checkout.session` object (`cs_test_…`, `url` on checkout.stripe.com);
 * - errors as Stripe sends them: `{ "error": { "type", "code"?, "message", "param"?, "doc_url"? } }`
 *   with 400 (invalid_request_error), 401 (bad or missing key), 402, 404 or 500 (api_error);
 * - webhook events and their `Stripe-Signature` header, signed as Stripe documents it:
 *   `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>`.
 * Every request is recorded with its parsed parameters so tests can check what Hearth sent.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type StripeParams = { [key: string]: StripeParam };
export type StripeParam = string | StripeParam[] | StripeParams;

export interface RecordedStripeRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  rawBody: string;
  /** The form body, nested as Stripe reads it. */
  params: StripeParams;
}

export interface StripePrice {
  id: string;
  currency: string;
  unit_amount: number;
  recurring: { interval: 'day' | 'week' | 'month' | 'year' } | null;
  active: boolean;
}

export interface StripeCheckoutSession {
  id: string;
  object: 'checkout.session';
  mode: string;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'paid' | 'unpaid' | 'no_payment_required';
  url: string | null;
  success_url: string | null;
  cancel_url: string | null;
  client_reference_id: string | null;
  customer: string | null;
  customer_email: string | null;
  subscription: string | null;
  currency: string | null;
  amount_subtotal: number | null;
  amount_total: number | null;
  metadata: Record<string, string>;
  created: number;
  expires_at: number;
  livemode: boolean;
  [key: string]: unknown;
}

export interface FakeStripe {
  /** `http://127.0.0.1:<port>`: what STRIPE_API_BASE_URL points at. */
  url: string;
  /** The secret key the fake accepts. */
  secretKey: string;
  requests: RecordedStripeRequest[];
  sessions: Map<string, StripeCheckoutSession>;
  /** Prices that exist in this fake account (`line_items[][price]` must name one). */
  prices: Map<string, StripePrice>;
  addPrice(price: Partial<StripePrice> & { id: string }): StripePrice;
  /** The next request answers this status and Stripe error instead (an outage, a decline…). */
  failNext(status: number, error: { type: string; message: string; code?: string; param?: string }): void;
  /**
   * What Stripe does when the customer pays: the session becomes complete and paid, with a
   * customer and a subscription; answers the `checkout.session.completed` event.
   */
  completeSession(sessionId: string, options?: { paymentStatus?: 'paid' | 'unpaid' | 'no_payment_required' }): StripeEvent;
  reset(): void;
  close(): Promise<void>;
}

export interface StripeEvent {
  id: string;
  object: 'event';
  api_version: string;
  created: number;
  data: { object: Record<string, unknown> };
  livemode: boolean;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  type: string;
}

const API_VERSION = '2024-06-20';

function stripeId(prefix: string): string {
  return `${prefix}_${randomBytes(18).toString('base64url').replace(/[-_]/g, 'x')}`;
}

/** An event as Stripe delivers it to a webhook endpoint. */
export function stripeEvent(type: string, object: Record<string, unknown>, overrides: Partial<StripeEvent> = {}): StripeEvent {
  return {
    id: stripeId('evt'),
    object: 'event',
    api_version: API_VERSION,
    created: Math.floor(Date.now() / 1000),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    ...overrides,
  };
}

/**
 * The `Stripe-Signature` header Stripe sends with `payload` (the exact body bytes), computed
 * independently of Hearth's verifier. `extraSignatures` adds more `v1=` entries (as during a
 * secret roll); `timestamp` is unix seconds.
 */
export function signStripePayload(
  payload: string,
  secret: string,
  options: { timestamp?: number; extraSignatures?: string[] } = {},
): string {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const signature = createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex');
  return [`t=${timestamp}`, ...(options.extraSignatures ?? []).map((s) => `v1=${s}`), `v1=${signature}`, `v0=${randomBytes(32).toString('hex')}`].join(',');
}

/** Stripe's bracket notation into nested objects and arrays. */
export function parseStripeForm(body: string): StripeParams {
  const root: StripeParams = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
    if (!match) continue;
    const path = [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!)];
    let node: any = root;
    path.forEach((segment, i) => {
      const last = i === path.length - 1;
      const nextIsIndex = !last && /^\d+$/.test(path[i + 1]!);
      const slot = Array.isArray(node) ? Number(segment) : segment;
      if (last) node[slot] = value;
      else node = node[slot] ??= nextIsIndex ? [] : {};
    });
  }
  return root;
}

class StripeApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: { type: string; message: string; code?: string; param?: string },
  ) {
    super(body.message);
  }
}

function invalid(message: string, param?: string, code?: string): StripeApiError {
  return new StripeApiError(400, {
    type: 'invalid_request_error',
    message,
    ...(code ? { code, doc_url: `https://stripe.com/docs/error-codes/${code.replace(/_/g, '-')}` } : {}),
    ...(param ? { param } : {}),
  } as { type: string; message: string });
}

function missing(param: string): StripeApiError {
  return invalid(`Missing required param: ${param}.`, param, 'parameter_missing');
}

function maskKey(key: string): string {
  const prefix = /^(sk|rk)_(test|live)_/.exec(key)?.[0] ?? key.slice(0, 3);
  return `${prefix}${'*'.repeat(Math.max(4, key.length - prefix.length - 4))}${key.slice(-4)}`;
}

function isUrl(value: string): boolean {
  try {
    const url = new URL(value.replace('{CHECKOUT_SESSION_ID}', 'x'));
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

export async function startFakeStripe(options: { secretKey?: string } = {}): Promise<FakeStripe> {
  const secretKey = options.secretKey ?? 'sk_test_fake';
  const requests: RecordedStripeRequest[] = [];
  const sessions = new Map<string, StripeCheckoutSession>();
  const prices = new Map<string, StripePrice>();
  const idempotent = new Map<string, { fingerprint: string; status: number; body: string }>();
  let failure: { status: number; error: { type: string; message: string; code?: string; param?: string } } | undefined;
  const sockets = new Set<Socket>();

  function addPrice(price: Partial<StripePrice> & { id: string }): StripePrice {
    const full: StripePrice = { currency: 'usd', unit_amount: 900, recurring: { interval: 'month' }, active: true, ...price };
    prices.set(full.id, full);
    return full;
  }

  /** The checks Stripe makes of POST /v1/checkout/sessions, for what Hearth sends. */
  function createSession(params: StripeParams): StripeCheckoutSession {
    const mode = params.mode;
    if (mode === undefined) throw missing('mode');
    if (typeof mode !== 'string' || !['payment', 'setup', 'subscription'].includes(mode)) {
      throw invalid(`Invalid mode: must be one of payment, setup, or subscription`, 'mode');
    }
    const lineItems = params.line_items;
    if (mode !== 'setup' && lineItems === undefined) throw missing('line_items');
    if (lineItems !== undefined && !Array.isArray(lineItems)) throw invalid('Invalid array', 'line_items');
    let currency: string | null = null;
    let total = 0;
    let recurring = false;
    (lineItems ?? []).forEach((raw, i) => {
      const item = raw as StripeParams;
      const at = `line_items[${i}]`;
      if (item.price !== undefined && item.price_data !== undefined) {
        throw invalid(`You may only specify one of these parameters: price, price_data.`, `${at}[price]`);
      }
      if (item.quantity === undefined) throw invalid(`Quantity is required. Add \`quantity\` to \`${at}\``, `${at}[quantity]`, 'parameter_missing');
      const quantity = Number(item.quantity);
      if (!Number.isInteger(quantity) || quantity < 1) throw invalid(`Invalid integer: ${String(item.quantity)}`, `${at}[quantity]`);
      let unit: number;
      if (typeof item.price === 'string') {
        const price = prices.get(item.price);
        if (!price) throw invalid(`No such price: '${item.price}'`, `${at}[price]`, 'resource_missing');
        if (!price.active) throw invalid(`The price specified is inactive. This field only accepts active prices.`, `${at}[price]`);
        currency = price.currency;
        unit = price.unit_amount;
        recurring ||= price.recurring !== null;
      } else if (item.price_data !== undefined) {
        const data = item.price_data as StripeParams;
        if (typeof data.currency !== 'string') throw missing(`${at}[price_data][currency]`);
        if (data.product === undefined && (data.product_data as StripeParams | undefined)?.name === undefined) {
          throw invalid(`You must specify either \`product\` or \`product_data\` when creating a price.`, `${at}[price_data]`);
        }
        if (data.unit_amount === undefined && data.unit_amount_decimal === undefined) throw missing(`${at}[price_data][unit_amount]`);
        unit = Number(data.unit_amount);
        if (!Number.isInteger(unit) || unit < 0) throw invalid(`Invalid integer: ${String(data.unit_amount)}`, `${at}[price_data][unit_amount]`);
        const interval = (data.recurring as StripeParams | undefined)?.interval;
        if (interval !== undefined) {
          if (typeof interval !== 'string' || !['day', 'week', 'month', 'year'].includes(interval)) {
            throw invalid(`Invalid recurring[interval]: must be one of day, month, week, or year`, `${at}[price_data][recurring][interval]`);
          }
          recurring = true;
        }
        currency = data.currency;
      } else {
        throw invalid(`You must specify either \`price\` or \`price_data\` for each line item.`, at);
      }
      total += unit * quantity;
    });
    if (mode === 'subscription' && !recurring) {
      throw invalid('You must provide at least one recurring price in `subscription` mode when using prices.', 'line_items');
    }
    for (const param of ['success_url', 'cancel_url'] as const) {
      const value = params[param];
      if (value !== undefined && (typeof value !== 'string' || !isUrl(value))) throw invalid('Not a valid URL', param, 'url_invalid');
    }
    const email = params.customer_email;
    if (email !== undefined && (typeof email !== 'string' || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email))) {
      throw invalid(`Invalid email address: ${String(email)}`, 'customer_email', 'email_invalid');
    }
    const reference = params.client_reference_id;
    if (reference !== undefined && (typeof reference !== 'string' || reference.length > 200)) {
      throw invalid('client_reference_id must be at most 200 characters', 'client_reference_id');
    }
    const metadata = (params.metadata ?? {}) as Record<string, StripeParam>;
    for (const [key, value] of Object.entries(metadata)) {
      if (key.length > 40) throw invalid(`Metadata keys can have up to 40 characters.`, `metadata[${key}]`);
      if (typeof value !== 'string' || value.length > 500) throw invalid(`Metadata values can have up to 500 characters.`, `metadata[${key}]`);
    }
    const id = `cs_test_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'a')}`;
    const created = Math.floor(Date.now() / 1000);
    const session: StripeCheckoutSession = {
      id,
      object: 'checkout.session',
      mode: mode as string,
      status: 'open',
      payment_status: 'unpaid',
      url: `https://checkout.stripe.com/c/pay/${id}#fidkdWxOYHwnPyd1blpxYHZxWjA0`,
      success_url: (params.success_url as string | undefined) ?? null,
      cancel_url: (params.cancel_url as string | undefined) ?? null,
      client_reference_id: (reference as string | undefined) ?? null,
      customer: null,
      customer_email: (email as string | undefined) ?? null,
      subscription: null,
      currency,
      amount_subtotal: total,
      amount_total: total,
      metadata: metadata as Record<string, string>,
      created,
      expires_at: created + 24 * 3600,
      livemode: false,
    };
    sessions.set(id, session);
    return session;
  }

  function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'request-id': `req_${randomBytes(7).toString('hex')}`,
      'stripe-version': API_VERSION,
      ...headers,
    });
    res.end(body);
  }

  function sendError(res: ServerResponse, error: StripeApiError) {
    send(res, error.status, JSON.stringify({ error: error.body }, null, 2));
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '/').split('?')[0]!;
      const params = parseStripeForm(rawBody);
      requests.push({ method: req.method ?? 'GET', path, headers: req.headers, rawBody, params });

      const auth = req.headers.authorization;
      const key = /^Bearer (.+)$/.exec(auth ?? '')?.[1];
      if (!key) {
        return sendError(
          res,
          new StripeApiError(401, {
            type: 'invalid_request_error',
            message:
              "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.",
          }),
        );
      }
      if (key !== secretKey) {
        return sendError(res, new StripeApiError(401, { type: 'invalid_request_error', message: `Invalid API Key provided: ${maskKey(key)}` }));
      }
      if (failure) {
        const { status, error } = failure;
        failure = undefined;
        return sendError(res, new StripeApiError(status, error));
      }
      if (req.method !== 'POST' || path !== '/v1/checkout/sessions') {
        return sendError(
          res,
          new StripeApiError(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.` }),
        );
      }
      const type = req.headers['content-type'] ?? '';
      if (!type.startsWith('application/x-www-form-urlencoded')) {
        return sendError(res, invalid('Invalid request: the body must be application/x-www-form-urlencoded'));
      }

      const idempotencyKey = req.headers['idempotency-key'];
      const fingerprint = `${path}\n${rawBody}`;
      if (typeof idempotencyKey === 'string') {
        const seen = idempotent.get(idempotencyKey);
        if (seen && seen.fingerprint !== fingerprint) {
          return sendError(
            res,
            new StripeApiError(400, {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
            }),
          );
        }
        if (seen) return send(res, seen.status, seen.body, { 'idempotent-replayed': 'true', 'idempotency-key': idempotencyKey });
      }
      let status: number;
      let body: string;
      try {
        status = 200;
        body = JSON.stringify(createSession(params), null, 2);
      } catch (error) {
        if (!(error instanceof StripeApiError)) throw error;
        status = error.status;
        body = JSON.stringify({ error: error.body }, null, 2);
      }
      if (typeof idempotencyKey === 'string') idempotent.set(idempotencyKey, { fingerprint, status, body });
      send(res, status, body, typeof idempotencyKey === 'string' ? { 'idempotency-key': idempotencyKey } : {});
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    secretKey,
    requests,
    sessions,
    prices,
    addPrice,
    failNext(status, error) {
      failure = { status, error };
    },
    completeSession(sessionId, completeOptions = {}) {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`no checkout session ${sessionId} in the fake`);
      session.status = 'complete';
      session.payment_status = completeOptions.paymentStatus ?? 'paid';
      session.customer = stripeId('cus');
      if (session.mode === 'subscription') session.subscription = stripeId('sub');
      session.url = null;
      return stripeEvent('checkout.session.completed', { ...session });
    },
    reset() {
      requests.length = 0;
      failure = undefined;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
