/**
 * Mail as Gmail takes and gives it:
 * - out: an RFC 5322 (2822) message in CRLF lines, non-ASCII header text as RFC 2047 encoded
 *   words, a UTF-8 text body, the whole base64url-encoded for `users.messages.send`;
 * - in: Gmail's `format=full` payload tree (MIME parts, base64url bodies in their own charset)
 *   turned into the text a reader sees: text/plain preferred, HTML turned into text otherwise.
 */
import { decodeHTML } from 'entities';
import { InputError } from '../../http/errors.js';
import { htmlToText } from '../../lib/html-to-text.js';

const CRLF = '\r\n';

// ---------------------------------------------------------------------------------------------
// Writing

function isPlainAscii(text: string): boolean {
  return /^[\x20-\x7e\t]*$/.test(text);
}

/**
 * RFC 2047 "B" encoded words for `text`, each at most 75 characters, split only between
 * characters (a UTF-8 sequence is never cut), joined by folding whitespace.
 */
export function encodeWords(text: string): string {
  const words: string[] = [];
  let chunk = '';
  let chunkBytes = 0;
  const maxBytes = 45; // 60 base64 characters + "=?UTF-8?B?" + "?=" = 72
  for (const char of text) {
    const bytes = Buffer.byteLength(char, 'utf8');
    if (chunkBytes + bytes > maxBytes && chunk) {
      words.push(chunk);
      chunk = '';
      chunkBytes = 0;
    }
    chunk += char;
    chunkBytes += bytes;
  }
  if (chunk) words.push(chunk);
  return words.map((word) => `=?UTF-8?B?${Buffer.from(word, 'utf8').toString('base64')}?=`).join(`${CRLF} `);
}

/** Unstructured header text (Subject): as it is when plain ASCII, else encoded words. */
export function encodeHeaderText(text: string): string {
  return isPlainAscii(text) ? text : encodeWords(text);
}

export interface ParsedAddress {
  name: string;
  address: string;
}

/**
 * Splits an address list (`Ann <ann@x.org>, "Doe, John" <j@y.org>, z@w.org`) at the commas
 * outside quotes and angle brackets, and checks each address.
 */
