import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import type { Dispatcher } from 'undici';
import { AppError } from './errors.js';

/**
 * The one way Hearth calls the outside world (API discovery, the services proxy, providers,
 * the language model, payments). Everything that leaves the server goes through it:
 * - http and https only;
 * - destinations in loopback, private, link-local (cloud metadata), CGNAT, unspecified,
 *   multicast and reserved ranges are refused after DNS resolution, inside the connection's
 *   own lookup, so the address checked is the address connected to (no rebinding window), and
 *   again on every redirect hop; IPv4-mapped and NAT64 IPv6 forms are unwrapped first;
 * - connect and total timeouts, and a response size cap;
 * - redirects followed by hand (at most 5), each hop checked, credentials dropped when the
 *   origin changes.
 * `allowPrivateNetwork` (ALLOW_PRIVATE_NETWORK) lifts the address rule; `trustedOrigins` lift it
 * for origins the operator configured (a self-hosted language model on localhost).
 */

const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local (incl. fd00:ec2::254, a cloud metadata address)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
  ['2001:db8::', 32], // documentation
  ['100::', 64], // discard
  ['::', 96], // IPv4-compatible (deprecated; [::127.0.0.1] parses to ::7f00:1), never a public destination
  ['2002::', 16], // 6to4: embeds an IPv4 address a relay would reach
  ['2001::', 32], // Teredo: embeds an (obfuscated) IPv4 address
  ['64:ff9b:1::', 48], // NAT64 local use: translated by the local network's own gateway
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

/**
 * The IPv4 address an IPv6 address stands for (IPv4-mapped or NAT64), if any. IPv4-compatible
 * addresses (`::a.b.c.d`) are not unwrapped: the whole deprecated ::/96 range is refused.
 */
function embeddedIPv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:(?:0:)?|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:(?:0:)?|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const high = parseInt(hex[1]!, 16);
    const low = parseInt(hex[2]!, 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return undefined;
}

/** True when the address is one Hearth must not call without ALLOW_PRIVATE_NETWORK. */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIPv4(address);
    if (v4) return BLOCKED.check(v4, 'ipv4');
    return BLOCKED.check(address, 'ipv6');
  }
  return true; // not an address at all
}

/**
 * True when a URL's host (`url.hostname`: brackets and trailing dots allowed) names a place
 * Hearth must not call without ALLOW_PRIVATE_NETWORK, before any DNS lookup: a blocked literal
 * address, or a name in the `localhost` zone, which always means this machine (RFC 6761),
 * whatever its case or trailing dots (`LOCALHOST`, `localhost.`, `foo.localhost`). The URL parser
 * has already turned decimal, octal, hex and short IPv4 forms (`2130706433`, `0x7f.1`, `127.1`)
 * into dotted ones and written IPv4-mapped IPv6 in hex, which isBlockedAddress unwraps. Other
 * names are checked after resolution, on every connection. Webhook creation and the guarded
 * client share this one check, so an address accepted at creation is not refused at delivery
 * for its form alone.
 */
export function isPrivateHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.+$/, '');
  if (host === '' || host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && isBlockedAddress(host);
}

/**
 * The refusal the caller sees. It names only what the caller wrote (the host, which may be a
 * literal address), never what a name resolved to: that would map the internal network.
 */
function blockedError(host: string, how: 'is' | 'resolves to'): AppError {
  return new AppError(
    'VALIDATION_ERROR',
    `Refusing to call ${host}: it ${how} a loopback, private, link-local or reserved address. The server's ALLOW_PRIVATE_NETWORK setting allows such calls`,
    { details: { host } },
  );
}

/** DNS lookup that refuses blocked destinations; used by the guarded dispatcher's connections. */
function guardedLookup(
  hostname: string,
  options: { family?: number | string; all?: boolean },
  callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
): void {
  dnsLookup(hostname, { all: true, family: typeof options.family === 'number' ? options.family : 0 }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses as LookupAddress[];
    const bad = list.find((a) => isBlockedAddress(a.address));
    if (bad || list.length === 0) {
      // net wants an errno-style code on a lookup error; the AppError (code VALIDATION_ERROR)
      // travels as its cause, unchanged, and upstreamFailure finds it there.
      // The resolved address stays out of the message (no logger here to keep it server-side).
      const refusal = blockedError(hostname, 'resolves to');
      const error = Object.assign(new Error(refusal.message, { cause: refusal }), { code: 'EHEARTHBLOCKED' });
      return callback(error as NodeJS.ErrnoException, []);
    }
    if (options.all) return callback(null, list);
    return callback(null, list[0]!.address, list[0]!.family);
  });
}

