/**
 * A local stand-in for a third-party HTTP API, for the services proxy, execute and connectors.
 * It records every request it receives (so a test can prove that nothing reached it) and
 * answers by path:
 * - `/secure/…`   needs the API key (as `Authorization: Bearer`, raw `Authorization`,
 *                 `X-Api-Key`, or `?api_key=` / `?appid=`); 401 with a JSON error otherwise,
 *                 then echoes like `/echo`
 * - `/text`       text/plain
 * - `/binary`     application/octet-stream, the bytes 0..255
 * - `/redirect`   302 to `/echo/landed` (or to `?to=`)
 * - `/fail`       500 with a JSON error body
 * - `/missing`    404 with a JSON error body
 * - `/empty`      204, no body
 * - `/leak`       echoes, and also repeats the request's credentials in answer headers and a
 *                 Set-Cookie, as a careless or hostile API might
 * - `/openapi.json` a small OpenAPI 3 document (for API discovery of a vault token)
 * - anything else: 200 JSON echo `{ method, path, query, headers, body, json }`
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** The raw request target, path and query as sent. */
  url: string;
  path: string;
  query: Record<string, string[]>;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface FakeUpstream {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  apiKey: string;
  requests: RecordedRequest[];
  /** The OpenAPI document served at /openapi.json; its servers[0] is `url` + `/api`. */
  openapi: Record<string, unknown>;
  close(): Promise<void>;
}

function queryOf(url: URL): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [key, value] of url.searchParams) (out[key] ??= []).push(value);
  return out;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of req) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

export async function startFakeUpstream(options: { apiKey?: string } = {}): Promise<FakeUpstream> {
  const apiKey = options.apiKey ?? 'upstream-key-3f9a1c77d2';
  const requests: RecordedRequest[] = [];
  let base = '';
  const openapi: Record<string, unknown> = {
    openapi: '3.0.3',
    info: { title: 'Fake Widgets API', version: '1.0.0', description: 'Widgets for tests' },
    servers: [] as Array<{ url: string }>,
    components: { securitySchemes: { keyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } } },
    security: [{ keyHeader: [] }],
    paths: {
      '/widgets': {
        get: { operationId: 'listWidgets', summary: 'List widgets' },
        post: { operationId: 'createWidget', summary: 'Create a widget' },
      },
      '/widgets/{widgetId}': { get: { operationId: 'getWidget', summary: 'Read a widget' } },
    },
  };

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake.local');
    const body = await readBody(req);
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      path: url.pathname,
      query: queryOf(url),
      headers: { ...req.headers },
      body,
    };
    requests.push(recorded);
    const json = (status: number, value: unknown, headers: Record<string, string | string[]> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(value));
    };
    const echo = (headers: Record<string, string | string[]> = {}) => {
      let parsed: unknown = null;
      try {
        parsed = body ? JSON.parse(body) : null;
      } catch {
        parsed = null;
      }
      json(200, { method: recorded.method, path: recorded.path, rawUrl: recorded.url, query: recorded.query, headers: recorded.headers, body, json: parsed }, {
        'x-request-id': 'req-123',
        'x-ratelimit-remaining': '4999',
        ...headers,
      });
    };

    const path = url.pathname.replace(/^\/api(?=\/)/, '');
    if (path.startsWith('/secure/')) {
      const auth = req.headers.authorization;
      const presented =
        (auth?.startsWith('Bearer ') ? auth.slice(7) : auth) ?? req.headers['x-api-key'] ?? url.searchParams.get('api_key') ?? url.searchParams.get('appid');
      if (presented !== apiKey) {
        return json(401, { error: { code: 'invalid_api_key', message: 'Invalid API key provided' } }, { 'www-authenticate': 'Bearer realm="fake"' });
      }
      return echo();
    }
    switch (path) {
      case '/openapi.json':
        return json(200, openapi);
      case '/text':
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        return res.end('plain text answer');
      case '/binary':
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return res.end(Buffer.from(Array.from({ length: 256 }, (_, i) => i)));
      case '/redirect':
        res.writeHead(302, { location: url.searchParams.get('to') ?? `${base}/echo/landed` });
        return res.end();
      case '/fail':
        return json(500, { error: { code: 'internal', message: 'Something broke upstream' } });
      case '/missing':
        return json(404, { error: { code: 'not_found', message: 'No such thing' } });
      case '/empty':
        res.writeHead(204);
        return res.end();
      case '/leak':
        return echo({
          'set-cookie': ['session=abc123; HttpOnly', 'other=1'],
          'x-echo-authorization': String(req.headers.authorization ?? ''),
          'x-echo-seen': String(req.headers.authorization ?? ''),
          'x-echo-key': String(req.headers['x-api-key'] ?? url.searchParams.get('api_key') ?? ''),
          'x-session-token': 'sess-secret',
          location: `${base}/somewhere?api_key=${encodeURIComponent(url.searchParams.get('api_key') ?? '')}`,
        });
      default:
        return echo();
    }
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  (openapi.servers as Array<{ url: string }>).push({ url: `${base}/api` });
  return {
    url: base,
    port,
    apiKey,
    requests,
    openapi,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
