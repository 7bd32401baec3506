/**
 * API discovery: what a website publishes for machines. Looks, in parallel and through the
 * guarded outbound client (so SSRF refusals come from it), for
 * - an OpenAPI (3.x) or Swagger (2.0) document, JSON or YAML: the page itself, a
 *   `<link rel="service-desc">` in the page (RFC 8631), the `api.url` of an AI plugin manifest,
 *   and the usual addresses (/openapi.json, /swagger.json, /.well-known/openapi.json,
 *   /api/openapi.json, /v3/api-docs, /openapi.yaml);
 * - `/llms.txt` (llmstxt.org);
 * - an AI plugin manifest (`/.well-known/ai-plugin.json`).
 * Every fetch is small (size caps) and time-bounded.
 *
 * `discover` runs the phases in order: fetchSources, then the readers (readPage in
 * vault.discovery.page.ts, readManifest and readLlmsTxt in vault.discovery.documents.ts),
 * fetchLinked for what the page and the manifest point to, collectOpenApi and readOpenApi
 * (vault.discovery.openapi.ts), and mergeFindings.
 */
import { AppError } from '../../http/errors.js';
import type { OutboundClient, OutboundResponse } from '../../http/outbound.js';
import { siteBindingRefusal } from '../../lib/same-site.js';
import type { ParsingPool } from '../parsing/parsing.pool.js';
import type { ApiDocumentRef, DiscoveredApi } from './vault.schemas.js';
import { clip, type SiteMeta, str } from './vault.discovery.common.js';
import { type LlmsFindings, type ManifestFindings, manifestAuthSchemes, readLlmsTxt, readManifest } from './vault.discovery.documents.js';
import { collectOpenApi, type OpenApiDocument, readOpenApi } from './vault.discovery.openapi.js';
import { readPage } from './vault.discovery.page.js';

export { looksLikeOpenApiYaml, MAX_OPERATIONS } from './vault.discovery.openapi.js';

/**
 * Discoveries one owner may have in flight at once: each makes up to nine fetches of up to
 * 4 MiB together (and a second round for linked documents); another answers 429 RATE_LIMITED.
 */
export const MAX_DISCOVERIES_PER_OWNER = 2;
const OPENAPI_PATHS = ['/openapi.json', '/swagger.json', '/.well-known/openapi.json', '/api/openapi.json', '/v3/api-docs', '/openapi.yaml'];
const LIMITS = { page: 512 * 1024, openapi: 4 * 1024 * 1024, llms: 256 * 1024, plugin: 64 * 1024 };
const ACCEPT = {
  page: 'text/html, application/json;q=0.9, */*;q=0.5',
  plugin: 'application/json',
  llms: 'text/plain, text/markdown;q=0.9, */*;q=0.1',
  openapi: 'application/vnd.oai.openapi+json, application/json, application/yaml;q=0.9, */*;q=0.1',
};

/** The first round's answers; a fetch that failed is undefined. */
interface Sources {
  page: OutboundResponse | undefined;
  plugin: OutboundResponse | undefined;
  llms: OutboundResponse | undefined;
  /** Each well-known OpenAPI address, in OPENAPI_PATHS order (the order of preference), with its answer. */
  wellKnown: Map<string, OutboundResponse | undefined>;
}

/** Everything read from the site, for mergeFindings. */
interface Findings {
  /** The preferred OpenAPI document: the page, a service-desc link, the manifest's api.url, a well-known address. */
  openApi: OpenApiDocument | undefined;
  page: SiteMeta;
  manifest: ManifestFindings | undefined;
  llms: LlmsFindings | undefined;
}

const value = (s: PromiseSettledResult<OutboundResponse> | undefined) => (s?.status === 'fulfilled' ? s.value : undefined);

/** The website's address, refused (400) unless it is an http or https URL. */
function siteOf(websiteUrl: string): URL {
  let site: URL;
  try {
    site = new URL(websiteUrl);
  } catch {
    throw new AppError('VALIDATION_ERROR', `websiteUrl is not a valid address: ${websiteUrl}`);
  }
  if (site.protocol !== 'http:' && site.protocol !== 'https:') {
    throw new AppError('VALIDATION_ERROR', 'websiteUrl must be an http or https address');
  }
  return site;
}

/**
 * The document may come from anywhere (a service-desc link, the plugin's api.url) and name any
 * server, and the token's secret will be sent to baseUrl: the server is kept only on the website's
 * own site (its host or a subdomain, https unless the site is http, its port if it names one);
 * otherwise baseUrl is the site's origin and the server is reported as rejected.
 */
function keptOnSite(server: string | undefined, site: URL): { baseUrl: string; baseUrlRejected?: string } {
  if (server === undefined) return { baseUrl: site.origin };
  if (siteBindingRefusal(server, site.toString()) !== undefined) return { baseUrl: site.origin, baseUrlRejected: server };
  return { baseUrl: server };
}

/**
 * One description from everything read. The title and description come from the first source
 * that has one (the OpenAPI document, the manifest, llms.txt, the page); the manifest's auth
 * stands in only when the document names no scheme.
 */
