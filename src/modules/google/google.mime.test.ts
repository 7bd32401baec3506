// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { buildRawMessage, parseHeaders, parseMime } from '../../../test/fakes/google.js';
import {
  buildMessage,
  decodeEncodedWords,
  decodeSnippet,
  encodeHeaderText,
  encodeWords,
  headerParam,
  MAIL_HTML_MAX_CHARS,
  messageBodyText,
  parseAddressList,
  rfc5322Date,
  toRaw,
  type GmailPart,
} from './google.mime.js';

function headersOf(message: string): Record<string, string> {
  const head = message.slice(0, message.indexOf('\r\n\r\n'));
  return Object.fromEntries(parseHeaders(head).map((h) => [h.name.toLowerCase(), h.value]));
}

describe('RFC 2822 messages for Gmail', () => {
  const date = new Date(Date.UTC(2025, 6, 1, 9, 5, 3));

  it('uses CRLF line ends only, and separates head and body by one empty line', () => {
    const message = buildMessage({ to: 'ann@example.org', subject: 'Hi', body: 'line one\nline two\r\nline three', date });
    expect(message).not.toMatch(/[^\r]\n/);
    expect(message.split('\r\n\r\n')).toHaveLength(2);
    expect(message.endsWith('line one\r\nline two\r\nline three\r\n')).toBe(true);
    expect(message).toContain('Content-Transfer-Encoding: 7bit');
    expect(message).toContain('MIME-Version: 1.0');
    expect(message).toContain('Content-Type: text/plain; charset="UTF-8"');
    expect(message).toContain('Date: Tue, 01 Jul 2025 09:05:03 +0000');
  });

  it('encodes a non-ASCII subject as RFC 2047 encoded words that decode back', () => {
    const subject = 'Réunion demain — 会議 🎉';
    const message = buildMessage({ to: 'ann@example.org', subject, body: 'x', date });
    const line = message.split('\r\n').findIndex((l) => l.startsWith('Subject: '));
    expect(message.split('\r\n')[line]).toMatch(/^Subject: =\?UTF-8\?B\?[A-Za-z0-9+/=]+\?=$/);
    // Every encoded word is at most 75 characters (RFC 2047 section 2) and folded lines start with a space.
    for (const word of message.match(/=\?UTF-8\?B\?[^?]*\?=/g) ?? []) expect(word.length).toBeLessThanOrEqual(75);
    expect(headersOf(message).subject).not.toContain('Réunion');
    expect(decodeEncodedWords(headersOf(message).subject!)).toBe(subject);
  });

  it('never cuts a multi-byte character between encoded words', () => {
    const long = '日本語のとても長い件名'.repeat(10);
    const encoded = encodeWords(long);
    for (const word of encoded.split('\r\n ')) {
      const payload = /=\?UTF-8\?B\?([^?]*)\?=/.exec(word)![1]!;
      // Each word decodes to valid UTF-8 on its own.
      expect(Buffer.from(payload, 'base64').toString('utf8')).not.toContain('\uFFFD');
    }
    expect(decodeEncodedWords(encoded)).toBe(long);
  });

  it('keeps a plain ASCII subject as it is', () => {
    expect(encodeHeaderText('Quarterly report')).toBe('Quarterly report');
  });

  it('writes To, Cc and Bcc headers, with non-ASCII display names encoded', () => {
    const message = buildMessage({
      to: 'Zoë Dupont <zoe@example.org>, bob@example.org',
      cc: '"Doe, John" <john@example.org>',
      bcc: 'secret@example.org',
      subject: 's',
      body: 'b',
      date,
    });
    const headers = headersOf(message);
    expect(headers.to).toMatch(/^=\?UTF-8\?B\?[^?]+\?= <zoe@example\.org>, bob@example\.org$/);
    expect(decodeEncodedWords(headers.to!)).toBe('Zoë Dupont <zoe@example.org>, bob@example.org');
    expect(headers.cc).toBe('"Doe, John" <john@example.org>');
    expect(headers.bcc).toBe('secret@example.org');
  });

  it('leaves out Cc and Bcc when null or empty', () => {
    const message = buildMessage({ to: 'ann@example.org', cc: null, bcc: '', subject: 's', body: 'b' });
    expect(message).not.toMatch(/^Cc:/m);
    expect(message).not.toMatch(/^Bcc:/m);
  });

  it('sends a UTF-8 body as base64 that decodes to the same text', () => {
    const body = 'Grüße aus Köln\nZweite Zeile ✓';
    const message = buildMessage({ to: 'ann@example.org', subject: 's', body, date });
    expect(message).toContain('Content-Transfer-Encoding: base64');
    const encoded = message.slice(message.indexOf('\r\n\r\n') + 4);
    for (const line of encoded.trimEnd().split('\r\n')) expect(line.length).toBeLessThanOrEqual(76);
    expect(Buffer.from(encoded.replace(/\r\n/g, ''), 'base64').toString('utf8')).toBe(body.replace(/\n/g, '\r\n'));
  });

  it('folds a long recipient list', () => {
    const to = Array.from({ length: 12 }, (_, i) => `person.number.${i}@example.org`).join(', ');
    const message = buildMessage({ to, subject: 's', body: 'b' });
    const head = message.slice(0, message.indexOf('\r\n\r\n'));
    for (const line of head.split('\r\n')) expect(line.length).toBeLessThanOrEqual(78);
    expect(headersOf(message).to!.split(', ')).toHaveLength(12);
  });

  it('refuses header injection and malformed addresses with 400-style errors', () => {
    expect(() => buildMessage({ to: 'ann@example.org\r\nBcc: evil@example.org', subject: 's', body: 'b' })).toThrow(/one line/);
    expect(() => buildMessage({ to: 'ann@example.org', subject: 'hi\nBcc: evil@example.org', body: 'b' })).toThrow(/one line/);
    expect(() => buildMessage({ to: 'not an address', subject: 's', body: 'b' })).toThrow(/not an email address/);
    expect(() => buildMessage({ to: ' , ', subject: 's', body: 'b' })).toThrow(/at least one/);
  });

  it('parses address lists with quoted commas and angle brackets', () => {
    expect(parseAddressList('"Doe, John" <j@x.org>; ann@y.org, Bob <b@z.org>', 'to')).toEqual([
      { name: 'Doe, John', address: 'j@x.org' },
      { name: '', address: 'ann@y.org' },
      { name: 'Bob', address: 'b@z.org' },
    ]);
  });

  it('base64url-encodes the raw message without padding or + and /', () => {
    const raw = toRaw(buildMessage({ to: 'ann@example.org', subject: '???>>>', body: '~~~???>>>' }));
    expect(raw).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(raw, 'base64url').toString('utf8')).toContain('Subject: ???>>>');
  });

  it('formats dates as RFC 5322 with a numeric zone', () => {
    expect(rfc5322Date(new Date(Date.UTC(2024, 1, 29, 23, 59, 59)))).toBe('Thu, 29 Feb 2024 23:59:59 +0000');
  });
});

