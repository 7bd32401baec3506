/**
 * A local imitation of the Google endpoints Hearth calls, faithful to their documented shapes:
 * - OAuth 2.0: the consent page (`/o/oauth2/v2/auth`, answering the redirect a browser would
 *   follow), `/token` (authorization_code with PKCE S256 checked against the recorded challenge,
 *   refresh_token with optional rotation; RFC 6749 error bodies `{ error, error_description }`),
 *   `/revoke` (200, or 400 `invalid_token`);
 * - Gmail API v1: users.getProfile, users.messages list / get (full, metadata, minimal, raw) /
 *   trash / send, over an in-memory mailbox of real RFC 822 messages parsed into Gmail's
 *   MessagePart tree (base64url bodies in their own charset);
 * - Drive API v3: files list (with `fields` partial responses and a small `q`), multipart
 *   upload, delete;
 * - bearer checks with Google's JSON error body (401 UNAUTHENTICATED for an unknown, expired or
 *   revoked token, 403 insufficient scopes).
 * It counts requests per endpoint so tests can assert, for example, exactly one refresh.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const SCOPE = {
  gmailModify: 'https://www.googleapis.com/auth/gmail.modify',
  gmailReadonly: 'https://www.googleapis.com/auth/gmail.readonly',
  gmailSend: 'https://www.googleapis.com/auth/gmail.send',
  mailAll: 'https://mail.google.com/',
  drive: 'https://www.googleapis.com/auth/drive',
  driveFile: 'https://www.googleapis.com/auth/drive.file',
  calendar: 'https://www.googleapis.com/auth/calendar',
  email: 'https://www.googleapis.com/auth/userinfo.email',
} as const;

const GMAIL_READ = [SCOPE.mailAll, SCOPE.gmailModify, SCOPE.gmailReadonly];
const GMAIL_MODIFY = [SCOPE.mailAll, SCOPE.gmailModify];
const GMAIL_SEND = [SCOPE.mailAll, SCOPE.gmailModify, SCOPE.gmailSend];
const DRIVE_ANY = [SCOPE.drive, SCOPE.driveFile];

export interface FakeGoogleOptions {
  clientId: string;
  clientSecret: string;
  /** The signed-in Google account. */
  account: { email: string; sub: string };
  /** expires_in of issued access tokens (Google: 3599). */
  accessTokenTtlSeconds: number;
  /** Issue a new refresh token on every refresh and invalidate the old one. */
  rotateRefreshTokens: boolean;
  /** Scopes the user unticks on the consent screen (granular consent). */
  withheldScopes: string[];
  /** What the user does on the next consent screens. */
  consent: 'allow' | 'deny';
  /** When set, redirect_uri must be one of these (as in the Cloud console). */
  registeredRedirectUris: string[] | undefined;
}

interface CodeRecord {
  clientId: string;
  redirectUri: string;
  challenge: string;
  scopes: string[];
  offline: boolean;
  expiresAt: number;
  used: boolean;
}

interface Grant {
  id: string;
  scopes: string[];
  revoked: boolean;
  refreshToken: string | undefined;
}

interface AccessRecord {
  grantId: string;
  expiresAt: number;
  revoked: boolean;
}

export interface FakeMessage {
  id: string;
  threadId: string;
  labelIds: string[];
  internalDate: number;
  raw: Buffer;
}

export interface FakeFile {
  id: string;
  name: string;
  mimeType: string;
  parents: string[];
  content: Buffer;
  modifiedTime: string;
  trashed: boolean;
  /** Files made through the API are visible with drive.file; others only with drive. */
  createdByApp: boolean;
}

export interface MessagePart {
  partId: string;
  mimeType: string;
  filename: string;
  headers: Array<{ name: string; value: string }>;
  body: { size: number; data?: string; attachmentId?: string };
  parts?: MessagePart[];
}

// ---------------------------------------------------------------------------------------------
// MIME parsing (what Gmail does to a stored message for format=full)

function splitHeadBody(raw: Buffer): { head: string; body: Buffer } {
  const crlf = raw.indexOf('\r\n\r\n');
  const lf = raw.indexOf('\n\n');
  if (crlf !== -1 && (lf === -1 || crlf <= lf)) return { head: raw.subarray(0, crlf).toString('latin1'), body: raw.subarray(crlf + 4) };
  if (lf !== -1) return { head: raw.subarray(0, lf).toString('latin1'), body: raw.subarray(lf + 2) };
  return { head: raw.toString('latin1'), body: Buffer.alloc(0) };
}

export function parseHeaders(head: string): Array<{ name: string; value: string }> {
  const out: Array<{ name: string; value: string }> = [];
  for (const line of head.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && out.length > 0) {
      out[out.length - 1]!.value += line.replace(/^[ \t]+/, ' ');
    } else {
      const colon = line.indexOf(':');
      if (colon > 0) out.push({ name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() });
    }
  }
  // Header bytes are UTF-8 where they are not ASCII (RFC 6532); latin1 kept them byte for byte.
  return out.map((h) => ({ name: h.name, value: Buffer.from(h.value, 'latin1').toString('utf8') }));
}

function header(headers: Array<{ name: string; value: string }>, name: string): string | undefined {
  return headers.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value;
}

function param(value: string | undefined, name: string): string | undefined {
  if (!value) return undefined;
  const match = new RegExp(`;\\s*${name}\\s*=\\s*("([^"]*)"|[^;\\s]+)`, 'i').exec(value);
  return match ? (match[2] ?? match[1]) : undefined;
}

function decodeQuotedPrintable(body: Buffer): Buffer {
  const text = body.toString('latin1').replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(text.charCodeAt(i) & 0xff);
  }
  return Buffer.from(bytes);
}

function splitMultipart(body: Buffer, boundary: string): Buffer[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Buffer[] = [];
  let index = body.indexOf(delimiter);
  while (index !== -1) {
    let start = index + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    if (body[start] === 0x0d) start += 1;
    if (body[start] === 0x0a) start += 1;
    const next = body.indexOf(delimiter, start);
    if (next === -1) break;
    let end = next;
    if (body[end - 1] === 0x0a) end -= 1;
    if (body[end - 1] === 0x0d) end -= 1;
    parts.push(body.subarray(start, end));
    index = next;
  }
  return parts;
}