export function parseAddressList(list: string, field: string): ParsedAddress[] {
  const items: string[] = [];
  let current = '';
  let quoted = false;
  let angle = false;
  for (let i = 0; i < list.length; i++) {
    const c = list[i]!;
    if (c === '\\' && quoted) {
      current += c + (list[i + 1] ?? '');
      i++;
      continue;
    }
    if (c === '"') quoted = !quoted;
    else if (c === '<' && !quoted) angle = true;
    else if (c === '>' && !quoted) angle = false;
    if ((c === ',' || c === ';') && !quoted && !angle) {
      items.push(current);
      current = '';
      continue;
    }
    current += c;
  }
  items.push(current);
  const out: ParsedAddress[] = [];
  for (const raw of items.map((item) => item.trim()).filter(Boolean)) {
    const match = /^(.*?)\s*<([^<>\s]+)>$/.exec(raw);
    let name = match ? match[1]!.trim() : '';
    const address = match ? match[2]! : raw;
    if (name.startsWith('"') && name.endsWith('"') && name.length >= 2) name = name.slice(1, -1).replace(/\\(.)/g, '$1');
    if (!/^[^\s@<>(),;:"\\[\]]+@[^\s@<>(),;:"\\[\]]+\.[^\s@<>(),;:"\\[\]]+$/.test(address)) {
      throw new InputError(field, `"${raw}" is not an email address`, `${field}: "${raw}" is not an email address`);
    }
    out.push({ name, address });
  }
  return out;
}

function formatAddress({ name, address }: ParsedAddress): string {
  if (!name) return address;
  if (!isPlainAscii(name)) return `${encodeWords(name)} <${address}>`;
  // A display name with specials is quoted (RFC 5322 3.2.4).
  if (/[()<>[\]:;@\\,."]/.test(name)) return `"${name.replace(/(["\\])/g, '\\$1')}" <${address}>`;
  return `${name} <${address}>`;
}

/** `Name: a, b, c` folded so that no line passes 78 characters where a fold is possible. */
function addressHeader(name: string, addresses: ParsedAddress[]): string {
  let line = `${name}: `;
  const lines: string[] = [];
  addresses.map(formatAddress).forEach((item, i) => {
    const piece = i < addresses.length - 1 ? `${item},` : item;
    if (line.length + piece.length > 78 && line.trim() !== `${name}:`) {
      lines.push(line.trimEnd());
      line = ' ';
    }
    line += `${piece} `;
  });
  lines.push(line.trimEnd());
  return lines.join(CRLF);
}

/** RFC 5322 date-time in UTC: `Tue, 01 Jul 2025 09:05:00 +0000`. */
export function rfc5322Date(date: Date): string {
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (n: number) => String(n).padStart(2, '0');
  return `${days[date.getUTCDay()]}, ${two(date.getUTCDate())} ${months[date.getUTCMonth()]} ${date.getUTCFullYear()} ${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`;
}

export interface OutgoingMail {
  to: string;
  subject: string;
  body: string;
  cc?: string | null | undefined;
  bcc?: string | null | undefined;
  date?: Date;
}

function refuseLineBreaks(field: string, value: string): void {
  if (/[\r\n\0]/.test(value)) {
    throw new InputError(field, 'must not contain line breaks', `${field} must be one line: line breaks in a header would change the message`);
  }
}

/**
 * The message as RFC 5322 text with CRLF line ends. Gmail fills in From (the connected
 * account), Message-ID and the thread; it sends to To, Cc and Bcc and removes the Bcc header
 * from what recipients get.
 */
export function buildMessage(mail: OutgoingMail): string {
  const headers: string[] = [];
  for (const [field, value] of [['to', mail.to], ['cc', mail.cc], ['bcc', mail.bcc], ['subject', mail.subject]] as const) {
    if (value) refuseLineBreaks(field, value);
  }
  const to = parseAddressList(mail.to, 'to');
  if (to.length === 0) {
    throw new InputError('to', 'is empty', 'to must name at least one email address');
  }
  headers.push(addressHeader('To', to));
  const cc = mail.cc ? parseAddressList(mail.cc, 'cc') : [];
  if (cc.length > 0) headers.push(addressHeader('Cc', cc));
  const bcc = mail.bcc ? parseAddressList(mail.bcc, 'bcc') : [];
  if (bcc.length > 0) headers.push(addressHeader('Bcc', bcc));
  headers.push(`Subject: ${encodeHeaderText(mail.subject)}`);
  headers.push(`Date: ${rfc5322Date(mail.date ?? new Date())}`);
  headers.push('MIME-Version: 1.0');
  headers.push('Content-Type: text/plain; charset="UTF-8"');

  const text = mail.body.replace(/\r\n|\r|\n/g, CRLF);
  const lines = text.split(CRLF);
  let body: string;
  if (isPlainAscii(text.replace(/\r\n/g, '')) && lines.every((line) => line.length <= 998)) {
    headers.push('Content-Transfer-Encoding: 7bit');
    body = text;
  } else {
    headers.push('Content-Transfer-Encoding: base64');
    body = (Buffer.from(text, 'utf8').toString('base64').match(/.{1,76}/g) ?? []).join(CRLF);
  }
  return `${headers.join(CRLF)}${CRLF}${CRLF}${body}${CRLF}`;
}

/** What `users.messages.send` takes in `raw`: the message, base64url-encoded. */
export function toRaw(message: string): string {
  return Buffer.from(message, 'utf8').toString('base64url');
}

// ---------------------------------------------------------------------------------------------
// Reading

/** A MIME part as Gmail's `format=full` answers it (users.messages MessagePart). */
export interface GmailPart {
  partId?: string;
  mimeType?: string;
  filename?: string;
  headers?: Array<{ name: string; value: string }>;
  body?: { attachmentId?: string; size?: number; data?: string };
  parts?: GmailPart[];
}

export function headerValue(part: Pick<GmailPart, 'headers'> | undefined, name: string): string | undefined {
  const lower = name.toLowerCase();
  return part?.headers?.find((h) => h.name.toLowerCase() === lower)?.value;
}

/** A parameter of a structured header (`charset` of a Content-Type), unquoted. */
export function headerParam(value: string | undefined, param: string): string | undefined {
  if (!value) return undefined;
  const re = new RegExp(`;\\s*${param}\\s*=\\s*("((?:[^"\\\\]|\\\\.)*)"|[^;\\s]+)`, 'i');
  const match = re.exec(value);
  if (!match) return undefined;
  return match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : match[1];
}

/** windows-1252's characters for the bytes 0x80..0x9F (the rest is Latin-1). */
const CP1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/**
 * Labels that mean windows-1252 in mail, as the WHATWG Encoding standard says (ISO-8859-1 and
 * US-ASCII mail is, in practice, windows-1252). Node's TextDecoder reads these as strict
 * Latin-1, losing curly quotes, dashes and the euro sign, so they are decoded here.
 */
const CP1252_LABELS = new Set(['windows-1252', 'cp1252', 'x-cp1252', 'iso-8859-1', 'iso8859-1', 'iso_8859-1', 'latin1', 'l1', 'us-ascii', 'ascii', 'ansi_x3.4-1968']);

/** Each byte's UTF-16 code unit in windows-1252. */
const CP1252_UNITS = Uint16Array.from({ length: 256 }, (_, byte) => (byte >= 0x80 && byte <= 0x9f ? CP1252_HIGH.charCodeAt(byte - 0x80) : byte));

/**
 * Bytes in a named charset to text; unknown charsets read as UTF-8. Windows-1252 goes through a
 * table into UTF-16 and one decode: adding a character at a time to a string took 0.1 s per MiB,
 * a second for a large message, on the request thread.
 */
export function decodeCharset(bytes: Uint8Array, charset: string | undefined): string {
  const label = (charset ?? 'utf-8').trim().toLowerCase();
  if (CP1252_LABELS.has(label)) {
    const units = new Uint16Array(bytes.length);
    for (let i = 0; i < bytes.length; i++) units[i] = CP1252_UNITS[bytes[i]!]!;
    // Buffer's UTF-16 decoding, not a TextDecoder('utf-16le'): made at load, that one read ICU's
    // converter tables into every server's memory, mail or no mail.
    return Buffer.from(units.buffer, units.byteOffset, units.byteLength).toString('utf16le');
  }
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

function decodeQ(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '_') bytes.push(0x20);
    else if (c === '=' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(c.charCodeAt(0) & 0xff);
  }
  return Buffer.from(bytes);
}

/**
 * Header text with RFC 2047 encoded words decoded. Gmail usually answers headers decoded
 * already; this is a no-op then. Whitespace between two adjacent encoded words is dropped.
 */
export function decodeEncodedWords(value: string): string {
  const WORD = /=\?([^?\s]+)\?([BbQq])\?([^?\s]*)\?=/g;
  return value
    .replace(/(=\?[^?\s]+\?[BbQq]\?[^?\s]*\?=)\s+(?==\?[^?\s]+\?[BbQq]\?[^?\s]*\?=)/g, '$1')
    .replace(WORD, (whole, charset: string, encoding: string, text: string) => {
      try {
        const bytes = encoding.toUpperCase() === 'B' ? Buffer.from(text, 'base64') : decodeQ(text);
        return decodeCharset(bytes, charset.split('*')[0]);
      } catch {
        return whole;
      }
    });
}

function isAttachment(part: GmailPart): boolean {
  if (part.filename) return true;
  if (part.body?.attachmentId && !part.body.data) return true;
  const disposition = headerValue(part, 'Content-Disposition');
  return disposition !== undefined && /^\s*attachment/i.test(disposition);
}

function decodeBody(part: GmailPart): string {
  const data = part.body?.data;
  if (!data) return '';
  const bytes = Buffer.from(data, 'base64url');
  const charset = headerParam(headerValue(part, 'Content-Type'), 'charset');
  return decodeCharset(bytes, charset).replace(/\r\n?/g, '\n');
}

type Found = { text: string; kind: 'plain' | 'html' };

/**
 * At most this much of an HTML part (in characters) is turned into text: far above any real
 * message's markup (a message's text is what an agent reads), and it bounds the work a crafted
 * message can ask of the server. What follows is dropped.
 */
export const MAIL_HTML_MAX_CHARS = 2 * 1024 * 1024;

function textOf(part: GmailPart, depth: number): Found | null {
  if (depth > 32 || isAttachment(part)) return null;
  const mime = (part.mimeType ?? 'text/plain').toLowerCase();
  if (mime === 'text/plain') return { text: decodeBody(part), kind: 'plain' };
  if (mime === 'text/html') return { text: htmlToText(decodeBody(part).slice(0, MAIL_HTML_MAX_CHARS)), kind: 'html' };
  const children = (part.parts ?? []).map((child) => textOf(child, depth + 1)).filter((found): found is Found => found !== null);
  if (children.length === 0) return null;
  if (mime === 'multipart/alternative') {
    // Alternatives are the same content: the plain one when there is one.
    return children.find((c) => c.kind === 'plain' && c.text.trim() !== '') ?? children.find((c) => c.kind === 'html') ?? children[0]!;
  }
  if (mime === 'multipart/related') return children[0]!;
  if (mime.startsWith('multipart/') || mime === 'message/rfc822') {
    // Mixed content (text, an attachment, more text): every inline text part, in order.
    const texts = children.map((c) => c.text).filter((t) => t.trim() !== '');
    return { text: texts.join('\n\n'), kind: children.some((c) => c.kind === 'plain') ? 'plain' : 'html' };
  }
  return null;
}

/** The readable text of a Gmail message payload: text/plain preferred, HTML as text otherwise. */
export function messageBodyText(payload: GmailPart | undefined): string {
  if (!payload) return '';
  return textOf(payload, 0)?.text.trim() ?? '';
}

/** Gmail's snippets are HTML-escaped (`&#39;`); this is the text they stand for. */
export function decodeSnippet(snippet: string | undefined): string {
  return snippet ? decodeHTML(snippet) : '';
}
