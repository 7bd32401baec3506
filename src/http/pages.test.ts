// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { escapeHtml, pageStyle, renderPage, sendPage } from './pages.js';

/** The policy's directives by name. */
function directives(policy: string): Map<string, string> {
  return new Map(policy.split(';').map((part) => {
    const [name, ...sources] = part.trim().split(/\s+/);
    return [name!, sources.join(' ')];
  }));
}

describe('escapeHtml', () => {
  it('writes out the five characters that end text or an attribute value', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });

  it('leaves everything else as it is, and escapes an entity again rather than passing it', () => {
    expect(escapeHtml('Café · “Apps” 💥 a=b;c')).toBe('Café · “Apps” 💥 a=b;c');
    expect(escapeHtml('&lt;script&gt;')).toBe('&amp;lt;script&amp;gt;');
  });
});

describe('renderPage', () => {
  const style = pageStyle('body{color:#222}');

  it('escapes the title, names Hearth, and places the body as given', () => {
    const page = renderPage({ title: '<script>alert(1)</script>', body: '<p>Hello</p>' });
    expect(page.html).toContain('<title>&lt;script&gt;alert(1)&lt;/script&gt; · Hearth</title>');
    expect(page.html).toContain('<body>\n<p>Hello</p>\n</body>');
    expect(page.html).not.toContain('<script');
    expect(page.html.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
  });

  it('allows no style, no form and no base on a page that has none', () => {
    const policy = directives(renderPage({ title: 'Plain', body: '' }).policy);
    expect(Object.fromEntries(policy)).toEqual({
      'default-src': "'none'",
      'form-action': "'none'",
      'base-uri': "'none'",
      'frame-ancestors': "'none'",
    });
  });

  it("allows its style sheet by the hash of exactly the sheet's text", () => {
    const page = renderPage({ title: 'Styled', body: '', style });
    const hash = createHash('sha256').update('body{color:#222}').digest('base64');
    expect(directives(page.policy).get('style-src')).toBe(`'sha256-${hash}'`);
    expect(page.html).toContain('<style>body{color:#222}</style></head>');
    expect(page.policy).not.toContain('unsafe-inline');
  });

  it('lets forms post only where the page says', () => {
    const page = renderPage({ title: 'Form', body: '', formAction: ["'self'", 'http://127.0.0.1:33418'] });
    expect(directives(page.policy).get('form-action')).toBe("'self' http://127.0.0.1:33418");
  });

  it('escapes the address a page refreshes to', () => {
    const page = renderPage({ title: 'Wait', body: '', refresh: { seconds: 3, url: '/authorize/wait?request_id=a&wait="x"' } });
    expect(page.html).toContain('<meta http-equiv="refresh" content="3; url=/authorize/wait?request_id=a&amp;wait=&quot;x&quot;">');
  });
});

describe('sendPage', () => {
  it('sends the page as HTML with its policy and the headers of every page', async () => {
    const app = Fastify();
    const page = renderPage({ title: 'Sent', body: '<p>Sent</p>', style: pageStyle('p{margin:0}') });
    app.get('/page', async (_request, reply) => sendPage(reply.status(400), page));
    const res = await app.inject({ method: 'GET', url: '/page' });
    await app.close();
    expect(res.statusCode).toBe(400);
    expect(res.body).toBe(page.html);
    expect(res.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': page.policy,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
      'x-frame-options': 'DENY',
    });
  });
});