export function parseMime(raw: Buffer, partId = ''): MessagePart {
  const { head, body } = splitHeadBody(raw);
  const headers = parseHeaders(head);
  const contentType = header(headers, 'Content-Type') ?? 'text/plain; charset=us-ascii';
  const mimeType = contentType.split(';')[0]!.trim().toLowerCase();
  const filename = param(header(headers, 'Content-Disposition'), 'filename') ?? param(contentType, 'name') ?? '';
  if (mimeType.startsWith('multipart/')) {
    const boundary = param(contentType, 'boundary') ?? '';
    const parts = splitMultipart(body, boundary).map((part, i) => parseMime(part, partId === '' ? String(i) : `${partId}.${i}`));
    return { partId, mimeType, filename, headers, body: { size: 0 }, parts };
  }
  const encoding = (header(headers, 'Content-Transfer-Encoding') ?? '7bit').toLowerCase();
  const bytes =
    encoding === 'base64'
      ? Buffer.from(body.toString('latin1').replace(/\s+/g, ''), 'base64')
      : encoding === 'quoted-printable'
        ? decodeQuotedPrintable(body)
        : body;
  return { partId, mimeType, filename, headers, body: { size: bytes.length, data: bytes.toString('base64url') } };
}

function partText(part: MessagePart): { plain?: string; html?: string } {
  if (part.filename) return {};
  if (part.parts) {
    const found: { plain?: string; html?: string } = {};
    for (const child of part.parts) {
      const t = partText(child);
      found.plain ??= t.plain;
      found.html ??= t.html;
    }
    return found;
  }
  const charset = param(header(part.headers, 'Content-Type'), 'charset') ?? 'utf-8';
  let text: string;
  try {
    text = new TextDecoder(charset).decode(Buffer.from(part.body.data ?? '', 'base64url'));
  } catch {
    text = Buffer.from(part.body.data ?? '', 'base64url').toString('utf8');
  }
  if (part.mimeType === 'text/plain') return { plain: text };
  if (part.mimeType === 'text/html') return { html: text };
  return {};
}

function htmlEscape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Gmail's snippet: the start of the text, whitespace collapsed, HTML-escaped. */
function snippetOf(payload: MessagePart): string {
  const text = partText(payload);
  const plain = text.plain ?? (text.html ?? '').replace(/<[^>]*>/g, ' ');
  return htmlEscape(plain.replace(/\s+/g, ' ').trim().slice(0, 140));
}

// ---------------------------------------------------------------------------------------------
// Building test messages

export interface SimpleMessage {
  from: string;
  to: string;
  subject: string;
  /** text/plain part. */
  text?: string;
  /** text/html part (with text: multipart/alternative). */
  html?: string;
  charset?: string;
  /** Content-Transfer-Encoding of the text parts. */
  transferEncoding?: 'base64' | 'quoted-printable' | '8bit';
  /** A file attached after the text (multipart/mixed). */
  attachment?: { filename: string; mimeType: string; content: Buffer };
  date?: Date;
}

