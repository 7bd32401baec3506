/**
 * API discovery, page phase: the website's page is either an OpenAPI document itself or HTML whose
 * head gives a title, a description and `<link rel="service-desc">` links (RFC 8631).
 */
import type { OutboundResponse } from '../../http/outbound.js';
import type { ParsingPool } from '../parsing/parsing.pool.js';
import { looksLikeHtml, ok, type SiteMeta } from './vault.discovery.common.js';
import { type OpenApiDocument, parseOpenApi } from './vault.discovery.openapi.js';

/** What the page gave. */
export interface PageFindings {
  /** The page, when it is an OpenAPI document: the first choice of all. */
  openApi?: OpenApiDocument;
  meta: SiteMeta;
  /** Its service-desc links: candidates for the second round of fetches. */
  links: string[];
}

export async function readPage(response: OutboundResponse | undefined, parsing: Pick<ParsingPool, 'parseYaml'>, ownerId: string): Promise<PageFindings> {
  if (!ok(response)) return { meta: {}, links: [] };
  const doc = await parseOpenApi(response, parsing, ownerId);
  if (doc) return { openApi: { url: response.url, doc }, meta: {}, links: [] };
  if (!looksLikeHtml(response)) return { meta: {}, links: [] };
  const html = response.text();
  return { meta: htmlMeta(html), links: serviceDescLinks(html, response.url) };
}

/** How much of a page is read for its head tags: the title, meta and link tags come first. */
const HEAD_SCAN_CHARS = 64 * 1024;
/** At most this many `service-desc` links of a page are fetched. */
const MAX_SERVICE_DESC_LINKS = 3;

interface HeadTag {
  name: string;
  attrs: Map<string, string>;
  /** A <title>'s text. */
  text?: string;
}

/**
 * Where a tag whose name starts at `from` ends: its first `>` outside a quoted attribute value,
 * or -1. A value whose quote never closes ends the tag at the next `>` (`lastQuote` says where
 * the page's last quote of each kind is, so an unclosed one is seen without scanning to the end).
 */
function tagEnd(page: string, from: number, lastQuote: { '"': number; "'": number }): number {
  let afterEquals = false;
  for (let i = from; i < page.length; i++) {
    const c = page[i]!;
    if (c === '>') return i;
    if ((c === '"' || c === "'") && afterEquals) {
      if (i >= lastQuote[c]) return page.indexOf('>', i);
      i = page.indexOf(c, i + 1);
      afterEquals = false;
    } else if (c === '=') afterEquals = true;
    else if (!/\s/.test(c)) afterEquals = false;
  }
  return -1;
}

/** A tag's attributes (names lower-cased; the first of a repeated name wins), from the tag's own text. */
function parseAttributes(text: string): Map<string, string> {
  const attrs = new Map<string, string>();
  for (const m of text.matchAll(/([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]*)))?/g)) {
    const name = m[1]!.toLowerCase();
    if (!attrs.has(name)) attrs.set(name, m[2] ?? m[3] ?? m[4] ?? '');
  }
  return attrs;
}

/**
 * The tags of a page's head in one left-to-right scan (indexOf, never a backtracking regex over
 * the remote page): it stops at </head> or after the first 64 KB. Comments and the contents of
 * <script> and <style> are skipped; a <title> keeps its text.
 */
function headTags(html: string): HeadTag[] {
  const page = html.length > HEAD_SCAN_CHARS ? html.slice(0, HEAD_SCAN_CHARS) : html;
  const lower = page.toLowerCase();
  const lastQuote = { '"': page.lastIndexOf('"'), "'": page.lastIndexOf("'") };
  const tags: HeadTag[] = [];
  let at = 0;
  while (at < page.length) {
    const open = page.indexOf('<', at);
    if (open < 0) break;
    if (page.startsWith('<!--', open)) {
      const close = page.indexOf('-->', open + 4);
      if (close < 0) break;
      at = close + 3;
      continue;
    }
    const name = /^(\/?)([a-zA-Z][a-zA-Z0-9:-]*)/.exec(page.slice(open + 1, open + 80));
    if (!name) {
      // <!doctype …> or <?xml …?>: skipped whole; a "<" in text: skipped alone.
      const bang = page[open + 1] === '!' || page[open + 1] === '?';
      const end = bang ? page.indexOf('>', open) : open;
      if (end < 0) break;
      at = end + 1;
      continue;
    }
    const end = tagEnd(page, open + 1, lastQuote);
    if (end < 0) break;
    at = end + 1;
    const tagName = name[2]!.toLowerCase();
    if (name[1]) {
      if (tagName === 'head') break;
      continue;
    }
    if (tagName === 'title' || tagName === 'script' || tagName === 'style') {
      const close = lower.indexOf(`</${tagName}`, at);
      if (close < 0) break;
      if (tagName === 'title') tags.push({ name: tagName, attrs: new Map(), text: page.slice(at, close) });
      at = close;
      continue;
    }
    tags.push({ name: tagName, attrs: parseAttributes(page.slice(open + 1 + name[0].length, end)) });
  }
  return tags;
}

/** `<link rel="service-desc" href="…">` targets in a page's head (at most 3), resolved against it. */
function serviceDescLinks(html: string, base: string): string[] {
  const out: string[] = [];
  for (const tag of headTags(html)) {
    if (out.length >= MAX_SERVICE_DESC_LINKS) break;
    if (tag.name !== 'link') continue;
    const rel = (tag.attrs.get('rel') ?? '').toLowerCase().split(/\s+/);
    const href = tag.attrs.get('href');
    if (!href || !rel.includes('service-desc')) continue;
    try {
      const url = new URL(href.replace(/&amp;/g, '&'), base);
      if ((url.protocol === 'http:' || url.protocol === 'https:') && !out.includes(url.toString())) out.push(url.toString());
    } catch {
      // not an address
    }
  }
  return out;
}

/** The page's first <title> and first <meta name="description">, trimmed; a blank one counts as absent. */
function htmlMeta(html: string): SiteMeta {
  let title: string | undefined;
  let description: string | undefined;
  for (const tag of headTags(html)) {
    if (tag.name === 'title') title ??= tag.text;
    else if (tag.name === 'meta' && (tag.attrs.get('name') ?? '').toLowerCase() === 'description') description ??= tag.attrs.get('content');
  }
  title = title?.trim();
  description = description?.trim();
  return { ...(title ? { title } : {}), ...(description ? { description } : {}) };
}
