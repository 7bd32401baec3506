/** API discovery, the small documents: an AI plugin manifest and an llms.txt. */
import type { OutboundResponse } from '../../http/outbound.js';
import type { ApiAuthScheme, ApiDocumentRef } from './vault.schemas.js';
import { isObject, type Json, looksLikeHtml, ok, type SiteMeta, str } from './vault.discovery.common.js';

/** What an AI plugin manifest gave. */
export interface ManifestFindings {
  ref: ApiDocumentRef;
  manifest: Json;
  /** Its `api.url`, resolved against the manifest: a candidate for the second round of fetches. */
  apiUrl?: string;
}

/**
 * `/.well-known/ai-plugin.json`, if it is a manifest. Any JSON object could be served there, so
 * one counts only with a field a manifest has (schema_version, api, name_for_human).
 */
export function readManifest(response: OutboundResponse | undefined): ManifestFindings | undefined {
  if (!ok(response) || looksLikeHtml(response)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.text()) as unknown;
  } catch {
    return undefined; // not JSON: no manifest
  }
  if (!isObject(parsed) || !(str(parsed.schema_version) || isObject(parsed.api) || str(parsed.name_for_human))) return undefined;
  const findings: ManifestFindings = { ref: { kind: 'ai-plugin', url: response.url }, manifest: parsed };
  const apiUrl = isObject(parsed.api) ? str(parsed.api.url) : undefined;
  if (apiUrl) {
    try {
      findings.apiUrl = new URL(apiUrl, response.url).toString();
    } catch {
      // not an address
    }
  }
  return findings;
}

/** A manifest's auth as a scheme, used only when the OpenAPI document names none. */
export function manifestAuthSchemes(manifest: Json): ApiAuthScheme[] {
  if (!isObject(manifest.auth)) return [];
  const type = str(manifest.auth.type);
  if (type === 'user_http' || type === 'service_http') {
    const scheme = str(manifest.auth.authorization_type)?.toLowerCase();
    return [{ name: 'ai-plugin', type: 'http', ...(scheme ? { scheme } : {}) }];
  }
  if (type === 'oauth') return [{ name: 'ai-plugin', type: 'oauth2' }];
  return [];
}

/** What an llms.txt gave. */
export interface LlmsFindings {
  ref: ApiDocumentRef;
  meta: SiteMeta;
}

/** `/llms.txt` (llmstxt.org), if the site has one: not an HTML page, and not empty. */
export function readLlmsTxt(response: OutboundResponse | undefined): LlmsFindings | undefined {
  if (!ok(response) || looksLikeHtml(response) || response.body.length === 0) return undefined;
  return { ref: { kind: 'llms', url: response.url }, meta: parseLlmsTxt(response.text()) };
}

/** llms.txt: `# Title`, then an optional `> summary` block quote. */
function parseLlmsTxt(text: string): SiteMeta {
  const lines = text.split(/\r?\n/);
  const title = lines.find((l) => /^#\s+/.test(l))?.replace(/^#\s+/, '');
  const quote = lines.filter((l) => /^>\s?/.test(l)).map((l) => l.replace(/^>\s?/, ''));
  return { ...(title ? { title } : {}), ...(quote.length ? { description: quote.join(' ') } : {}) };
}