function mergeFindings(site: URL, { openApi, page, manifest, llms }: Findings): DiscoveredApi {
  const api = openApi ? readOpenApi(openApi) : undefined;
  const documents: ApiDocumentRef[] = [
    ...(openApi ? [{ kind: 'openapi' as const, url: openApi.url }] : []),
    ...(manifest ? [manifest.ref] : []),
    ...(llms ? [llms.ref] : []),
  ];
  const authSchemes = api?.authSchemes.length ? api.authSchemes : manifest ? manifestAuthSchemes(manifest.manifest) : [];
  return {
    title: clip(api?.title ?? str(manifest?.manifest.name_for_human) ?? llms?.meta.title ?? page.title, 200),
    description: clip(api?.description ?? str(manifest?.manifest.description_for_human) ?? llms?.meta.description ?? page.description, 2000),
    ...keptOnSite(api?.baseUrl, site),
    documents,
    authSchemes,
    operationCount: api?.operationCount ?? 0,
    operations: api?.operations ?? [],
  };
}

export interface ApiDiscoveryDeps {
  outbound: Pick<OutboundClient, 'request'>;
  /** Where YAML documents are parsed: a bounded worker, never the request thread. */
  parsing: Pick<ParsingPool, 'parseYaml'>;
  /** Time allowed for each fetch. */
  timeoutMs: number;
}

export function createApiDiscovery(deps: ApiDiscoveryDeps) {
  const { outbound, parsing } = deps;

  async function fetchSmall(url: string, maxBytes: number, accept: string): Promise<OutboundResponse> {
    return outbound.request({ url, maxResponseBytes: maxBytes, timeoutMs: deps.timeoutMs, headers: { accept } });
  }

  /**
   * The first round, all at once: the page, the manifest, llms.txt and the well-known addresses.
   * A refused page address (private network, bad scheme) is the caller's to fix, so its error is
   * thrown as is; when nothing answered at all the site is unreachable (502). Any other failure
   * only means that source has nothing.
   */
  async function fetchSources(site: URL): Promise<Sources> {
    const wellKnownUrls = OPENAPI_PATHS.map((p) => `${site.origin}${p}`);
    const [page, plugin, llms, ...candidates] = await Promise.allSettled([
      fetchSmall(site.toString(), LIMITS.page, ACCEPT.page),
      fetchSmall(`${site.origin}/.well-known/ai-plugin.json`, LIMITS.plugin, ACCEPT.plugin),
      fetchSmall(`${site.origin}/llms.txt`, LIMITS.llms, ACCEPT.llms),
      ...wellKnownUrls.map((url) => fetchSmall(url, LIMITS.openapi, ACCEPT.openapi)),
    ]);
    if (page!.status === 'rejected') {
      const error = page!.reason as unknown;
      if (error instanceof AppError && error.status < 500) throw error;
      if ([page!, plugin!, llms!, ...candidates].every((s) => s.status === 'rejected')) {
        throw error instanceof AppError ? error : new AppError('UPSTREAM_ERROR', `Could not reach ${site.host}`, { cause: error });
      }
    }
    return {
      page: value(page),
      plugin: value(plugin),
      llms: value(llms),
      wellKnown: new Map(wellKnownUrls.map((url, i) => [url, value(candidates[i])])),
    };
  }

  /** The second round, also in parallel: linked documents, each fetched once (a well-known fetch may already have it). */
  async function fetchLinked(links: string[], wellKnown: Sources['wellKnown']): Promise<Array<OutboundResponse | undefined>> {
    const settled = await Promise.allSettled(
      [...new Set(links)].map((url) => {
        const already = wellKnown.get(url);
        return already ? Promise.resolve(already) : fetchSmall(url, LIMITS.openapi, ACCEPT.openapi);
      }),
    );
    return settled.map(value);
  }

  /** `ownerId`: whose share of the parsing pool a YAML document counts against. */
  async function discoverOnce(websiteUrl: string, ownerId: string): Promise<DiscoveredApi> {
    const site = siteOf(websiteUrl);
    const sources = await fetchSources(site);
    const page = await readPage(sources.page, parsing, ownerId);
    const manifest = readManifest(sources.plugin);
    const llms = readLlmsTxt(sources.llms);
    const linked = await fetchLinked([...page.links, ...(manifest?.apiUrl ? [manifest.apiUrl] : [])], sources.wellKnown);
    // Every candidate is parsed, not only until the first document: a YAML one the worker pool
    // is too busy to take answers 429 whichever candidate it is.
    const openApi = [
      ...(page.openApi ? [page.openApi] : []),
      ...(await collectOpenApi(linked, parsing, ownerId)),
      ...(await collectOpenApi([...sources.wellKnown.values()], parsing, ownerId)),
    ][0];
    return mergeFindings(site, { openApi, page: page.meta, manifest, llms });
  }

  const inFlight = new Map<string, number>();
  return {
    /** What `websiteUrl` publishes for machines; at most MAX_DISCOVERIES_PER_OWNER at once for `ownerId`. */
    async discover(websiteUrl: string, ownerId: string): Promise<DiscoveredApi> {
      const running = inFlight.get(ownerId) ?? 0;
      if (running >= MAX_DISCOVERIES_PER_OWNER) {
        throw new AppError('RATE_LIMITED', `Too many API discoveries at once for this account (at most ${MAX_DISCOVERIES_PER_OWNER}); try again in 1 s`, {
          headers: { 'Retry-After': '1' },
          details: { retryAfterSeconds: 1 },
        });
      }
      inFlight.set(ownerId, running + 1);
      try {
        return await discoverOnce(websiteUrl, ownerId);
      } finally {
        const left = (inFlight.get(ownerId) ?? 1) - 1;
        if (left > 0) inFlight.set(ownerId, left);
        else inFlight.delete(ownerId);
      }
    },
  };
}

export type ApiDiscovery = ReturnType<typeof createApiDiscovery>;
