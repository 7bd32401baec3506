import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CONSOLE_PAGES, SIGNED_OUT_PAGES } from './console.pages.js';
import { access } from '../../http/access.js';
import { AppError } from '../../http/errors.js';
import { encodedBody, loadConsoleFiles, type ConsoleFile, type ConsoleFiles } from './console.files.js';

/**
 * The console's pages run only the console's own script and style files, talk only to this
 * server, and cannot be framed (clickjacking an Approve button) or have their forms redirected.
 * No inline script or style is allowed: an injected `<script>` or `onerror=` does nothing.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE_NAMES = [...CONSOLE_PAGES, ...SIGNED_OUT_PAGES].map((page) => page.path.slice(1)).filter((name) => name !== '');
// Only the console's own page names match: every other address is what it was before the
// console (not found, or 405 where another method is served).
const PAGE_PATTERN = `/:page(^(?:${PAGE_NAMES.join('|')})$)`;

const HtmlPage = Type.String({ description: "The console's page (HTML); its script takes over from there" });

function notBuilt(): AppError {
  return new AppError(
    'ROUTE_NOT_FOUND',
    'The console is not built on this server. Run `npm run build` (npm install does it) and start the server again',
  );
}

function send(request: FastifyRequest, reply: FastifyReply, file: ConsoleFile): void {
  const { body, encoding } = encodedBody(file, request.headers['accept-encoding']);
  if (encoding) reply.header('content-encoding', encoding);
  // Caches keep one copy per encoding.
  if (file.br || file.gzip) reply.header('vary', 'accept-encoding');
  reply.header('x-content-type-options', 'nosniff').type(file.type).send(body);
}

/**
 * The owner's console at `/`: its page at each of its addresses (so a reload or a shared link
 * opens the right page) and its hashed script and style files. Everything it shows it fetches
 * from the public API, like any client.
 */
export function consoleRoutes(deps: { publicBaseUrl: string; files?: () => ConsoleFiles }): FastifyPluginAsyncTypebox {
  // Read on first use: a server that never serves the console never reads it.
  let files: ConsoleFiles | undefined;
  const built = () => (files ??= (deps.files ?? loadConsoleFiles)());
  const canonical = new URL(deps.publicBaseUrl);
  const loopback = (hostname: string) => hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]';

  /**
   * The console signs in only from PUBLIC_BASE_URL's origin (its cookie and the Origin check).
   * On a local start that is http://127.0.0.1:8080; someone who opens http://localhost:8080 is
   * sent there, instead of a sign-in that cannot work. Only between loopback names of the same
   * port: behind a proxy the Host header is not second-guessed.
   */
  const elsewhere = (request: FastifyRequest): string | undefined => {
    const host = request.headers.host;
    if (!host || host === canonical.host || !loopback(canonical.hostname)) return undefined;
    let asked: URL;
    try {
      asked = new URL(`${canonical.protocol}//${host}`);
    } catch {
      return undefined;
    }
    if (!loopback(asked.hostname) || asked.port !== canonical.port) return undefined;
    // Only the path and query are kept: a request line in absolute form names no other host here.
    const { pathname, search } = new URL(request.url, canonical.origin);
    return `${canonical.origin}${pathname}${search}`;
  };

  const page = (request: FastifyRequest, reply: FastifyReply): void => {
    const target = elsewhere(request);
    if (target) {
      reply.redirect(target, 302);
      return;
    }
    const index = built().index;
    if (!index) throw notBuilt();
    reply
      // Always asked again, so a new version's script names are picked up at once; the
      // scripts themselves are kept for a year (their names change with their content).
      .header('cache-control', 'no-cache')
      .header('content-security-policy', CONSOLE_CSP)
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'same-origin')
      .header('cross-origin-opener-policy', 'same-origin');
    send(request, reply, index);
  };

  return async (app) => {
    app.get(
      '/',
      {
        config: { access: access.public() },
        schema: {
          operationId: 'getConsole',
          summary: "The owner's console, a web app for everything this API offers (sign in with the account's email and password)",
          tags: ['console'],
          response: { 200: { description: 'An HTML page', content: { 'text/html': { schema: HtmlPage } } } },
        },
      },
      page,
    );

    app.get(
      PAGE_PATTERN,
      {
        config: { access: access.public() },
        schema: {
          operationId: 'getConsolePage',
          summary: `One of the console's pages, opened directly: ${PAGE_NAMES.join(', ')}`,
          tags: ['console'],
          params: Type.Object({ page: Type.Union(PAGE_NAMES.map((name) => Type.Literal(name)), { description: "The page's name" }) }),
          response: { 200: { description: 'An HTML page', content: { 'text/html': { schema: HtmlPage } } } },
        },
      },
      page,
    );

    app.get(
      '/assets/:file',
      {
        config: { access: access.public() },
        schema: {
          operationId: 'getConsoleAsset',
          summary: "A script, style or image of the console; its name carries its content's hash, so it is kept for a year",
          tags: ['console'],
          params: Type.Object({ file: Type.String({ description: 'The file name, as the console page names it', maxLength: 200 }) }),
          response: { 200: { description: 'The file', content: { 'text/javascript': { schema: Type.String() }, 'text/css': { schema: Type.String() } } } },
        },
      },
      (request, reply) => {
        const console = built();
        if (!console.index) throw notBuilt();
        const file = console.asset(request.params.file);
        if (!file) throw new AppError('NOT_FOUND', `The console has no file ${request.params.file}; reload the console to get the current version's files`);
        reply.header('cache-control', 'public, max-age=31536000, immutable');
        send(request, reply, file);
      },
    );
  };
}