function encodeBody(text: string, charset: string, cte: SimpleMessage['transferEncoding']): string {
  const bytes = charset.toLowerCase() === 'utf-8' ? Buffer.from(text, 'utf8') : Buffer.from(text, 'latin1');
  if (cte === 'base64') return (bytes.toString('base64').match(/.{1,76}/g) ?? []).join('\r\n');
  if (cte === 'quoted-printable') {
    let out = '';
    for (const byte of bytes) {
      if (byte === 0x0a) out += '\n';
      else if (byte === 0x0d) continue;
      else if ((byte >= 33 && byte <= 126 && byte !== 61) || byte === 32) out += String.fromCharCode(byte);
      else out += `=${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
    return out.replace(/\n/g, '\r\n');
  }
  return bytes.toString('latin1').replace(/\r?\n/g, '\r\n');
}

/** An RFC 822 message with real MIME structure, as a mail client would send it. */
export function buildRawMessage(m: SimpleMessage): Buffer {
  const charset = m.charset ?? 'utf-8';
  const cte = m.transferEncoding ?? 'base64';
  const leaf = (type: string, text: string) =>
    `Content-Type: ${type}; charset="${charset}"\r\nContent-Transfer-Encoding: ${cte}\r\n\r\n${encodeBody(text, charset, cte)}`;
  let content: string;
  if (m.text !== undefined && m.html !== undefined) {
    const b = `alt_${randomBytes(6).toString('hex')}`;
    content = `Content-Type: multipart/alternative; boundary="${b}"\r\n\r\n--${b}\r\n${leaf('text/plain', m.text)}\r\n--${b}\r\n${leaf('text/html', m.html)}\r\n--${b}--\r\n`;
  } else if (m.html !== undefined) {
    content = leaf('text/html', m.html);
  } else {
    content = leaf('text/plain', m.text ?? '');
  }
  if (m.attachment) {
    const b = `mix_${randomBytes(6).toString('hex')}`;
    const file =
      `Content-Type: ${m.attachment.mimeType}; name="${m.attachment.filename}"\r\nContent-Disposition: attachment; filename="${m.attachment.filename}"\r\n` +
      `Content-Transfer-Encoding: base64\r\n\r\n${m.attachment.content.toString('base64')}`;
    content = `Content-Type: multipart/mixed; boundary="${b}"\r\n\r\n--${b}\r\n${content}\r\n--${b}\r\n${file}\r\n--${b}--\r\n`;
  }
  const subject = /^[\x20-\x7e]*$/.test(m.subject) ? m.subject : `=?UTF-8?B?${Buffer.from(m.subject, 'utf8').toString('base64')}?=`;
  const head = [
    `From: ${m.from}`,
    `To: ${m.to}`,
    `Subject: ${subject}`,
    `Date: ${(m.date ?? new Date()).toUTCString()}`,
    `Message-ID: <${randomBytes(8).toString('hex')}@fake.example>`,
    'MIME-Version: 1.0',
  ].join('\r\n');
  return Buffer.from(`${head}\r\n${content}`, 'latin1');
}

// ---------------------------------------------------------------------------------------------
// The server

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer) => Promise<void> | void;

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
  res.end(text);
}

function oauthError(res: ServerResponse, status: number, error: string, description: string): void {
  json(res, status, { error, error_description: description });
}

/** Google's REST error body (Gmail, Drive). */
export function apiError(
  status: number,
  message: string,
  reason: string,
  statusText?: string,
  extra: Record<string, unknown> = {},
): { error: Record<string, unknown> } {
  return {
    error: {
      code: status,
      message,
      errors: [{ message, domain: 'global', reason, ...extra }],
      ...(statusText ? { status: statusText } : {}),
    },
  };
}

function sendApiError(res: ServerResponse, status: number, message: string, reason: string, statusText?: string, extra?: Record<string, unknown>) {
  const headers: Record<string, string> = status === 401 ? { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' } : {};
  json(res, status, apiError(status, message, reason, statusText, extra), headers);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function hexId(): string {
  return randomBytes(8).toString('hex');
}

function driveId(): string {
  return `1${randomBytes(24).toString('base64url')}`.slice(0, 33);
}

export async function startFakeGoogle(initial: Partial<FakeGoogleOptions> & Pick<FakeGoogleOptions, 'clientId' | 'clientSecret'>) {
  const options: FakeGoogleOptions = {
    account: { email: 'owner@gmail.test', sub: '108234567890123456789' },
    accessTokenTtlSeconds: 3599,
    rotateRefreshTokens: false,
    withheldScopes: [],
    consent: 'allow',
    registeredRedirectUris: undefined,
    ...initial,
  };
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 }) as { privateKey: KeyObject };
  const keyId = randomBytes(8).toString('hex');

  const codes = new Map<string, CodeRecord>();
  const grants = new Map<string, Grant>();
  const accessTokens = new Map<string, AccessRecord>();
  const refreshTokens = new Map<string, string>(); // token -> grant id
  const messages: FakeMessage[] = [];
  const files = new Map<string, FakeFile>();
  const counts: Record<string, number> = {};
  const waiters: Array<{ key: string; n: number; resolve: () => void }> = [];
  /** Every token request's form, for tests that check what Hearth sent (e.g. the PKCE verifier). */
  const tokenRequests: Array<Record<string, string>> = [];
  /** Messages as sent through messages.send, raw. */
  const sent: Array<{ id: string; raw: string }> = [];
  const failures = new Map<string, { status: number; body: unknown }>();
  let refreshGate: Promise<void> | undefined;
  const issued: string[] = [];

  function count(key: string): void {
    counts[key] = (counts[key] ?? 0) + 1;
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i]!;
      if ((counts[w.key] ?? 0) >= w.n) {
        waiters.splice(i, 1);
        w.resolve();
      }
    }
  }

  function idToken(clientId: string): string {
    const now = Math.floor(Date.now() / 1000);
    const enc = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const head = enc({ alg: 'RS256', kid: keyId, typ: 'JWT' });
    const payload = enc({
      iss: 'https://accounts.google.com',
      azp: clientId,
      aud: clientId,
      sub: options.account.sub,
      email: options.account.email,
      email_verified: true,
      at_hash: randomBytes(16).toString('base64url'),
      iat: now,
      exp: now + 3600,
    });
    const signature = sign('sha256', Buffer.from(`${head}.${payload}`), privateKey).toString('base64url');
    return `${head}.${payload}.${signature}`;
  }

  function issueAccess(grant: Grant): { token: string; ttl: number } {
    const token = `ya29.${randomBytes(30).toString('base64url')}`;
    const ttl = options.accessTokenTtlSeconds;
    accessTokens.set(token, { grantId: grant.id, expiresAt: Date.now() + ttl * 1000, revoked: false });
    issued.push(token);
    return { token, ttl };
  }

  function issueRefresh(grant: Grant): string {
    if (grant.refreshToken) refreshTokens.delete(grant.refreshToken);
    const token = `1//0${randomBytes(40).toString('base64url')}`;
    grant.refreshToken = token;
    refreshTokens.set(token, grant.id);
    issued.push(token);
    return token;
  }

  /** The grant behind a bearer token, or an error answer already sent. */
  function bearer(req: IncomingMessage, res: ServerResponse, anyOf: readonly string[], service: string): Grant | undefined {
    const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const record = match ? accessTokens.get(match[1]!) : undefined;
    const grant = record ? grants.get(record.grantId) : undefined;
    if (!record || !grant || record.revoked || grant.revoked || record.expiresAt <= Date.now()) {
      count('unauthorized');
      sendApiError(
        res,
        401,
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
        'authError',
        'UNAUTHENTICATED',
        { location: 'Authorization', locationType: 'header' },
      );
      return undefined;
    }
    if (!grant.scopes.some((s) => anyOf.includes(s))) {
      json(res, 403, {
        error: {
          code: 403,
          message: 'Request had insufficient authentication scopes.',
          errors: [{ message: 'Insufficient Permission', domain: 'global', reason: 'insufficientPermissions' }],
          status: 'PERMISSION_DENIED',
          details: [
            { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT', domain: 'googleapis.com', metadata: { service } },
          ],
        },
      });
      return undefined;
    }
    return grant;
  }

  function form(req: IncomingMessage, body: Buffer): Record<string, string> {
    const params = Object.fromEntries(new URLSearchParams(body.toString('utf8')));
    const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    if (basic) {
      const [id, secret] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
      params.client_id ??= decodeURIComponent(id ?? '');
      params.client_secret ??= decodeURIComponent(secret ?? '');
    }
    return params;
  }

  // --- OAuth -------------------------------------------------------------------------------

  const authorize: Handler = (_req, res, url) => {
    count('auth');
    const p = Object.fromEntries(url.searchParams);
    const problem = (text: string) => {
      res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<html><body><h1>Access blocked: Authorization Error</h1><p>Error 400: invalid_request</p><p>${htmlEscape(text)}</p></body></html>`);
    };
    if (p.client_id !== options.clientId) return problem('The OAuth client was not found.');
    if (!p.redirect_uri) return problem('Missing required parameter: redirect_uri');
    if (options.registeredRedirectUris && !options.registeredRedirectUris.includes(p.redirect_uri)) {
      res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' });
      return void res.end('<html><body><p>Error 400: redirect_uri_mismatch</p></body></html>');
    }
    if (p.response_type !== 'code') return problem(`Invalid response_type: ${p.response_type ?? ''}`);
    if (!p.scope) return problem('Missing required parameter: scope');
    if (!p.code_challenge || p.code_challenge_method !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(p.code_challenge)) {
      return problem('Invalid code_challenge or code_challenge_method');
    }
    const target = new URL(p.redirect_uri);
    if (p.state !== undefined) target.searchParams.set('state', p.state);
    if (options.consent === 'deny') {
      target.searchParams.set('error', 'access_denied');
      res.writeHead(302, { location: target.toString() });
      return void res.end();
    }
    const asked = p.scope.split(/\s+/).filter(Boolean);
    // Google names `email` by its full URL in granted scopes.
    const granted = asked
      .filter((s) => !options.withheldScopes.includes(s))
      .map((s) => (s === 'email' ? SCOPE.email : s));
    const code = `4/0${randomBytes(30).toString('base64url')}`;
    codes.set(code, {
      clientId: p.client_id,
      redirectUri: p.redirect_uri,
      challenge: p.code_challenge,
      scopes: granted,
      offline: p.access_type === 'offline',
      expiresAt: Date.now() + 10 * 60_000,
      used: false,
    });
    target.searchParams.set('code', code);
    target.searchParams.set('scope', granted.join(' '));
    target.searchParams.set('authuser', '0');
    target.searchParams.set('prompt', 'consent');
    res.writeHead(302, { location: target.toString() });
    res.end();
  };

  const token: Handler = async (req, res, _url, body) => {
    if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      count('token.invalid');
      return oauthError(res, 400, 'invalid_request', 'Invalid Content-Type');
    }
    const p = form(req, body);
    tokenRequests.push(p);
    count(`token.${p.grant_type ?? 'none'}`);
    if (p.grant_type === 'refresh_token' && refreshGate) await refreshGate;
    if (p.client_id !== options.clientId) return oauthError(res, 401, 'invalid_client', 'The OAuth client was not found.');
    if (p.client_secret !== options.clientSecret) return oauthError(res, 401, 'invalid_client', 'Unauthorized');

    if (p.grant_type === 'authorization_code') {
      const record = p.code ? codes.get(p.code) : undefined;
      if (!record || record.used || record.expiresAt <= Date.now() || record.clientId !== p.client_id) {
        return oauthError(res, 400, 'invalid_grant', 'Bad Request');
      }
      if (p.redirect_uri !== record.redirectUri) return oauthError(res, 400, 'redirect_uri_mismatch', 'Bad Request');
      if (!p.code_verifier) return oauthError(res, 400, 'invalid_grant', 'Missing code verifier.');
      const challenge = createHash('sha256').update(p.code_verifier).digest('base64url');
      if (challenge !== record.challenge) return oauthError(res, 400, 'invalid_grant', 'Invalid code verifier.');
      record.used = true;
      const grant: Grant = { id: hexId(), scopes: record.scopes, revoked: false, refreshToken: undefined };
      grants.set(grant.id, grant);
      const access = issueAccess(grant);
      return json(res, 200, {
        access_token: access.token,
        expires_in: access.ttl,
        ...(record.offline ? { refresh_token: issueRefresh(grant) } : {}),
        scope: grant.scopes.join(' '),
        token_type: 'Bearer',
        ...(grant.scopes.includes('openid') ? { id_token: idToken(p.client_id) } : {}),
      });
    }

    if (p.grant_type === 'refresh_token') {
      const grantId = p.refresh_token ? refreshTokens.get(p.refresh_token) : undefined;
      const grant = grantId ? grants.get(grantId) : undefined;
      if (!grant || grant.revoked) return oauthError(res, 400, 'invalid_grant', 'Token has been expired or revoked.');
      const access = issueAccess(grant);
      return json(res, 200, {
        access_token: access.token,
        expires_in: access.ttl,
        ...(options.rotateRefreshTokens ? { refresh_token: issueRefresh(grant) } : {}),
        scope: grant.scopes.join(' '),
        token_type: 'Bearer',
        ...(grant.scopes.includes('openid') ? { id_token: idToken(p.client_id) } : {}),
      });
    }

    return oauthError(res, 400, 'unsupported_grant_type', `Invalid grant_type: ${p.grant_type ?? ''}`);
  };

  const revoke: Handler = (req, res, url, body) => {
    count('revoke');
    const value = form(req, body).token ?? url.searchParams.get('token') ?? '';
    const grantId = refreshTokens.get(value) ?? accessTokens.get(value)?.grantId;
    const grant = grantId ? grants.get(grantId) : undefined;
    if (!grant || grant.revoked) return oauthError(res, 400, 'invalid_token', 'Token expired or revoked');
    grant.revoked = true;
    if (grant.refreshToken) refreshTokens.delete(grant.refreshToken);
    json(res, 200, {});
  };

  // --- Gmail -------------------------------------------------------------------------------

  function visibleMessage(id: string): FakeMessage | undefined {
    return messages.find((m) => m.id === id);
  }

  function messageResource(m: FakeMessage, format: string, metadataHeaders: string[]): Record<string, unknown> {
    const payload = parseMime(m.raw);
    const base: Record<string, unknown> = {
      id: m.id,
      threadId: m.threadId,
      labelIds: m.labelIds,
      snippet: snippetOf(payload),
      sizeEstimate: m.raw.length,
      historyId: String(100000 + messages.indexOf(m)),
      internalDate: String(m.internalDate),
    };
    if (format === 'minimal') return { id: m.id, threadId: m.threadId, labelIds: m.labelIds, sizeEstimate: m.raw.length, historyId: base.historyId, internalDate: base.internalDate };
    if (format === 'raw') return { ...base, raw: m.raw.toString('base64url') };
    if (format === 'metadata') {
      const wanted = metadataHeaders.map((h) => h.toLowerCase());
      const headers = wanted.length ? payload.headers.filter((h) => wanted.includes(h.name.toLowerCase())) : payload.headers;
      return { ...base, payload: { partId: '', mimeType: payload.mimeType, filename: '', headers, body: { size: 0 } } };
    }
    return { ...base, payload };
  }

  function matches(m: FakeMessage, q: string): boolean {
    const payload = parseMime(m.raw);
    const text = partText(payload);
    const all = `${text.plain ?? ''} ${text.html ?? ''}`.toLowerCase();
    const h = (name: string) => (header(payload.headers, name) ?? '').toLowerCase();
    for (const term of q.toLowerCase().split(/\s+/).filter(Boolean)) {
      const [key, value] = term.includes(':') ? (term.split(/:(.*)/) as [string, string]) : ['', term];
      if (key === 'is' && value === 'unread') {
        if (!m.labelIds.includes('UNREAD')) return false;
      } else if (key === 'in') {
        if (!m.labelIds.includes(value.toUpperCase())) return false;
      } else if (key === 'from' || key === 'to' || key === 'subject') {
        if (!h(key).includes(value)) return false;
      } else if (!h('subject').includes(value) && !all.includes(value)) return false;
    }
    return true;
  }

  function pageToken(offset: number): string {
    return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
  }

  function readPageToken(token: string | null): number | null {
    if (token === null) return 0;
    try {
      const value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { o?: unknown };
      return typeof value.o === 'number' && value.o >= 0 ? value.o : null;
    } catch {
      return null;
    }
  }

  const gmailProfile: Handler = (req, res) => {
    count('gmail.profile');
    if (!bearer(req, res, GMAIL_READ, 'gmail.googleapis.com')) return;
    json(res, 200, { emailAddress: options.account.email, messagesTotal: messages.length, threadsTotal: messages.length, historyId: '100000' });
  };

  const gmailList: Handler = (req, res, url) => {
    count('gmail.messages.list');
    if (!bearer(req, res, GMAIL_READ, 'gmail.googleapis.com')) return;
    const max = url.searchParams.has('maxResults') ? Number(url.searchParams.get('maxResults')) : 100;
    if (!Number.isInteger(max) || max < 1 || max > 500) {
      return sendApiError(res, 400, `Invalid value for maxResults`, 'invalidArgument', 'INVALID_ARGUMENT');
    }
    const offset = readPageToken(url.searchParams.get('pageToken'));
    if (offset === null) return sendApiError(res, 400, 'Invalid pageToken', 'invalidArgument', 'INVALID_ARGUMENT');
    const q = url.searchParams.get('q') ?? '';
    const includeSpamTrash = url.searchParams.get('includeSpamTrash') === 'true';
    const found = [...messages]
      .sort((a, b) => b.internalDate - a.internalDate)
      .filter((m) => includeSpamTrash || /\bin:(trash|spam)\b/i.test(q) || (!m.labelIds.includes('TRASH') && !m.labelIds.includes('SPAM')))
      .filter((m) => matches(m, q));
    const page = found.slice(offset, offset + max);
    const body: Record<string, unknown> = { resultSizeEstimate: found.length };
    if (page.length > 0) body.messages = page.map((m) => ({ id: m.id, threadId: m.threadId }));
    if (offset + max < found.length) body.nextPageToken = pageToken(offset + max);
    json(res, 200, body);
  };

  const gmailGet: Handler = (req, res, url) => {
    count('gmail.messages.get');
    if (!bearer(req, res, GMAIL_READ, 'gmail.googleapis.com')) return;
    const id = decodeURIComponent(url.pathname.split('/')[6] ?? '');
    if (!/^[0-9a-f]+$/.test(id)) return sendApiError(res, 400, 'Invalid id value', 'invalidArgument', 'INVALID_ARGUMENT');
    const m = visibleMessage(id);
    if (!m) return sendApiError(res, 404, 'Requested entity was not found.', 'notFound', 'NOT_FOUND');
    json(res, 200, messageResource(m, url.searchParams.get('format') ?? 'full', url.searchParams.getAll('metadataHeaders')));
  };

  const gmailTrash: Handler = (req, res, url) => {
    count('gmail.messages.trash');
    if (!bearer(req, res, GMAIL_MODIFY, 'gmail.googleapis.com')) return;
    const id = decodeURIComponent(url.pathname.split('/')[6] ?? '');
    if (!/^[0-9a-f]+$/.test(id)) return sendApiError(res, 400, 'Invalid id value', 'invalidArgument', 'INVALID_ARGUMENT');
    const m = visibleMessage(id);
    if (!m) return sendApiError(res, 404, 'Requested entity was not found.', 'notFound', 'NOT_FOUND');
    m.labelIds = [...m.labelIds.filter((l) => l !== 'INBOX' && l !== 'TRASH'), 'TRASH'];
    json(res, 200, { id: m.id, threadId: m.threadId, labelIds: m.labelIds });
  };

  const gmailSend: Handler = (req, res, _url, body) => {
    count('gmail.messages.send');
    if (!bearer(req, res, GMAIL_SEND, 'gmail.googleapis.com')) return;
    let raw: string | undefined;
    try {
      raw = (JSON.parse(body.toString('utf8')) as { raw?: string }).raw;
    } catch {
      return sendApiError(res, 400, 'Invalid JSON payload received.', 'parseError', 'INVALID_ARGUMENT');
    }
    if (!raw) {
      return sendApiError(res, 400, "'raw' RFC822 payload message string or uploading message via /upload/* URL required", 'invalidArgument', 'INVALID_ARGUMENT');
    }
    if (!/^[A-Za-z0-9_-]*={0,2}$/.test(raw)) return sendApiError(res, 400, 'Invalid value for ByteString', 'invalid', 'INVALID_ARGUMENT');
    const bytes = Buffer.from(raw, 'base64url');
    const headers = parseHeaders(splitHeadBody(bytes).head);
    if (!['To', 'Cc', 'Bcc'].some((name) => (header(headers, name) ?? '').trim())) {
      return sendApiError(res, 400, 'Recipient address required', 'invalidArgument', 'INVALID_ARGUMENT');
    }
    const full = header(headers, 'From') ? bytes : Buffer.concat([Buffer.from(`From: ${options.account.email}\r\n`), bytes]);
    const id = hexId();
    messages.push({ id, threadId: id, labelIds: ['SENT'], internalDate: Date.now(), raw: full });
    sent.push({ id, raw: bytes.toString('utf8') });
    json(res, 200, { id, threadId: id, labelIds: ['SENT'] });
  };

  // --- Drive -------------------------------------------------------------------------------

  function fileVisible(file: FakeFile, grant: Grant): boolean {
    return grant.scopes.includes(SCOPE.drive) || file.createdByApp;
  }

  function fileResource(file: FakeFile, fields: string[] | undefined): Record<string, unknown> {
    const full: Record<string, unknown> = {
      kind: 'drive#file',
      id: file.id,
      name: file.name,
      mimeType: file.mimeType,
      parents: file.parents,
      trashed: file.trashed,
      modifiedTime: file.modifiedTime,
      createdTime: file.modifiedTime,
      webViewLink: `https://drive.google.com/file/d/${file.id}/view?usp=drivesdk`,
      ...(file.mimeType.startsWith('application/vnd.google-apps.') ? {} : { size: String(file.content.length) }),
    };
    const wanted = fields ?? ['kind', 'id', 'name', 'mimeType'];
    return Object.fromEntries(Object.entries(full).filter(([key]) => wanted.includes(key)));
  }

  /** `nextPageToken,files(id,name)` → top-level fields and file fields. */
  function parseFields(fields: string | null): { top: string[]; file: string[] | undefined } {
    if (!fields) return { top: ['kind', 'incompleteSearch', 'files', 'nextPageToken'], file: undefined };
    const inner = /files\(([^)]*)\)/.exec(fields);
    const top = fields
      .replace(/files\([^)]*\)/, 'files')
      .split(',')
      .map((f) => f.trim())
      .filter(Boolean);
    return { top, file: inner ? inner[1]!.split(',').map((f) => f.trim()) : top.includes('files') ? undefined : [] };
  }

  function fileFilter(q: string): ((f: FakeFile) => boolean) | null {
    if (!q.trim()) return () => true;
    const tests: Array<(f: FakeFile) => boolean> = [];
    for (const clause of q.split(/\s+and\s+/i)) {
      let m: RegExpExecArray | null;
      if ((m = /^name\s+contains\s+'((?:[^'\\]|\\.)*)'$/i.exec(clause.trim()))) {
        const v = m[1]!.replace(/\\(.)/g, '$1').toLowerCase();
        tests.push((f) => f.name.toLowerCase().includes(v));
      } else if ((m = /^name\s*=\s*'((?:[^'\\]|\\.)*)'$/i.exec(clause.trim()))) {
        const v = m[1]!.replace(/\\(.)/g, '$1');
        tests.push((f) => f.name === v);
      } else if ((m = /^mimeType\s*=\s*'([^']*)'$/i.exec(clause.trim()))) {
        const v = m[1]!;
        tests.push((f) => f.mimeType === v);
      } else if ((m = /^'([^']+)'\s+in\s+parents$/i.exec(clause.trim()))) {
        const v = m[1]!;
        tests.push((f) => f.parents.includes(v));
      } else if ((m = /^trashed\s*=\s*(true|false)$/i.exec(clause.trim()))) {
        const v = m[1]!.toLowerCase() === 'true';
        tests.push((f) => f.trashed === v);
      } else return null;
    }
    return (f) => tests.every((t) => t(f));
  }

  const driveList: Handler = (req, res, url) => {
    count('drive.files.list');
    const grant = bearer(req, res, [...DRIVE_ANY, 'https://www.googleapis.com/auth/drive.readonly'], 'drive.googleapis.com');
    if (!grant) return;
    const size = url.searchParams.has('pageSize') ? Number(url.searchParams.get('pageSize')) : 100;
    if (!Number.isInteger(size) || size < 1 || size > 1000) {
      return sendApiError(res, 400, 'Invalid Value', 'invalid', undefined, { location: 'pageSize', locationType: 'parameter' });
    }
    const filter = fileFilter(url.searchParams.get('q') ?? '');
    if (!filter) return sendApiError(res, 400, 'Invalid Value', 'invalid', undefined, { location: 'q', locationType: 'parameter' });
    const offset = readPageToken(url.searchParams.get('pageToken'));
    if (offset === null) return sendApiError(res, 400, 'Invalid Value', 'invalid', undefined, { location: 'pageToken', locationType: 'parameter' });
    const found = [...files.values()]
      .filter((f) => fileVisible(f, grant) && filter(f))
      .sort((a, b) => b.modifiedTime.localeCompare(a.modifiedTime));
    const page = found.slice(offset, offset + size);
    const { top, file } = parseFields(url.searchParams.get('fields'));
    const full: Record<string, unknown> = {
      kind: 'drive#fileList',
      incompleteSearch: false,
      files: page.map((f) => fileResource(f, file)),
      ...(offset + size < found.length ? { nextPageToken: pageToken(offset + size) } : {}),
    };
    json(res, 200, Object.fromEntries(Object.entries(full).filter(([key]) => top.includes(key))));
  };

  const driveUpload: Handler = (req, res, url, body) => {
    count('drive.files.create');
    const grant = bearer(req, res, DRIVE_ANY, 'drive.googleapis.com');
    if (!grant) return;
    if (url.searchParams.get('uploadType') !== 'multipart') {
      return sendApiError(res, 400, `Invalid upload type: ${url.searchParams.get('uploadType') ?? '(none)'}`, 'invalid', undefined, {
        location: 'uploadType',
        locationType: 'parameter',
      });
    }
    const contentType = String(req.headers['content-type'] ?? '');
    const boundary = /^multipart\/related/i.test(contentType) ? param(contentType, 'boundary') : undefined;
    const parts = boundary ? splitMultipart(body, boundary) : [];
    if (parts.length !== 2) return sendApiError(res, 400, 'Bad multipart request: expected metadata and media parts', 'badContent');
    const meta = splitHeadBody(parts[0]!);
    const media = splitHeadBody(parts[1]!);
    let metadata: { name?: string; mimeType?: string; parents?: string[] };
    try {
      metadata = JSON.parse(meta.body.toString('utf8')) as typeof metadata;
    } catch {
      return sendApiError(res, 400, 'Invalid JSON payload received.', 'parseError');
    }
    for (const parent of metadata.parents ?? []) {
      const folder = files.get(parent);
      if (!folder || !fileVisible(folder, grant)) {
        return sendApiError(res, 404, `File not found: ${parent}.`, 'notFound', undefined, { location: 'fileId', locationType: 'parameter' });
      }
    }
    const mediaType = header(parseHeaders(media.head), 'Content-Type') ?? 'application/octet-stream';
    const file: FakeFile = {
      id: driveId(),
      name: metadata.name ?? 'Untitled',
      mimeType: metadata.mimeType ?? mediaType.split(';')[0]!.trim(),
      parents: metadata.parents ?? ['root'],
      content: media.body,
      modifiedTime: new Date().toISOString(),
      trashed: false,
      createdByApp: true,
    };
    files.set(file.id, file);
    const fields = url.searchParams.get('fields');
    json(res, 200, fileResource(file, fields ? fields.split(',').map((f) => f.trim()) : undefined));
  };

  /** The file a read names (`/drive/v3/files/{id}…`), if the token may read it; otherwise the answer is sent. */
  function readableFile(req: IncomingMessage, res: ServerResponse, url: URL): FakeFile | undefined {
    const grant = bearer(req, res, [...DRIVE_ANY, 'https://www.googleapis.com/auth/drive.readonly'], 'drive.googleapis.com');
    if (!grant) return undefined;
    const id = decodeURIComponent(url.pathname.split('/')[4] ?? '');
    const file = files.get(id);
    if (!file || !fileVisible(file, grant)) {
      sendApiError(res, 404, `File not found: ${id}.`, 'notFound', undefined, { location: 'fileId', locationType: 'parameter' });
      return undefined;
    }
    return file;
  }

  /** files.get: the metadata (with `fields`), or with alt=media the bytes, which Google's own documents do not have. */
  const driveGet: Handler = (req, res, url) => {
    count('drive.files.get');
    const file = readableFile(req, res, url);
    if (!file) return;
    if (url.searchParams.get('alt') === 'media') {
      if (file.mimeType.startsWith('application/vnd.google-apps.')) {
        return sendApiError(res, 403, 'Only files with binary content can be downloaded. Use Export with Docs Editors files.', 'fileNotDownloadable', undefined, {
          location: 'alt',
          locationType: 'parameter',
        });
      }
      res.writeHead(200, { 'content-type': file.mimeType, 'content-length': String(file.content.length) });
      return void res.end(file.content);
    }
    const fields = url.searchParams.get('fields');
    json(res, 200, fileResource(file, fields ? fields.split(',').map((f) => f.trim()) : undefined));
  };

  /** files.export: a Google document in one of the types it exports to (the fake keeps its text). */
  const driveExport: Handler = (req, res, url) => {
    count('drive.files.export');
    const file = readableFile(req, res, url);
    if (!file) return;
    const mimeType = url.searchParams.get('mimeType');
    if (!file.mimeType.startsWith('application/vnd.google-apps.') || !mimeType) {
      return sendApiError(res, 403, 'Export only supports Docs Editors files.', 'fileNotExportable');
    }
    res.writeHead(200, { 'content-type': mimeType });
    res.end(file.content);
  };

  const driveDelete: Handler = (req, res, url) => {
    count('drive.files.delete');
    const grant = bearer(req, res, DRIVE_ANY, 'drive.googleapis.com');
    if (!grant) return;
    const id = decodeURIComponent(url.pathname.split('/')[4] ?? '');
    const file = files.get(id);
    if (!file || !fileVisible(file, grant)) {
      return sendApiError(res, 404, `File not found: ${id}.`, 'notFound', undefined, { location: 'fileId', locationType: 'parameter' });
    }
    files.delete(id);
    res.writeHead(204);
    res.end();
  };

  const routes: Array<{ method: string; path: RegExp; key: string; handler: Handler }> = [
    { method: 'GET', path: /^\/o\/oauth2\/v2\/auth$/, key: 'auth', handler: authorize },
    { method: 'POST', path: /^\/token$/, key: 'token', handler: token },
    { method: 'POST', path: /^\/revoke$/, key: 'revoke', handler: revoke },
    { method: 'GET', path: /^\/gmail\/v1\/users\/me\/profile$/, key: 'gmail.profile', handler: gmailProfile },
    { method: 'GET', path: /^\/gmail\/v1\/users\/me\/messages$/, key: 'gmail.messages.list', handler: gmailList },
    { method: 'POST', path: /^\/gmail\/v1\/users\/me\/messages\/send$/, key: 'gmail.messages.send', handler: gmailSend },
    { method: 'GET', path: /^\/gmail\/v1\/users\/me\/messages\/[^/]+$/, key: 'gmail.messages.get', handler: gmailGet },
    { method: 'POST', path: /^\/gmail\/v1\/users\/me\/messages\/[^/]+\/trash$/, key: 'gmail.messages.trash', handler: gmailTrash },
    { method: 'GET', path: /^\/drive\/v3\/files$/, key: 'drive.files.list', handler: driveList },
    { method: 'POST', path: /^\/upload\/drive\/v3\/files$/, key: 'drive.files.create', handler: driveUpload },
    { method: 'DELETE', path: /^\/drive\/v3\/files\/[^/]+$/, key: 'drive.files.delete', handler: driveDelete },
    { method: 'GET', path: /^\/drive\/v3\/files\/[^/]+\/export$/, key: 'drive.files.export', handler: driveExport },
    { method: 'GET', path: /^\/drive\/v3\/files\/[^/]+$/, key: 'drive.files.get', handler: driveGet },
  ];

  const server: Server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://fake.google');
      const body = await readBody(req);
      const route = routes.find((r) => r.method === req.method && r.path.test(url.pathname));
      if (!route) {
        res.writeHead(404, { 'content-type': 'text/html; charset=UTF-8' });
        return void res.end('<html><body>Error 404 (Not Found)!!1</body></html>');
      }
      const failure = failures.get(route.key);
      if (failure) {
        failures.delete(route.key);
        count(route.key);
        return json(res, failure.status, failure.body);
      }
      await route.handler(req, res, url, body);
    } catch (error) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify(apiError(500, `fake failure: ${String(error)}`, 'backendError')));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    options,
    counts,
    tokenRequests,
    sent,
    messages,
    files,

    count(key: string): number {
      return counts[key] ?? 0;
    },

    /** Resolves once `key` has been requested `n` times in all. */
    waitFor(key: string, n = 1): Promise<void> {
      if ((counts[key] ?? 0) >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ key, n, resolve }));
    },

    /**
     * Plays the browser on the consent screen: requests the authorization URL (which points at
     * this fake) and answers the redirect's target, Hearth's callback with code and state.
     */
    async consent(authorizeUrl: string): Promise<URL> {
      const response = await fetch(authorizeUrl, { redirect: 'manual' });
      const location = response.headers.get('location');
      if (response.status !== 302 || !location) throw new Error(`consent failed: ${response.status} ${await response.text()}`);
      return new URL(location);
    },

    /** Every access token issued so far stops working (as after their hour), refresh tokens stay. */
    expireAccessTokens(): void {
      for (const record of accessTokens.values()) record.expiresAt = Date.now() - 1;
    },

    /** The user removed the app in their Google account: every grant is revoked. */
    revokeAllGrants(): void {
      for (const grant of grants.values()) grant.revoked = true;
    },

    /** Holds refresh_token requests (counted on arrival) until the returned function is called. */
    holdRefreshes(): () => void {
      let release!: () => void;
      refreshGate = new Promise<void>((resolve) => (release = resolve));
      return () => {
        refreshGate = undefined;
        release();
      };
    },

    /** The next request to the endpoint `key` answers `status` with `body` instead. */
    failNext(key: string, status: number, body: unknown): void {
      failures.set(key, { status, body });
    },

    /** Every access and refresh token ever issued, current or not (to look for them where they must not be). */
    issuedTokens(): string[] {
      return [...issued];
    },

    /** The refresh token currently valid for the newest grant. */
    currentRefreshToken(): string | undefined {
      return [...grants.values()].reverse().find((g) => !g.revoked && g.refreshToken)?.refreshToken;
    },

    addMessage(message: SimpleMessage | Buffer, labels: string[] = ['INBOX', 'UNREAD'], internalDate = Date.now()): FakeMessage {
      const raw = Buffer.isBuffer(message) ? message : buildRawMessage(message);
      const id = hexId();
      const stored: FakeMessage = { id, threadId: id, labelIds: labels, internalDate, raw };
      messages.push(stored);
      return stored;
    },

    addFile(file: Partial<FakeFile> & { name: string }): FakeFile {
      const stored: FakeFile = {
        id: driveId(),
        mimeType: 'text/plain',
        parents: ['root'],
        content: Buffer.alloc(0),
        modifiedTime: new Date().toISOString(),
        trashed: false,
        createdByApp: true,
        ...file,
      };
      files.set(stored.id, stored);
      return stored;
    },

    close(): Promise<void> {
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export type FakeGoogle = Awaited<ReturnType<typeof startFakeGoogle>>;

// ---------------------------------------------------------------------------------------------
// Driving Hearth's OAuth flow against the fake

/** The minimum of the test harness the flow needs. */
interface FlowApp {
  request(
    method: 'GET' | 'POST',
    url: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; text: string; headers: Record<string, unknown> }>;
}

/** Who connects: the owner's token starts the flow, their password signs in on the connect page. */
export interface FlowOwner {
  token: string;
  password: string;
}

/**
 * The owner's browser up to the callback: Hearth's authorize URL (or `authorizeUrl`), the
 * connect page, signing in there (which sets the flow's cookie), then the consent screen (this
 * fake, which redirects). Answers where the browser lands and the cookie it carries there.
 */
export async function browserConsent(
  t: FlowApp,
  fake: FakeGoogle,
  owner: FlowOwner,
  authorizeUrl?: string,
): Promise<{ callback: URL; cookie: string; providerUrl: string }> {
  let url = authorizeUrl;
  if (!url) {
    const authorize = await t.request('GET', '/api/v1/oauth/authorize/google', { token: owner.token });
    if (authorize.status !== 200) throw new Error(`authorize failed: ${authorize.status} ${authorize.text}`);
    url = authorize.body.data.url as string;
  }
  const page = new URL(url);
  const shown = await t.request('GET', `${page.pathname}${page.search}`);
  if (shown.status !== 200) throw new Error(`connect page failed: ${shown.status} ${shown.text}`);
  const form = new URLSearchParams({ state: page.searchParams.get('state') ?? '', password: owner.password }).toString();
  const signedIn = await t.request('POST', page.pathname, { body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  if (signedIn.status !== 200) throw new Error(`sign-in failed: ${signedIn.status} ${signedIn.text}`);
  const setCookie = String(signedIn.headers['set-cookie'] ?? '');
  const cookie = setCookie.split(';')[0]!;
  const href = /id="continue" href="([^"]+)"/.exec(signedIn.text)?.[1];
  if (!href || !cookie) throw new Error(`sign-in answered no way on: ${signedIn.text}`);
  const providerUrl = href.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
  return { callback: await fake.consent(providerUrl), cookie, providerUrl };
}

/**
 * Connects the owner's Google account as a person would (see browserConsent), then the browser
 * lands on Hearth's callback with its cookie. Answers the callback's response.
 */
export async function connectGoogle(t: FlowApp, fake: FakeGoogle, owner: FlowOwner) {
  const { callback, cookie } = await browserConsent(t, fake, owner);
  return t.request('GET', `${callback.pathname}${callback.search}`, { headers: { cookie } });
}
