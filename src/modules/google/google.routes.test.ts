import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiError, buildRawMessage, connectGoogle, parseHeaders, startFakeGoogle, SCOPE, type FakeGoogle } from '../../../test/fakes/google.js';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { decodeEncodedWords } from './google.mime.js';

const CLIENT_ID = 'hearth-google.apps.googleusercontent.com';
const CLIENT_SECRET = 'GOCSPX-google-secret';
const MAIL = '/api/v1/services/google/mail/messages';
const SEND = '/api/v1/services/google/mail/send';
const FILES = '/api/v1/services/google/storage/files';
const UPLOAD = '/api/v1/services/google/storage/upload';

let fake: FakeGoogle;
let t: TestApp;
let owner: Owner;

beforeAll(async () => {
  fake = await startFakeGoogle({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  t = await createTestApp({
    config: { allowPrivateNetwork: true, google: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, endpointOverride: fake.url } },
  });
  owner = await t.createOwner();
  expect((await connectGoogle(t, fake, owner)).status).toBe(200);
});

afterAll(async () => {
  await t?.close();
  await fake?.close();
});

describe('mail: list', () => {
  const base = Date.now() - 1_000_000;
  let ids: string[];

  beforeAll(() => {
    ids = [];
    for (let i = 0; i < 7; i++) {
      const m = fake.addMessage(
        { from: `Sender ${i} <s${i}@example.org>`, to: 'owner@gmail.test', subject: i === 6 ? 'Réunion — compte rendu' : `Message ${i}`, text: `Body ${i}: it's "quoted" & <b>` },
        i % 2 === 0 ? ['INBOX', 'UNREAD'] : ['INBOX'],
        base + i * 1000,
      );
      ids.push(m.id);
    }
  });

  it('answers the newest 5 by default, with every field of a list item, then the next page', async () => {
    const res = await t.request('GET', MAIL, { token: owner.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['messages', 'nextPageToken', 'success']);
    expect(res.body.success).toBe(true);
    expect(res.body.messages).toHaveLength(5);
    expect(typeof res.body.nextPageToken).toBe('string');
    const newest = res.body.messages[0];
    expect(newest).toEqual({
      id: ids[6],
      threadId: ids[6],
      subject: 'Réunion — compte rendu',
      from: 'Sender 6 <s6@example.org>',
      to: 'owner@gmail.test',
      date: new Date(base + 6000).toISOString(),
      snippet: 'Body 6: it\'s "quoted" & <b>',
      isUnread: true,
    });
    expect(res.body.messages[1].isUnread).toBe(false);
    expect(res.body.messages.map((m: any) => m.id)).toEqual([ids[6], ids[5], ids[4], ids[3], ids[2]]);

    const next = await t.request('GET', MAIL, { token: owner.token, query: { pageToken: res.body.nextPageToken, maxResults: 5 } });
    expect(next.status).toBe(200);
    expect(next.body.messages.map((m: any) => m.id)).toEqual([ids[1], ids[0]]);
    expect(next.body.nextPageToken).toBeNull();
  });

  it('passes maxResults and q to Gmail', async () => {
    const res = await t.request('GET', MAIL, { token: owner.token, query: { maxResults: 20, q: 'is:unread' } });
    expect(res.status).toBe(200);
    expect(res.body.messages.map((m: any) => m.id)).toEqual([ids[6], ids[4], ids[2], ids[0]]);
    expect(res.body.messages.every((m: any) => m.isUnread)).toBe(true);
  });

  it('refuses maxResults outside 1..20 and Gmail-refused page tokens with 400', async () => {
    for (const maxResults of [0, 21, 500]) {
      expectError(await t.request('GET', MAIL, { token: owner.token, query: { maxResults } }), 400, 'VALIDATION_ERROR');
    }
    expectError(await t.request('GET', MAIL, { token: owner.token, query: { maxResults: 'many' } }), 400, 'VALIDATION_ERROR');
    const bad = await t.request('GET', MAIL, { token: owner.token, query: { pageToken: 'not-a-gmail-token' } });
    expect(expectError(bad, 400, 'VALIDATION_ERROR').message).toMatch(/Invalid pageToken/);
  });

  it('answers an empty page when nothing matches', async () => {
    const res = await t.request('GET', MAIL, { token: owner.token, query: { q: 'from:nobody-at-all' } });
    expect(res.body).toEqual({ success: true, messages: [], nextPageToken: null });
  });
});

describe('mail: read', () => {
  it('answers the message with its text/plain body', async () => {
    const m = fake.addMessage({ from: 'ann@example.org', to: 'owner@gmail.test', subject: 'Plain', text: 'Dear owner,\nthe plain part.', html: '<p>the <b>HTML</b> part</p>' });
    const res = await t.request('GET', `${MAIL}/${m.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      message: {
        id: m.id,
        subject: 'Plain',
        from: 'ann@example.org',
        to: 'owner@gmail.test',
        date: new Date(m.internalDate).toISOString(),
        snippet: 'Dear owner, the plain part.',
        body: 'Dear owner,\nthe plain part.',
        isUnread: true,
      },
    });
  });

  it('turns an HTML-only message into text, past attachments, in its charset', async () => {
    const m = fake.addMessage(
      buildRawMessage({
        from: 'shop@example.org',
        to: 'owner@gmail.test',
        subject: 'Votre commande',
        html: '<html><body><h1>Merci</h1><p>Total&nbsp;: 12&nbsp;&euro; &mdash; café</p><script>track()</script></body></html>',
        charset: 'iso-8859-1',
        transferEncoding: 'quoted-printable',
        attachment: { filename: 'facture.pdf', mimeType: 'application/pdf', content: Buffer.from('%PDF-1.4') },
      }),
    );
    const res = await t.request('GET', `${MAIL}/${m.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.message.body).toContain('Merci');
    expect(res.body.message.body).toContain('Total\u00a0: 12\u00a0€ — café');
    expect(res.body.message.body).not.toMatch(/<|track\(\)|%PDF/);
  });

  it('answers 404 for a message Gmail does not have, and 400 for a malformed id', async () => {
    expectError(await t.request('GET', `${MAIL}/0123456789abcdef`, { token: owner.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${MAIL}/${encodeURIComponent('../../drive')}`, { token: owner.token }), 400, 'VALIDATION_ERROR');
  });
});

describe('mail: trash', () => {
  it('moves the message to Trash, after which the list no longer shows it', async () => {
    const m = fake.addMessage({ from: 'spam@example.org', to: 'owner@gmail.test', subject: 'Trash me', text: 'x' }, ['INBOX'], Date.now() + 60_000);
    const res = await t.request('DELETE', `${MAIL}/${m.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, messageId: m.id, trashed: true });
    expect(fake.messages.find((x) => x.id === m.id)!.labelIds).toContain('TRASH');
    const list = await t.request('GET', MAIL, { token: owner.token, query: { maxResults: 20 } });
    expect(list.body.messages.map((x: any) => x.id)).not.toContain(m.id);
    expectError(await t.request('DELETE', `${MAIL}/fedcba9876543210`, { token: owner.token }), 404, 'NOT_FOUND');
  });
});

describe('mail: send', () => {
  it('sends an RFC 2822 message with an encoded subject, Cc and Bcc, and answers its ids', async () => {
    const res = await t.request('POST', SEND, {
      token: owner.token,
      body: { to: 'Ann <ann@example.org>, bob@example.org', subject: 'Übermorgen — 会議', body: 'Hallo Ann,\nbis übermorgen.', cc: 'carol@example.org', bcc: 'dave@example.org' },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['messageId', 'success', 'threadId']);
    expect(res.body.success).toBe(true);
    const sent = fake.sent.find((s) => s.id === res.body.messageId)!;
    expect(sent).toBeDefined();
    expect(res.body.threadId).toBe(sent.id);
    expect(sent.raw).not.toMatch(/[^\r]\n/);
    const head = sent.raw.slice(0, sent.raw.indexOf('\r\n\r\n'));
    const headers = Object.fromEntries(parseHeaders(head).map((h) => [h.name.toLowerCase(), h.value]));
    expect(headers.to).toBe('Ann <ann@example.org>, bob@example.org');
    expect(headers.cc).toBe('carol@example.org');
    expect(headers.bcc).toBe('dave@example.org');
    expect(headers.subject).toMatch(/^=\?UTF-8\?B\?/);
    expect(decodeEncodedWords(headers.subject!)).toBe('Übermorgen — 会議');

    // Read back through Hearth: Gmail keeps the sent message.
    const read = await t.request('GET', `${MAIL}/${res.body.messageId}`, { token: owner.token });
    expect(read.body.message).toMatchObject({ subject: 'Übermorgen — 会議', body: 'Hallo Ann,\nbis übermorgen.', from: 'owner@gmail.test' });
  });

  it('accepts null cc and bcc', async () => {
    const res = await t.request('POST', SEND, { token: owner.token, body: { to: 'ann@example.org', subject: 'Hi', body: 'x', cc: null, bcc: null } });
    expect(res.status).toBe(200);
    const sent = fake.sent.find((s) => s.id === res.body.messageId)!;
    expect(sent.raw).not.toMatch(/^(Cc|Bcc):/im);
  });

  it('refuses a missing field, a bad address and header injection with 400, sending nothing', async () => {
    const sends = fake.count('gmail.messages.send');
    const cases = [
      { subject: 's', body: 'b' },
      { to: 'ann@example.org', body: 'b' },
      { to: 'ann@example.org', subject: 's' },
      { to: 'not an address', subject: 's', body: 'b' },
      { to: 'ann@example.org', subject: 's\r\nBcc: evil@example.org', body: 'b' },
      { to: 'ann@example.org', cc: 'x@example.org\nBcc: evil@example.org', subject: 's', body: 'b' },
      { to: 'ann@example.org', subject: 's', body: 'b', from: 'ceo@example.org' },
    ];
    for (const body of cases) expectError(await t.request('POST', SEND, { token: owner.token, body }), 400, 'VALIDATION_ERROR');
    // The message builder names the header; the route places it in the body.
    const injected = expectError(
      await t.request('POST', SEND, { token: owner.token, body: { to: 'ann@example.org', subject: 's\r\nBcc: evil@example.org', body: 'b' } }),
      400,
      'VALIDATION_ERROR',
    );
    expect(injected.details).toEqual([{ field: 'body.subject', message: 'must not contain line breaks' }]);
    expect(fake.count('gmail.messages.send')).toBe(sends);
  });
});

describe('storage', () => {
  it('lists files with the default page size of 20 and the fields of each file', async () => {
    for (let i = 0; i < 22; i++) fake.addFile({ name: `note-${i}.txt`, content: Buffer.from(`note ${i}`), modifiedTime: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString() });
    fake.addFile({ name: 'Plan', mimeType: 'application/vnd.google-apps.document', modifiedTime: new Date(Date.UTC(2025, 0, 2)).toISOString() });
    const res = await t.request('GET', FILES, { token: owner.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['files', 'nextPageToken', 'success']);
    expect(res.body.files).toHaveLength(20);
    expect(typeof res.body.nextPageToken).toBe('string');
    const doc = res.body.files[0];
    expect(doc).toEqual({
      id: expect.any(String),
      name: 'Plan',
      mimeType: 'application/vnd.google-apps.document',
      size: null,
      modifiedTime: '2025-01-02T00:00:00.000Z',
      webViewLink: expect.stringMatching(/^https:\/\/drive\.google\.com\//),
    });
    expect(res.body.files[1]).toMatchObject({ name: 'note-21.txt', mimeType: 'text/plain', size: 7 });
    const next = await t.request('GET', FILES, { token: owner.token, query: { pageToken: res.body.nextPageToken, pageSize: 100 } });
    expect(next.body.files.length).toBeGreaterThanOrEqual(3);
    expect(next.body.nextPageToken).toBeNull();
  });

  it('passes q to Drive; refuses pageSize outside 1..100 and a query Drive refuses with 400', async () => {
    const res = await t.request('GET', FILES, { token: owner.token, query: { q: "name contains 'note-1' and trashed = false", pageSize: 100 } });
    expect(res.status).toBe(200);
    expect(res.body.files.map((f: any) => f.name).sort()).toEqual(['note-1.txt', ...Array.from({ length: 10 }, (_, i) => `note-1${i}.txt`)].sort());
    for (const pageSize of [0, 101]) expectError(await t.request('GET', FILES, { token: owner.token, query: { pageSize } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('GET', FILES, { token: owner.token, query: { q: 'this is not drive syntax' } }), 400, 'VALIDATION_ERROR');
  });

  it('uploads text and base64 content with a multipart upload, into a folder when asked', async () => {
    const text = await t.request('POST', UPLOAD, { token: owner.token, body: { name: 'hello.txt', content: 'Grüße ✓' } });
    expect(text.status).toBe(200);
    expect(text.body).toEqual({
      success: true,
      file: { id: expect.any(String), name: 'hello.txt', mimeType: 'text/plain', size: Buffer.byteLength('Grüße ✓'), modifiedTime: expect.any(String), webViewLink: expect.any(String) },
    });
    expect(fake.files.get(text.body.file.id)!.content.toString('utf8')).toBe('Grüße ✓');

    const folder = fake.addFile({ name: 'Reports', mimeType: 'application/vnd.google-apps.folder' });
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0x2d, 0x2d]);
    const binary = await t.request('POST', UPLOAD, {
      token: owner.token,
      body: { name: 'pixel.png', content: png.toString('base64'), mimeType: 'image/png', encoding: 'base64', folderId: folder.id },
    });
    expect(binary.status).toBe(200);
    expect(binary.body.file).toMatchObject({ name: 'pixel.png', mimeType: 'image/png', size: png.length });
    const stored = fake.files.get(binary.body.file.id)!;
    expect(stored.content.equals(png)).toBe(true);
    expect(stored.parents).toEqual([folder.id]);
  });

  it('refuses invalid base64, a bad MIME type and an unknown folder', async () => {
    expectError(await t.request('POST', UPLOAD, { token: owner.token, body: { name: 'x', content: '***', encoding: 'base64' } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('POST', UPLOAD, { token: owner.token, body: { name: 'x', content: 'x', mimeType: 'text/plain\r\nX-Evil: 1' } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('POST', UPLOAD, { token: owner.token, body: { name: 'x', content: 'x', encoding: 'hex' } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('POST', UPLOAD, { token: owner.token, body: { name: 'x', content: 'x', folderId: 'NoSuchFolder123' } }), 404, 'NOT_FOUND');
  });

  it('reads a file: text as text, other bytes as base64, Google documents as an export', async () => {
    const text = fake.addFile({ name: 'notes.md', mimeType: 'text/markdown', content: Buffer.from('# Grüße\n') });
    const res = await t.request('GET', `${FILES}/${text.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      file: { id: text.id, name: 'notes.md', mimeType: 'text/markdown', size: Buffer.byteLength('# Grüße\n'), modifiedTime: expect.any(String), webViewLink: expect.any(String) },
      content: '# Grüße\n',
      encoding: 'utf8',
      exportedAs: null,
    });
    const bytes = Buffer.from([0x00, 0xff, 0x10, 0x80]);
    const binary = fake.addFile({ name: 'blob.bin', mimeType: 'application/octet-stream', content: bytes });
    const read = await t.request('GET', `${FILES}/${binary.id}`, { token: owner.token });
    expect(read.body).toMatchObject({ encoding: 'base64', content: bytes.toString('base64') });
    const doc = fake.addFile({ name: 'Plan', mimeType: 'application/vnd.google-apps.document', content: Buffer.from('The plan, as text.') });
    const exported = await t.request('GET', `${FILES}/${doc.id}`, { token: owner.token });
    expect(exported.body).toMatchObject({ content: 'The plan, as text.', encoding: 'utf8', exportedAs: 'text/plain' });
    expectError(await t.request('GET', `${FILES}/NoSuchFile123`, { token: owner.token }), 404, 'NOT_FOUND');
    const big = fake.addFile({ name: 'big.bin', mimeType: 'application/octet-stream', content: Buffer.alloc(5 * 1024 * 1024 + 1) });
    expectError(await t.request('GET', `${FILES}/${big.id}`, { token: owner.token }), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('deletes a file; a second delete is 404', async () => {
    const file = fake.addFile({ name: 'old.txt', content: Buffer.from('old') });
    const res = await t.request('DELETE', `${FILES}/${file.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, fileId: file.id, deleted: true });
    expect(fake.files.has(file.id)).toBe(false);
    expectError(await t.request('DELETE', `${FILES}/${file.id}`, { token: owner.token }), 404, 'NOT_FOUND');
  });
});

describe('Google failing', () => {
  it('answers 502 UPSTREAM_ERROR for Google 5xx and rate limits, never 500', async () => {
    fake.failNext('gmail.messages.list', 500, apiError(500, 'Backend Error', 'backendError', 'INTERNAL'));
    expectError(await t.request('GET', MAIL, { token: owner.token }), 502, 'UPSTREAM_ERROR');
    fake.failNext('drive.files.list', 403, apiError(403, 'User rate limit exceeded.', 'userRateLimitExceeded'));
    expect(expectError(await t.request('GET', FILES, { token: owner.token }), 502, 'UPSTREAM_ERROR').message).toMatch(/rate/);
    fake.failNext('gmail.messages.send', 429, apiError(429, 'Too many requests', 'rateLimitExceeded', 'RESOURCE_EXHAUSTED'));
    expectError(await t.request('POST', SEND, { token: owner.token, body: { to: 'a@example.org', subject: 's', body: 'b' } }), 502, 'UPSTREAM_ERROR');
    fake.failNext('drive.files.create', 503, { not: 'google shaped' });
    expectError(await t.request('POST', UPLOAD, { token: owner.token, body: { name: 'x', content: 'x' } }), 502, 'UPSTREAM_ERROR');
  });
});

describe('not connected, scopes missing, and access', () => {
  it('without a connection: mail 403, storage list 401, storage writes 403, all PROVIDER_NOT_CONNECTED', async () => {
    const other = await t.createOwner();
    const mail = expectError(await t.request('GET', MAIL, { token: other.token }), 403, 'PROVIDER_NOT_CONNECTED');
    expect(mail.message).toMatch(/GET \/api\/v1\/oauth\/authorize\/google/);
    expectError(await t.request('GET', `${MAIL}/0123456789abcdef`, { token: other.token }), 403, 'PROVIDER_NOT_CONNECTED');
    expectError(await t.request('DELETE', `${MAIL}/0123456789abcdef`, { token: other.token }), 403, 'PROVIDER_NOT_CONNECTED');
    expectError(await t.request('POST', SEND, { token: other.token, body: { to: 'a@example.org', subject: 's', body: 'b' } }), 403, 'PROVIDER_NOT_CONNECTED');
    const list = await t.request('GET', FILES, { token: other.token });
    expectError(list, 401, 'PROVIDER_NOT_CONNECTED');
    expectError(await t.request('POST', UPLOAD, { token: other.token, body: { name: 'x', content: 'x' } }), 403, 'PROVIDER_NOT_CONNECTED');
    expectError(await t.request('DELETE', `${FILES}/abc`, { token: other.token }), 403, 'PROVIDER_NOT_CONNECTED');
  });

  it("another owner's messages and files are out of reach: each owner uses only their own connection", async () => {
    const other = await t.createOwner();
    const m = fake.addMessage({ from: 'a@example.org', to: 'owner@gmail.test', subject: 'Private', text: 'mine' });
    expectError(await t.request('GET', `${MAIL}/${m.id}`, { token: other.token }), 403, 'PROVIDER_NOT_CONNECTED');
    const reader = await t.tokenWithScopes(other, ['services:read', 'services:write']);
    expectError(await t.request('GET', `${MAIL}/${m.id}`, { token: reader }), 403, 'PROVIDER_NOT_CONNECTED');
  });

  it('without the Drive file scope granted: upload 403 and list 401 say to reconnect; mail still works', async () => {
    const partial = await t.createOwner();
    fake.options.withheldScopes = [SCOPE.driveFile];
    try {
      expect((await connectGoogle(t, fake, partial)).status).toBe(200);
    } finally {
      fake.options.withheldScopes = [];
    }
    const uploads = fake.count('drive.files.create');
    const upload = expectError(await t.request('POST', UPLOAD, { token: partial.token, body: { name: 'x', content: 'x' } }), 403, 'PROVIDER_NOT_CONNECTED');
    expect(upload.message).toMatch(/reconnect with GET \/api\/v1\/oauth\/authorize\/google/);
    expect(fake.count('drive.files.create')).toBe(uploads);
    expectError(await t.request('GET', FILES, { token: partial.token }), 401, 'PROVIDER_NOT_CONNECTED');
    expect((await t.request('GET', MAIL, { token: partial.token })).status).toBe(200);
  });

  it('without the Gmail scope granted: mail answers 403 PROVIDER_NOT_CONNECTED', async () => {
    const partial = await t.createOwner();
    fake.options.withheldScopes = [SCOPE.gmailModify];
    try {
      expect((await connectGoogle(t, fake, partial)).status).toBe(200);
    } finally {
      fake.options.withheldScopes = [];
    }
    expectError(await t.request('GET', MAIL, { token: partial.token }), 403, 'PROVIDER_NOT_CONNECTED');
    expectError(await t.request('POST', SEND, { token: partial.token, body: { to: 'a@example.org', subject: 's', body: 'b' } }), 403, 'PROVIDER_NOT_CONNECTED');
    expect((await t.request('GET', FILES, { token: partial.token })).status).toBe(200);
  });

  it('Google refusing a permission mid-call (403 insufficient scopes) answers 403 to reconnect', async () => {
    fake.failNext('gmail.messages.trash', 403, {
      error: {
        code: 403,
        message: 'Request had insufficient authentication scopes.',
        errors: [{ message: 'Insufficient Permission', domain: 'global', reason: 'insufficientPermissions' }],
        status: 'PERMISSION_DENIED',
      },
    });
    const m = fake.addMessage({ from: 'a@example.org', to: 'owner@gmail.test', subject: 'x', text: 'x' });
    expectError(await t.request('DELETE', `${MAIL}/${m.id}`, { token: owner.token }), 403, 'PROVIDER_NOT_CONNECTED');
  });

  it('reading needs services:read; sending, trashing, uploading and deleting need services:write', async () => {
    const reader = await t.tokenWithScopes(owner, ['services:read']);
    const writer = await t.tokenWithScopes(owner, ['services:write']);
    const m = fake.addMessage({ from: 'a@example.org', to: 'owner@gmail.test', subject: 'Scopes', text: 'x' });
    expect((await t.request('GET', MAIL, { token: reader })).status).toBe(200);
    expect((await t.request('GET', `${MAIL}/${m.id}`, { token: reader })).status).toBe(200);
    expect((await t.request('GET', FILES, { token: reader })).status).toBe(200);
    expectError(await t.request('GET', MAIL, { token: writer }), 403, 'INSUFFICIENT_SCOPE');
    expectError(await t.request('GET', FILES, { token: writer }), 403, 'INSUFFICIENT_SCOPE');
    expectError(await t.request('POST', SEND, { token: reader, body: { to: 'a@example.org', subject: 's', body: 'b' } }), 403, 'INSUFFICIENT_SCOPE');
    expectError(await t.request('DELETE', `${MAIL}/${m.id}`, { token: reader }), 403, 'INSUFFICIENT_SCOPE');
    expectError(await t.request('POST', UPLOAD, { token: reader, body: { name: 'x', content: 'x' } }), 403, 'INSUFFICIENT_SCOPE');
    expectError(await t.request('DELETE', `${FILES}/abc`, { token: reader }), 403, 'INSUFFICIENT_SCOPE');
    const memoryOnly = await t.tokenWithScopes(owner, ['memory']);
    expectError(await t.request('GET', MAIL, { token: memoryOnly }), 403, 'INSUFFICIENT_SCOPE');
    for (const [method, url] of [
      ['GET', MAIL],
      ['GET', `${MAIL}/${m.id}`],
      ['DELETE', `${MAIL}/${m.id}`],
      ['POST', SEND],
      ['GET', FILES],
      ['POST', UPLOAD],
      ['DELETE', `${FILES}/abc`],
    ] as const) {
      expectError(await t.request(method, url), 401, 'UNAUTHORIZED');
    }
    expect((await t.request('DELETE', `${MAIL}/${m.id}`, { token: writer })).status).toBe(200);
  });

  it('the static mail and storage routes are served by this module, not the generic pass-through', async () => {
    // Both exist; the router prefers the static segments.
    const passThrough = t.app.routeCatalog.find((r) => r.method === 'GET' && /^\/api\/v1\/services\/\{[^}]+\}\/\{path\}$/.test(r.path));
    expect(passThrough).toBeDefined();
    const res = await t.request('GET', MAIL, { token: owner.token, query: { maxResults: 1 } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['messages', 'nextPageToken', 'success']);
    const files = await t.request('GET', FILES, { token: owner.token, query: { pageSize: 1 } });
    expect(Object.keys(files.body).sort()).toEqual(['files', 'nextPageToken', 'success']);
    const routes = t.app.routeCatalog.filter((r) => r.path.startsWith('/api/v1/services/google/'));
    expect(routes.map((r) => `${r.method} ${r.path}`).sort()).toEqual(
      [
        'DELETE /api/v1/services/google/mail/messages/{messageId}',
        'DELETE /api/v1/services/google/storage/files/{fileId}',
        'GET /api/v1/services/google/mail/messages',
        'GET /api/v1/services/google/mail/messages/{messageId}',
        'GET /api/v1/services/google/storage/files',
        'GET /api/v1/services/google/storage/files/{fileId}',
        'POST /api/v1/services/google/mail/send',
        'POST /api/v1/services/google/storage/upload',
      ].sort(),
    );
  });
});

describe('a connection whose stored token was tampered with', () => {
  it("answers 500 INTEGRITY_ERROR naming the connection, sends nothing to Google, and audits it as tampering", async () => {
    const victim = await t.createOwner('Tampered connection');
    expect((await connectGoogle(t, fake, victim)).status).toBe(200);
    // The refresh token's ciphertext copied over the access token's: sealed for another field, it does not open.
    const row = await t.storage.db.selectFrom('oauth_connections').select(['id', 'refresh_token_sealed']).where('owner_id', '=', victim.id).executeTakeFirstOrThrow();
    const moved = row.refresh_token_sealed;
    if (!moved) throw new Error('the connection has no refresh token to move');
    await t.storage.db.updateTable('oauth_connections').set({ access_token_sealed: moved }).where('id', '=', row.id).execute();
    const total = () => Object.values(fake.counts).reduce((sum, n) => sum + n, 0);
    const before = total();
    const res = await t.request('GET', MAIL, { token: victim.token });
    const error = expectError(res, 500, 'INTEGRITY_ERROR');
    expect(error.message).toMatch(/oauth connection google \(access token\) failed its integrity check/);
    expect(total()).toBe(before);
    const audit = await t.request('GET', '/api/v1/audit/log', { token: victim.token, query: { action: 'secret.tampered' } });
    expect(audit.body.data).toEqual([expect.objectContaining({ targetType: 'oauth_connection', targetId: 'google', details: expect.objectContaining({ record: 'oauth_connections:google:access_token' }) })]);
  });
});
