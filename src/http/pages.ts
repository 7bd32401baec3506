import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';

/**
 * The server-rendered pages (connecting an account, an app's consent, the return from checkout):
 * one escaping, one shell and one set of headers, so a page cannot forget one of them. Every page
 * is made here, with no script; its policy allows only its own style sheet and the places its
 * forms post to.
 */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe both between tags and inside a quoted attribute value (either quote). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** A page's style sheet, with the hash that lets the policy allow exactly it and no injected one. */
export interface PageStyle {
  readonly css: string;
  readonly source: string;
}

export function pageStyle(css: string): PageStyle {
  return { css, source: `'sha256-${createHash('sha256').update(css, 'utf8').digest('base64')}'` };
}

export interface PageParts {
  /** Plain text; the shell adds " · Hearth". */
  title: string;
  /** HTML: every value in it escaped with escapeHtml by whoever built it. */
  body: string;
  style?: PageStyle | undefined;
  /** Where the page goes by itself, and after how many seconds (a meta refresh: the pages run no script). */
  refresh?: { seconds: number; url: string } | undefined;
  /**
   * Policy sources the page's forms may post to. Browsers also apply form-action to where a
   * form's answer redirects, so a form answered with a redirect names that origin too. A page
   * without forms leaves it out and may post nowhere.
   */
  formAction?: readonly string[] | undefined;
}

export interface Page {
  readonly html: string;
  readonly policy: string;
}

export function renderPage(parts: PageParts): Page {
  const refresh = parts.refresh ? `<meta http-equiv="refresh" content="${escapeHtml(`${parts.refresh.seconds}; url=${parts.refresh.url}`)}">` : '';
  const style = parts.style ? `\n<style>${parts.style.css}</style>` : '';
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8">${refresh}<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(parts.title)} · Hearth</title>${style}</head>
<body>
${parts.body}
</body>
</html>
`;
  const policy = [
    "default-src 'none'",
    ...(parts.style ? [`style-src ${parts.style.source}`] : []),
    `form-action ${parts.formAction?.length ? parts.formAction.join(' ') : "'none'"}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { html, policy };
}

/**
 * Sends a page with the headers every page carries. Their addresses hold a flow's state, a code
 * or a checkout session: no referrer leaves them and nothing keeps a copy; nothing frames them
 * (an Approve button under someone else's page), and the browser reads them only as HTML.
 */
export function sendPage(reply: FastifyReply, page: Page): FastifyReply {
  return reply
    .header('content-security-policy', page.policy)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(page.html);
}
