/**
 * A local website that publishes what real sites publish for machines, in their real formats:
 * - `/`: an HTML page with `<link rel="service-desc" href="/docs/openapi.json">` (RFC 8631);
 * - `/docs/openapi.json`: an OpenAPI 3.0 document with `servers`, `components.securitySchemes`
 *   and a few operations;
 * - `/llms.txt`: the llmstxt.org format (`# Title`, `> summary`, link sections);
 * - `/.well-known/ai-plugin.json`: an AI plugin manifest (schema v1) whose `api.url` points at
 *   an OpenAPI document in YAML (`/plugin/openapi.yaml`).
 * Everything else is 404. Each test may replace or remove any path with `set` / `remove`,
 * and `requests` lists every path asked for (to prove that nothing was fetched).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeResponse {
  status?: number;
  type?: string;
  body?: string;
  headers?: Record<string, string>;
}

export interface FakeWebsite {
  origin: string;
  port: number;
  requests: Array<{ method: string; path: string; accept: string | undefined }>;
  set(path: string, response: FakeResponse): void;
  remove(path: string): void;
  /** Every path answers the same HTML page, as single-page apps do. */
  spaMode(on: boolean): void;
  /** Back to the full site as it started, with no requests recorded. */
  reset(): void;
  close(): Promise<void>;
}

export function openApiDocument(origin: string, extraPaths: Record<string, unknown> = {}) {
  return {
    openapi: '3.0.3',
    info: { title: 'Acme Widgets API', version: '2.1.0', description: 'Create and track widgets.' },
    servers: [{ url: `${origin}/{version}`, variables: { version: { default: 'v1', enum: ['v1'] } } }],
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        oauth: {
          type: 'oauth2',
          flows: { authorizationCode: { authorizationUrl: `${origin}/oauth/authorize`, tokenUrl: `${origin}/oauth/token`, scopes: { read: 'Read' } } },
        },
      },
    },
    security: [{ bearerAuth: [] }],
    paths: {
      '/widgets': {
        get: { operationId: 'listWidgets', summary: 'List widgets', responses: { '200': { description: 'OK' } } },
        post: { operationId: 'createWidget', summary: 'Create a widget', responses: { '201': { description: 'Created' } } },
      },
      '/widgets/{widgetId}': {
        parameters: [{ name: 'widgetId', in: 'path', required: true, schema: { type: 'string' } }],
        get: { operationId: 'getWidget', summary: 'Get a widget', responses: { '200': { description: 'OK' } } },
        delete: { description: 'Delete a widget.\nIt cannot be undone.', responses: { '204': { description: 'Deleted' } } },
      },
      ...extraPaths,
    },
  };
}

const PLUGIN_YAML = (origin: string) => `openapi: 3.1.0
info:
  title: Acme Plugin API
  version: "1.0"
servers:
  - url: ${origin}/plugin-api
paths:
  /search:
    get:
      operationId: searchWidgets
      summary: Search widgets
      responses:
        "200":
          description: OK
`;

export async function startFakeWebsite(): Promise<FakeWebsite> {
  const routes = new Map<string, FakeResponse>();
  const requests: FakeWebsite['requests'] = [];
  let spa = false;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    requests.push({ method: req.method ?? 'GET', path, accept: req.headers.accept });
    const route = spa ? routes.get('/') : routes.get(path);
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end('Not Found');
    }
    res.writeHead(route.status ?? 200, { ...(route.type ? { 'content-type': route.type } : {}), ...route.headers });
    res.end(route.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;

  routes.set('/', {
    type: 'text/html; charset=utf-8',
    body: `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Acme Widgets</title>
  <meta name="description" content="Widgets for everyone">
  <link rel="stylesheet" href="/style.css">
  <link rel="service-desc" type="application/vnd.oai.openapi+json;version=3.0" href="/docs/openapi.json">
  <link rel="service-doc" href="/docs/">
</head>
<body><h1>Acme Widgets</h1></body>
</html>`,
  });
  routes.set('/docs/openapi.json', { type: 'application/vnd.oai.openapi+json;version=3.0', body: JSON.stringify(openApiDocument(origin)) });
  routes.set('/llms.txt', {
    type: 'text/plain; charset=utf-8',
    body: `# Acme Widgets\n\n> Acme makes widgets; this file tells language models where the docs are.\n\n## Docs\n\n- [API reference](${origin}/docs/): every endpoint\n`,
  });
  routes.set('/.well-known/ai-plugin.json', {
    type: 'application/json',
    body: JSON.stringify({
      schema_version: 'v1',
      name_for_human: 'Acme Widgets',
      name_for_model: 'acme_widgets',
      description_for_human: 'Find and manage your widgets.',
      description_for_model: 'Plugin for searching and managing widgets.',
      auth: { type: 'user_http', authorization_type: 'bearer' },
      api: { type: 'openapi', url: `${origin}/plugin/openapi.yaml`, is_user_authenticated: false },
      logo_url: `${origin}/logo.png`,
      contact_email: 'support@acme.example',
      legal_info_url: `${origin}/legal`,
    }),
  });
  routes.set('/plugin/openapi.yaml', { type: 'application/yaml', body: PLUGIN_YAML(origin) });
  const initial = new Map(routes);

  return {
    origin,
    port,
    requests,
    set: (path, response) => void routes.set(path, response),
    remove: (path) => void routes.delete(path),
    spaMode: (on) => {
      spa = on;
    },
    reset: () => {
      routes.clear();
      for (const [path, response] of initial) routes.set(path, response);
      spa = false;
      requests.length = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
