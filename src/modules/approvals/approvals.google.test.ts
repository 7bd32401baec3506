/**
 * Approvals of a connected Google account's mail and files, run to the end against the fake
 * Google: each class under `ask`, nothing sent, trashed, uploaded or deleted before approval,
 * and after it exactly one call of the kind, its answer readable by the requesting token alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveAndRead, expectHeld, outsiders, policyToken } from '../../../test/approvals.helpers.js';
import { connectGoogle } from '../../../test/fakes/google.js';
import { closeGoogleApp, startGoogleApp, type GoogleApp } from '../../../test/google-app.js';
import type { Owner } from '../../../test/harness.js';

let google: GoogleApp;
let owner: Owner;
let requester: { token: string; id: string };
let others: string[];

beforeAll(async () => {
  google = await startGoogleApp();
  const { t, fake } = google;
  owner = await t.createOwner('Google approvals owner');
  expect((await connectGoogle(t, fake, owner)).status).toBe(200);
  requester = await policyToken(t, owner, ['services:write'], { 'mail.send': 'ask', 'mail.trash': 'ask', 'files.upload': 'ask', 'files.delete': 'ask' });
  others = await outsiders(t, owner, ['services:write']);
});

afterAll(async () => closeGoogleApp(google ?? {}));

const ask = (method: 'POST' | 'DELETE', url: string, body?: unknown) => google.t.request(method, url, { token: requester.token, body });
const classOf = async (approvalId: string) => (await google.t.request('GET', `/api/v1/approvals/${approvalId}`, { token: owner.token })).body.data.actionClass;

describe('Google classes under ask', () => {
  it('mail.send: the mail is sent once, after approval', async () => {
    const { t, fake } = google;
    const sends = fake.count('gmail.messages.send');
    const approvalId = expectHeld(await ask('POST', '/api/v1/services/google/mail/send', { to: 'ann@example.org', subject: 'Approved plans', body: 'the approved text' }));
    expect(await classOf(approvalId)).toBe('mail.send');
    expect(fake.count('gmail.messages.send')).toBe(sends);

    const answer = await approveAndRead(t, approvalId, { owner, requester: requester.token, others });
    expect(answer).toEqual({ success: true, messageId: expect.any(String), threadId: expect.any(String) });
    expect(fake.count('gmail.messages.send')).toBe(sends + 1);
    const sent = fake.sent.filter((s) => s.raw.includes('Subject: Approved plans'));
    expect(sent.map((s) => s.id)).toEqual([answer.messageId]);
    expect(sent[0]!.raw).toContain('the approved text');
  });

  it('mail.trash: the message is trashed once, after approval', async () => {
    const { t, fake } = google;
    const message = fake.addMessage({ from: 'news@example.org', to: 'owner@gmail.test', subject: 'Old news', text: 'x' }, ['INBOX']);
    const trashes = fake.count('gmail.messages.trash');
    const approvalId = expectHeld(await ask('DELETE', `/api/v1/services/google/mail/messages/${message.id}`));
    expect(await classOf(approvalId)).toBe('mail.trash');
    expect(message.labelIds).not.toContain('TRASH');
    expect(fake.count('gmail.messages.trash')).toBe(trashes);

    const answer = await approveAndRead(t, approvalId, { owner, requester: requester.token, others });
    expect(answer).toEqual({ success: true, messageId: message.id, trashed: true });
    expect(fake.messages.find((m) => m.id === message.id)!.labelIds).toContain('TRASH');
    expect(fake.count('gmail.messages.trash')).toBe(trashes + 1);
  });

  it('files.upload: the file is uploaded once, after approval', async () => {
    const { t, fake } = google;
    const uploads = fake.count('drive.files.create');
    const named = () => [...fake.files.values()].filter((f) => f.name === 'approved-upload.txt');
    const approvalId = expectHeld(await ask('POST', '/api/v1/services/google/storage/upload', { name: 'approved-upload.txt', content: 'uploaded after approval' }));
    expect(await classOf(approvalId)).toBe('files.upload');
    expect(named()).toEqual([]);
    expect(fake.count('drive.files.create')).toBe(uploads);

    const answer = await approveAndRead(t, approvalId, { owner, requester: requester.token, others });
    expect(answer).toMatchObject({ success: true, file: { id: expect.any(String), name: 'approved-upload.txt', mimeType: 'text/plain' } });
    expect(named().map((f) => f.id)).toEqual([answer.file.id]);
    expect(named()[0]!.content.toString('utf8')).toBe('uploaded after approval');
    expect(fake.count('drive.files.create')).toBe(uploads + 1);
  });

  it('files.delete: the file is deleted once, after approval', async () => {
    const { t, fake } = google;
    const file = fake.addFile({ name: 'doomed.txt', content: Buffer.from('old') });
    const deletes = fake.count('drive.files.delete');
    const approvalId = expectHeld(await ask('DELETE', `/api/v1/services/google/storage/files/${file.id}`));
    expect(await classOf(approvalId)).toBe('files.delete');
    expect(fake.files.has(file.id)).toBe(true);
    expect(fake.count('drive.files.delete')).toBe(deletes);

    const answer = await approveAndRead(t, approvalId, { owner, requester: requester.token, others });
    expect(answer).toEqual({ success: true, fileId: file.id, deleted: true });
    expect(fake.files.has(file.id)).toBe(false);
    expect(fake.count('drive.files.delete')).toBe(deletes + 1);
  });
});

describe('what the owner is shown is what is sent', () => {
  it('mail.send names every recipient (to, cc, bcc) in full, and the request shows every field', async () => {
    const { t, fake } = google;
    const to = 'ann@example.org, Bob <bob@example.org>, carol@example.org';
    const approvalId = expectHeld(
      await ask('POST', '/api/v1/services/google/mail/send', { to, subject: 'Quarterly\nBcc: x@evil.example', body: 'the text', cc: 'dan@example.org', bcc: 'spy@evil.example' }),
    );
    const data = (await t.request('GET', `/api/v1/approvals/${approvalId}`, { token: owner.token })).body.data;
    expect(data.description).toBe(
      `test services:write wants to send mail to \`${to}\`, cc \`dan@example.org\`, bcc \`spy@evil.example\`, with the subject \`Quarterly\\nBcc: x@evil.example\` and a text of 8 characters`,
    );
    expect(data.request.fields.map((f: any) => [f.name, f.value])).toEqual([
      ['to', to],
      ['subject', 'Quarterly\nBcc: x@evil.example'],
      ['body', 'the text'],
      ['cc', 'dan@example.org'],
      ['bcc', 'spy@evil.example'],
    ]);
    const sends = fake.count('gmail.messages.send');
    await t.request('POST', `/api/v1/approvals/${approvalId}/deny`, { token: owner.token });
    expect(fake.count('gmail.messages.send')).toBe(sends);
  });
});
