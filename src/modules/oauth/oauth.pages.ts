import { escapeHtml, pageStyle, renderPage, type Page } from '../../http/pages.js';
import type { BrowserBindingCookie } from './oauth.connect.js';

/**
 * The browser side of the connect flow: its three pages (sent with the headers of every page,
 * sendPage) and the binding cookie's header.
 */

// One sheet for the three pages; its hash is what their policy allows.
const STYLE = pageStyle('body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}code{font-size:.9em}label,input,button{display:block;margin:.5rem 0}');

/** The page the owner's browser lands on after consenting. Nothing on it loads or links anywhere. */
export function connectedPage(label: string, account: string | null, scopes: string[]): Page {
  const who = account ? `<strong>${escapeHtml(account)}</strong>` : `your ${escapeHtml(label)} account`;
  return renderPage({
    title: `${label} connected`,
    style: STYLE,
    body: `<h1>${escapeHtml(label)} connected</h1>
<p>Hearth is now connected to ${who}.</p>
<p>Granted: ${scopes.map((s) => `<code>${escapeHtml(s)}</code>`).join(', ') || 'nothing'}.</p>
<p>You can close this window. Agents with the <code>services:read</code> or <code>services:write</code> scope can now use it; <code>GET /api/v1/oauth/status</code> shows the connection.</p>`,
  });
}

/**
 * Where the owner signs in to start connecting: the answer of GET /oauth/authorize points here.
 * It names the Hearth account the provider's account will be connected to. Its form posts to
 * this server, which answers with a page, not a redirect.
 */
export function connectPage(label: string, account: string | null, formAction: string, state: string): Page {
  const who = account ? `<strong>${escapeHtml(account)}</strong>` : 'this Hearth account';
  return renderPage({
    title: `Connect ${label}`,
    style: STYLE,
    formAction: ["'self'"],
    body: `<h1>Connect ${escapeHtml(label)} to Hearth</h1>
<p>This connects a ${escapeHtml(label)} account to the Hearth account ${who}. If that is not your Hearth account, close this window: whoever sent you this link would get access to your ${escapeHtml(label)} account.</p>
<form method="post" action="${escapeHtml(formAction)}">
<input type="hidden" name="state" value="${escapeHtml(state)}">
<label for="password">Your Hearth password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Continue to ${escapeHtml(label)}</button>
</form>`,
  });
}

/** After signing in: the browser goes on to the provider's consent screen (a page, never an HTTP redirect). */
export function continuePage(label: string, providerUrl: string): Page {
  return renderPage({
    title: `Continue to ${label}`,
    style: STYLE,
    refresh: { seconds: 0, url: providerUrl },
    body: `<h1>Continue to ${escapeHtml(label)}</h1>
<p><a id="continue" href="${escapeHtml(providerUrl)}">Continue to ${escapeHtml(label)}'s consent screen</a> if it does not open by itself.</p>`,
  });
}

/** The request's cookies, by name (the first of each name wins). */
export function cookiesOf(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    const name = part.slice(0, eq).trim();
    if (name && !(name in out)) out[name] = part.slice(eq + 1).trim();
  }
  return out;
}

export function cookieHeader(cookie: BrowserBindingCookie): string {
  return `${cookie.name}=${cookie.value}; Path=${cookie.path}; Max-Age=${cookie.maxAgeSeconds}; HttpOnly; SameSite=Lax${cookie.secure ? '; Secure' : ''}`;
}