describe('reading Gmail payloads', () => {
  const b64u = (text: string, encoding: BufferEncoding = 'utf8') => Buffer.from(text, encoding).toString('base64url');
  const part = (mimeType: string, text: string, extra: Partial<GmailPart> = {}): GmailPart => ({
    mimeType,
    filename: '',
    headers: [{ name: 'Content-Type', value: `${mimeType}; charset="UTF-8"` }],
    body: { size: text.length, data: b64u(text) },
    ...extra,
  });

  it('prefers text/plain in multipart/alternative', () => {
    const payload: GmailPart = {
      mimeType: 'multipart/alternative',
      parts: [part('text/plain', 'Plain version'), part('text/html', '<p>HTML <b>version</b></p>')],
    };
    expect(messageBodyText(payload)).toBe('Plain version');
  });

  it('security: a hostile HTML body is read in linear time, and at most 2 MiB of it', () => {
    // An unclosed "<a<a<a…" took seconds with the former tokenizer (7.9 s at 128 KB): quadratic.
    const timed = (pairs: number) => {
      const started = performance.now();
      expect(messageBodyText(part('text/html', '<a'.repeat(pairs)))).toBe('<a'.repeat(pairs));
      return performance.now() - started;
    };
    const small = timed(8_000);
    const large = timed(32_000);
    // Four times the input takes nowhere near sixteen times as long (the floor absorbs a loaded machine's noise).
    expect(large).toBeLessThan(Math.max(small, 50) * 8);
    // Markup past the cap is not read.
    const big = `<p>start</p>${'x'.repeat(MAIL_HTML_MAX_CHARS)}<p>TAIL</p>`;
    const text = messageBodyText(part('text/html', big));
    expect(text.startsWith('start')).toBe(true);
    expect(text).not.toContain('TAIL');
  });

  it('security: a message as large as an outbound answer (OUTBOUND_MAX_BYTES, 10 MiB) is read in linear time, whatever its shape', () => {
    // Mail is read on the request thread: its size is capped by the outbound client, and every
    // step below is linear in it. Windows-1252 text was built a character at a time (0.9 s for 8 MiB).
    const MiB = 1024 * 1024;
    const shapes: Record<string, (mib: number) => () => unknown> = {
      windows1252: (mib) => () =>
        messageBodyText({
          mimeType: 'text/plain',
          headers: [{ name: 'Content-Type', value: 'text/plain; charset=windows-1252' }],
          body: { data: Buffer.alloc(mib * MiB, 0x93).toString('base64url') },
        }),
      utf8: (mib) => () => messageBodyText(part('text/plain', 'a'.repeat(mib * MiB))),
      html: (mib) => () => messageBodyText(part('text/html', '<a'.repeat((mib * MiB) / 2))),
      manyParts: (mib) => () => messageBodyText({ mimeType: 'multipart/mixed', parts: Array.from({ length: mib * 20_000 }, () => part('text/plain', 'hi')) }),
      deepParts: (mib) => () => {
        let payload = part('text/plain', 'x'.repeat(mib * MiB));
        for (let i = 0; i < 1_000; i++) payload = { mimeType: 'multipart/mixed', parts: [payload] };
        return messageBodyText(payload);
      },
      encodedWords: (mib) => () => decodeEncodedWords('=?utf-8?B?aGk=?= '.repeat((mib * MiB) / 17)),
      brokenWords: (mib) => () => decodeEncodedWords('=?utf-8?B?'.repeat((mib * MiB) / 10)),
      charsetParam: (mib) => () => headerParam('text/plain; charset="'.repeat((mib * MiB) / 21), 'charset'),
    };
    const timed = (run: () => unknown) => {
      const started = performance.now();
      run();
      return performance.now() - started;
    };
    for (const [shape, make] of Object.entries(shapes)) {
      const small = timed(make(2));
      const large = timed(make(8));
      // Four times the input takes nowhere near sixteen times as long (the floor absorbs a loaded machine's noise).
      expect(large, shape).toBeLessThan(Math.max(small, 50) * 8);
    }
  });

  it('turns HTML into text when there is no text/plain part', () => {
    const payload = part('text/html', '<html><head><style>p{}</style></head><body><p>Hello&nbsp;<b>world</b> &amp; co</p><p>Second</p></body></html>');
    const text = messageBodyText(payload);
    expect(text).toContain('Hello\u00a0world & co');
    expect(text).toContain('Second');
    expect(text).not.toContain('<');
    expect(text).not.toContain('p{}');
  });

  it('finds the text in nested multiparts and skips attachments', () => {
    const payload: GmailPart = {
      mimeType: 'multipart/mixed',
      parts: [
        {
          mimeType: 'multipart/related',
          parts: [
            { mimeType: 'multipart/alternative', parts: [part('text/plain', 'Nested plain'), part('text/html', '<p>Nested html</p>')] },
            { mimeType: 'image/png', filename: 'logo.png', headers: [], body: { size: 10, attachmentId: 'ANGjdJ' } },
          ],
        },
        part('text/plain', 'attached notes', { filename: 'notes.txt' }),
      ],
    };
    expect(messageBodyText(payload)).toBe('Nested plain');
  });

  it('decodes bodies in their declared charset', () => {
    const payload: GmailPart = {
      mimeType: 'text/plain',
      headers: [{ name: 'Content-Type', value: 'text/plain; charset=ISO-8859-1' }],
      body: { size: 5, data: b64u('Gr\u00fc\u00dfe caf\u00e9', 'latin1') },
    };
    expect(messageBodyText(payload)).toBe('Grüße café');
    const win: GmailPart = {
      mimeType: 'text/plain',
      headers: [{ name: 'Content-Type', value: 'text/plain; charset="windows-1252"' }],
      body: { size: 3, data: Buffer.from([0x93, 0x68, 0x69, 0x94, 0x20, 0x80]).toString('base64url') },
    };
    expect(messageBodyText(win)).toBe('\u201chi\u201d \u20ac');
  });

  it('decodes base64url with - and _ and normalises line ends', () => {
    const text = 'line1\r\n??>>\r\nline3 ~~~';
    expect(b64u(text)).toMatch(/[-_]/);
    expect(messageBodyText(part('text/plain', text))).toBe('line1\n??>>\nline3 ~~~');
  });

  it('reads messages parsed from real MIME (base64, quoted-printable, latin-1, attachments)', () => {
    const cases = [
      buildRawMessage({ from: 'a@x.org', to: 'b@y.org', subject: 's', text: 'Plain ünïcode', html: '<p>HTML</p>' }),
      buildRawMessage({ from: 'a@x.org', to: 'b@y.org', subject: 's', text: 'Qüoted = printable', transferEncoding: 'quoted-printable' }),
      buildRawMessage({ from: 'a@x.org', to: 'b@y.org', subject: 's', text: 'Latin-1 café', charset: 'iso-8859-1', transferEncoding: '8bit' }),
      buildRawMessage({
        from: 'a@x.org',
        to: 'b@y.org',
        subject: 's',
        html: '<div>Only <i>HTML</i></div>',
        attachment: { filename: 'a.bin', mimeType: 'application/octet-stream', content: Buffer.from('binary') },
      }),
    ];
    expect(cases.map((raw) => messageBodyText(parseMime(raw)))).toEqual(['Plain ünïcode', 'Qüoted = printable', 'Latin-1 café', 'Only HTML']);
  });

  it('decodes RFC 2047 words in B and Q forms and other charsets, and leaves plain text alone', () => {
    expect(decodeEncodedWords(`=?UTF-8?B?${Buffer.from('Éléonore').toString('base64')}?=`)).toBe('Éléonore');
    expect(decodeEncodedWords('=?KOI8-R?B?8NLJ18XU?=')).toBe('Привет');
    expect(decodeEncodedWords('=?ISO-8859-1?Q?Caf=E9_cr=E8me?=')).toBe('Café crème');
    expect(decodeEncodedWords('=?UTF-8?Q?a?= =?UTF-8?Q?b?= c')).toBe('ab c');
    expect(decodeEncodedWords('Already decoded: Grüße')).toBe('Already decoded: Grüße');
  });

  it("decodes Gmail's HTML-escaped snippets", () => {
    expect(decodeSnippet('It&#39;s &quot;done&quot; &amp; &lt;ok&gt;')).toBe('It\'s "done" & <ok>');
    expect(decodeSnippet(undefined)).toBe('');
  });
});
