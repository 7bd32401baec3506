/**
 * Whether an address may receive a secret stored for a website: the rule shared by API
 * discovery (the base address a remote document names), the services engine (before it attaches
 * a discovered API's vault secret) and connectors made by scoped tokens. The address must be
 * - on the website's host or one of its subdomains (api.github.com for https://github.com;
 *   a leading `www.` of either is ignored);
 * - https, or http only when the website itself is http (never a downgrade to cleartext);
 * - on the website's port, when the website's address names one.
 */

/** The host without a leading `www.`: what "the same site" is compared on. */
export function siteHost(hostname: string): string {
  return hostname.toLowerCase().replace(/^www\./, '');
}

/** Why `target` may not receive a secret stored for `websiteUrl`; undefined when it may. */
export function siteBindingRefusal(target: string, websiteUrl: string): string | undefined {
  let url: URL;
  let site: URL;
  try {
    site = new URL(websiteUrl);
  } catch {
    return `the website address ${websiteUrl} is not valid`;
  }
  try {
    url = new URL(target);
  } catch {
    return `${target} is not a valid address`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `${target} is not an http or https address`;
  const tokenSite = siteHost(site.hostname);
  const host = siteHost(url.hostname);
  if (!tokenSite || (host !== tokenSite && !host.endsWith(`.${tokenSite}`))) return `${url.hostname} is not ${tokenSite || 'the website'} or one of its subdomains`;
  if (url.protocol === 'http:' && site.protocol !== 'http:') return `${url.origin} is cleartext http while ${site.origin} is https`;
  if (site.port !== '' && url.port !== site.port) return `${url.host} is not on port ${site.port} of ${site.host}`;
  return undefined;
}
