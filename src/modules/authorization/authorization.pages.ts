import { SCOPES, SCOPE_NAMES } from '../permissions/permissions.scopes.js';
import { escapeHtml, pageStyle, renderPage, type Page } from '../../http/pages.js';
import type { ConsentView } from './authorization.consent.js';
import { WAIT_REFRESH_SECONDS, type WaitingView } from './authorization.console.js';

/**
 * The consent page and the page for a request that cannot go back to its client. Server-made
 * HTML with one inline style sheet, no script, no image, nothing from elsewhere: it works
 * without JavaScript and on a phone, and its policy (sendPage) lets it load nothing but that
 * sheet and post only here.
 */

const STYLE = pageStyle(`
body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f;background:#fff}
h1{font-size:1.4rem;margin:.5rem 0 1rem}.who{background:#f4f4f6;border-radius:.5rem;padding:.75rem 1rem}
.warn{background:#fff4e5;border-left:4px solid #e08a00;padding:.5rem .75rem;margin:1rem 0}.error{background:#fdecea;border-left:4px solid #c62828;padding:.5rem .75rem;margin:1rem 0}
fieldset{border:1px solid #ddd;border-radius:.5rem;margin:1rem 0;padding:.5rem 1rem}legend{font-weight:600}
.scope{display:flex;gap:.6rem;align-items:flex-start;margin:.6rem 0}.scope input{margin-top:.3rem;width:1.1rem;height:1.1rem;flex:none}
.scope small{display:block;color:#555}label.field{display:block;margin:.75rem 0 .25rem}input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.6rem;font-size:1rem;border:1px solid #bbb;border-radius:.4rem}
.actions{display:flex;gap:.75rem;margin:1.25rem 0}button{flex:1;padding:.75rem;font-size:1rem;border-radius:.4rem;border:1px solid #888;background:#fff}
button.approve{background:#1a5fd0;border-color:#1a5fd0;color:#fff;font-weight:600}code{font-size:.9em}
.or{border-top:1px solid #ddd;margin-top:1.5rem;padding-top:.5rem}h2{font-size:1.1rem;margin:.75rem 0 .25rem}
`);

/** Asks the owner to sign in and approve or deny a client's request, scope by scope. */
export function consentPage(view: ConsentView, options: { formAction: string; error?: string | undefined; email?: string | undefined }): Page {
  const { client } = view;
  const requested = new Set<string>(view.requestedScopes);
  const scopes = SCOPE_NAMES.map((name) => {
    const id = `scope-${name.replace(/[^a-z]/g, '-')}`;
    return `<div class="scope"><input type="checkbox" id="${id}" name="scope" value="${escapeHtml(name)}"${requested.has(name) ? ' checked' : ''}><label for="${id}"><code>${escapeHtml(name)}</code>${requested.has(name) ? ' (asked for)' : ''}<small>${escapeHtml(SCOPES[name])}</small></label></div>`;
  }).join('\n');
  const registered = new Date(client.registeredAt).toUTCString();
  const body = `<h1>${escapeHtml(client.name)} wants to use your Hearth</h1>
<div class="who"><p><strong>${escapeHtml(client.name)}</strong> will receive access at <strong>${escapeHtml(client.redirectHost)}</strong>.</p>
<p>Known by its ${escapeHtml(client.knownBy)}${client.documentHost ? `, published at <strong>${escapeHtml(client.documentHost)}</strong>,` : ''} since ${escapeHtml(registered)}.</p></div>
${client.newlyRegistered ? '<p class="warn">This app registered itself with Hearth in the last 24 hours. Approve only if you just connected it yourself.</p>' : ''}
${options.error ? `<p class="error" role="alert">${escapeHtml(options.error)}</p>` : ''}
<form method="post" action="${escapeHtml(options.formAction)}">
<input type="hidden" name="request_id" value="${escapeHtml(view.requestId)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<fieldset><legend>What it may do</legend>
<p>The app asked for what is ticked. Untick what it should not have, or tick more.</p>
${scopes}
</fieldset>
<label class="field" for="email">Your Hearth email</label>
<input id="email" name="email" type="email" autocomplete="username"${options.email ? ` value="${escapeHtml(options.email)}"` : ''}>
<label class="field" for="password">Your Hearth password</label>
<input id="password" name="password" type="password" autocomplete="current-password">
<div class="actions"><button type="submit" name="decision" value="deny">Deny</button><button class="approve" type="submit" name="decision" value="approve">Approve</button></div>
</form>
<form method="post" action="${escapeHtml(options.formAction)}" class="or">
<input type="hidden" name="request_id" value="${escapeHtml(view.requestId)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<h2>Or approve from your Hearth console</h2>
<p>No password here: the request appears in your console, signed in on another device or tab, and you choose the scopes there. This page goes on by itself once you decide.</p>
<label class="field" for="console-email">Email of your Hearth account</label>
<input id="console-email" name="email" type="email" autocomplete="username">
<div class="actions"><button type="submit" name="decision" value="console">Send to my console</button></div>
</form>
<p><small>You can revoke this access any time: it is listed among your tokens as <code>${escapeHtml(client.name)}</code>.</small></p>`;
  // The form posts here, and its answer redirects to the one client address the request was
  // opened for (or to the waiting page here): browsers hold that redirect to form-action too.
  return renderPage({ title: `Allow ${client.name}?`, body, style: STYLE, formAction: ["'self'", view.redirectOrigin] });
}

/**
 * Waits for the owner's decision in the console. It reloads itself (a meta refresh: the page runs
 * no script) until the decision is there; the server then sends the browser on to the client.
 */
export function waitingPage(view: WaitingView): Page {
  const until = new Date(view.expiresAt).toUTCString();
  const body = `<h1>Waiting for your decision in the Hearth console</h1>
<div class="who"><p><strong>${escapeHtml(view.clientName)}</strong> asks to use your Hearth, with access sent to <strong>${escapeHtml(view.redirectHost)}</strong>.</p></div>
<p>Open your Hearth console: the request is on its home page, under “Apps asking to connect”. Approve it there, and this page continues by itself.</p>
<p><small>This page checks every ${WAIT_REFRESH_SECONDS} seconds. The request expires at ${escapeHtml(until)}.</small></p>`;
  return renderPage({ title: 'Waiting for your decision', body, style: STYLE, refresh: { seconds: WAIT_REFRESH_SECONDS, url: view.refreshPath } });
}

/** A request that cannot be sent back to its client (unknown client or redirect address, a stale form). */
export function errorPage(message: string): Page {
  return renderPage({
    title: 'Cannot continue',
    style: STYLE,
    body: `<h1>This request cannot continue</h1>\n<p class="error">${escapeHtml(message)}</p>\n<p>Nothing was approved. You can close this window.</p>`,
  });
}