export interface OutboundOptions {
  allowPrivateNetwork: boolean;
  /** Origins (`http://127.0.0.1:11434`) the operator configured, exempt from the address rule. */
  trustedOrigins?: readonly string[];
  connectTimeoutMs?: number;
  /** Default total time for a request, headers and body included. */
  timeoutMs?: number;
  /** Default largest response body. */
  maxResponseBytes?: number;
  userAgent?: string;
}

export interface OutboundRequest {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Follow redirects (default true). The services proxy passes them back instead. */
  followRedirects?: boolean;
  /** Aborts the request, e.g. when the client that asked for it went away. */
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  /** The address finally answered, after redirects. */
  url: string;
  body: Buffer;
  text(): string;
  json<T = unknown>(): T;
}

export interface OutboundStream {
  status: number;
  headers: Record<string, string>;
  url: string;
  /** The body in chunks; stops with an error past the size cap or the time limit. */
  body: AsyncIterable<Buffer>;
}

const MAX_REDIRECTS = 5;
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export function createOutboundClient(options: OutboundOptions) {
  const connectTimeout = options.connectTimeoutMs ?? 5_000;
  const defaultTimeout = options.timeoutMs ?? 30_000;
  const defaultMaxBytes = options.maxResponseBytes ?? 10 * 1024 * 1024;
  const trusted = new Set((options.trustedOrigins ?? []).map((o) => new URL(o).origin));
  // The connection pools, made on the first outbound call: undici is a large library that most
  // requests never need, and loading it at start-up cost a tenth of a second and megabytes.
  let agents: Promise<{ open: Dispatcher; guarded: Dispatcher }> | undefined;
  let closed = false;
  function pools(): Promise<{ open: Dispatcher; guarded: Dispatcher }> {
    // Closed before any call: refused as a closed pool refuses (undici's own code).
    if (closed && !agents) return Promise.reject(Object.assign(new Error('The outbound client is closed'), { code: 'UND_ERR_CLOSED' }));
    // undici is CommonJS: its exports are the default export both when Node imports it and when
    // the compiled server carries it in a chunk of its own (which has no named exports).
    agents ??= import('undici').then(({ default: { Agent } }) => {
      const open = new Agent({ connect: { timeout: connectTimeout } });
      const guarded = options.allowPrivateNetwork
        ? open
        : new Agent({ connect: { timeout: connectTimeout, lookup: guardedLookup as never } });
      return { open, guarded };
    });
    return agents;
  }

  async function dispatcherFor(url: URL): Promise<Dispatcher> {
    const { open, guarded } = await pools();
    if (trusted.has(url.origin)) return open;
    // A literal address never reaches DNS lookup, so it is checked here; so is the localhost
    // zone, whatever resolver the machine has.
    if (guarded !== open && isPrivateHost(url.hostname)) {
      throw blockedError(url.hostname, isIP(url.hostname.replace(/^\[|\]$/g, '')) ? 'is' : 'resolves to');
    }
    return guarded;
  }

  function parseUrl(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new AppError('VALIDATION_ERROR', `Not a valid address: ${raw}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new AppError('VALIDATION_ERROR', `Only http and https addresses can be called, not ${url.protocol}`);
    }
    if (url.username || url.password) throw new AppError('VALIDATION_ERROR', 'Addresses with credentials in them are not called');
    return url;
  }

  function upstreamFailure(url: URL, error: unknown): AppError {
    if (error instanceof AppError) return error;
    const cause = (error as { cause?: unknown })?.cause ?? error;
    // A refusal from the guarded lookup may sit a few causes deep, depending on how undici wraps it.
    for (let link: unknown = error, depth = 0; link && depth < 4; link = (link as { cause?: unknown }).cause, depth++) {
      if (link instanceof AppError) return link;
    }
    const code = (cause as { code?: string })?.code ?? (error as { code?: string })?.code;
    const name = (error as Error)?.name;
    if (name === 'TimeoutError' || name === 'AbortError' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT') {
      return new AppError('UPSTREAM_ERROR', `${url.host} did not answer in time`, { cause: error });
    }
    return new AppError('UPSTREAM_ERROR', `Could not reach ${url.host}${code ? ` (${code})` : ''}`, { cause: error });
  }

  /** Sends the request and answers once headers arrive; the body streams within the caps. */
  async function openStream(req: OutboundRequest): Promise<OutboundStream> {
    let url = parseUrl(req.url);
    const method = (req.method ?? 'GET').toUpperCase();
    const maxBytes = req.maxResponseBytes ?? defaultMaxBytes;
    const timeout = AbortSignal.timeout(req.timeoutMs ?? defaultTimeout);
    const signal = req.signal ? AbortSignal.any([timeout, req.signal]) : timeout;
    let headers: Record<string, string> = { 'user-agent': options.userAgent ?? 'Hearth', ...req.headers };
    let body = req.body;
    let currentMethod = method;

    for (let hop = 0; ; hop++) {
      let response: Dispatcher.ResponseData;
      try {
        response = await (await dispatcherFor(url)).request({
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: currentMethod as Dispatcher.HttpMethod,
          headers,
          body: body ?? null,
          signal,
          headersTimeout: req.timeoutMs ?? defaultTimeout,
          bodyTimeout: req.timeoutMs ?? defaultTimeout,
        });
      } catch (error) {
        throw upstreamFailure(url, error);
      }
      const responseHeaders = flattenHeaders(response.headers as Record<string, string | string[] | undefined>);
      const location = responseHeaders.location;
      if (req.followRedirects !== false && [301, 302, 303, 307, 308].includes(response.statusCode) && location) {
        await response.body.dump();
        if (hop >= MAX_REDIRECTS) throw new AppError('UPSTREAM_ERROR', `${url.host} redirected more than ${MAX_REDIRECTS} times`);
        const next = parseUrl(new URL(location, url).toString());
        if (next.origin !== url.origin) {
          headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.includes(name.toLowerCase())));
        }
        // 303, and 301/302 after a POST, become a GET without a body, as browsers do.
        if (response.statusCode === 303 || ((response.statusCode === 301 || response.statusCode === 302) && currentMethod === 'POST')) {
          currentMethod = 'GET';
          body = undefined;
          headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !['content-type', 'content-length'].includes(name.toLowerCase())));
        }
        url = next;
        continue;
      }

      // Abandoning a body makes undici emit an abort on it; nobody needs to hear it.
      const abandon = () => {
        response.body.on('error', () => {});
        response.body.destroy();
      };
      const declared = Number(responseHeaders['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        abandon();
        throw new AppError('UPSTREAM_ERROR', `${url.host} answered more than ${maxBytes} bytes`);
      }
      const finalUrl = url;
      async function* chunks(): AsyncIterable<Buffer> {
        let received = 0;
        try {
          for await (const chunk of response.body) {
            received += (chunk as Buffer).length;
            if (received > maxBytes) throw new AppError('UPSTREAM_ERROR', `${finalUrl.host} answered more than ${maxBytes} bytes`);
            yield chunk as Buffer;
          }
        } catch (error) {
          abandon();
          throw upstreamFailure(finalUrl, error);
        }
      }
      return { status: response.statusCode, headers: responseHeaders, url: url.toString(), body: chunks() };
    }
  }

  return {
    open: openStream,

    /** Sends the request and reads the whole (capped) body. */
    async request(req: OutboundRequest): Promise<OutboundResponse> {
      const stream = await openStream(req);
      const parts: Buffer[] = [];
      for await (const chunk of stream.body) parts.push(chunk);
      const body = Buffer.concat(parts);
      return {
        status: stream.status,
        headers: stream.headers,
        url: stream.url,
        body,
        text: () => body.toString('utf8'),
        json: <T>() => {
          try {
            return JSON.parse(body.toString('utf8')) as T;
          } catch {
            throw new AppError('UPSTREAM_ERROR', `${new URL(stream.url).host} answered something that is not JSON`);
          }
        },
      };
    },

    async close(): Promise<void> {
      closed = true;
      if (!agents) return;
      const { open, guarded } = await agents;
      await Promise.all([open.close(), guarded === open ? undefined : guarded.close()]);
    },
  };
}

export type OutboundClient = ReturnType<typeof createOutboundClient>;
