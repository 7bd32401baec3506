/**
 * Chat through the running app, against a local fake of OpenAI's chat-completions API
 * (test/fakes/openai.ts). ALLOW_PRIVATE_NETWORK stays off in these apps: the fake answers on
 * 127.0.0.1, which Hearth reaches only because it is the configured LLM_BASE_URL.
 */
import { randomBytes } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type ApiResponse, type Owner, type TestApp } from '../../../test/harness.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../../test/fakes/openai.js';

let fake: FakeOpenAI;
let t: TestApp;
let owner: Owner;
let other: Owner;

const SSE = { accept: 'text/event-stream' };

// Three paragraphs, each long enough to be a passage of its own.
// Three paragraphs of about 300 words each: the knowledge base cuts it into several passages.
const JOURNAL = [
  `The tomatoes were planted in April. ${'Tomato seedlings grew tall under the window. '.repeat(40)}`,
  `The greenhouse heater broke in March and was replaced by a paraffin heater. ${'It kept the seedlings warm through the frost. '.repeat(40)}`,
  `The roses need pruning in February. ${'Rose bushes along the fence bloomed in summer. '.repeat(40)}`,
].join('\n\n');

beforeAll(async () => {
  fake = await startFakeOpenAI();
  t = await createTestApp({ config: { llm: { baseUrl: `${fake.url}/v1`, apiKey: fake.apiKey, model: 'test-model', timeoutMs: 2000 } } });
  expect(t.config.allowPrivateNetwork).toBe(false);
  owner = await t.createOwner('Chat Owner');
  other = await t.createOwner('Other Owner');
});
afterAll(async () => {
  await t.close();
  await fake.close();
});
beforeEach(() => fake.reset());

const unique = () => randomBytes(3).toString('hex');

async function createDocument(app: TestApp, who: Owner, title: string, content: string): Promise<string> {
  const res = await app.request('POST', '/api/v1/brain/knowledge-base', { token: who.token, body: { title, content } });
  if (res.status !== 200 && res.status !== 201) throw new Error(`createDocument failed: ${res.status} ${res.text}`);
  return res.body.data.id;
}

async function activePersona(app: TestApp, who: Owner, soul: string, documentIds: string[] = []): Promise<string> {
  const created = await app.request('POST', '/api/v1/personas', { token: who.token, body: { name: `Persona ${unique()}`, soul_content: soul } });
  if (created.status !== 201) throw new Error(`persona failed: ${created.text}`);
  const id = created.body.data.id as string;
  const activated = await app.request('POST', `/api/v1/personas/${id}/activate`, { token: who.token });
  if (activated.status !== 200) throw new Error(`activate failed: ${activated.text}`);
  for (const documentId of documentIds) {
    const attached = await app.request('POST', `/api/v1/personas/${id}/documents`, { token: who.token, body: { documentId } });
    if (attached.status !== 201 && attached.status !== 200) throw new Error(`attach failed: ${attached.text}`);
  }
  return id;
}

function chat(app: TestApp, token: string, body: unknown, headers: Record<string, string> = {}) {
  return app.request('POST', '/api/v1/brain/chat', { token, body, headers });
}

interface SseEvent {
  event: string;
  data: any;
}

function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
      const data = lines
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      return { event, data: JSON.parse(data) };
    });
}

async function conversationCount(who: Owner): Promise<number> {
  const rows = await t.storage.db.selectFrom('chat_conversations').select('id').where('owner_id', '=', who.id).execute();
  return rows.length;
}

async function messageCount(who: Owner): Promise<number> {
  const rows = await t.storage.db.selectFrom('chat_messages').select('id').where('owner_id', '=', who.id).execute();
  return rows.length;
}

describe('chat with a language model', () => {
  let personaDoc: string;
  let kbDoc: string;
  let pinnedId: string;

  beforeAll(async () => {
    personaDoc = await createDocument(t, owner, 'House style', 'Always answer in British English and sign off with "Cheers".');
    kbDoc = await createDocument(
      t,
      owner,
      'Garden journal',
      JOURNAL,
    );
    await createDocument(t, owner, 'Recipes', 'Bread needs flour, water, salt and patience.');
    await activePersona(t, owner, 'You are Hestia, the keeper of this household. Speak warmly.', [personaDoc]);
    // Pinned: part of the profile, which describes the owner whatever the message.
    const memory = await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content: 'The owner is allergic to wasps.', pinned: true } });
    expect(memory.status).toBe(201);
    pinnedId = memory.body.data.id;
  });

  it('sends the persona as the system message, with its documents, the best passages and memory, and answers the model\'s reply', async () => {
    fake.reply = 'The heater was replaced. Cheers!';
    const res = await chat(t, owner.token, { message: 'What happened to the greenhouse heater?' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      conversationId: expect.stringMatching(/^conv_/),
      reply: 'The heater was replaced. Cheers!',
      sources: [
        { id: personaDoc, title: 'House style', type: 'knowledge' },
        { id: kbDoc, title: 'Garden journal', type: 'knowledge' },
        { id: pinnedId, title: 'The owner is allergic to wasps.', type: 'memory', text: 'The owner is allergic to wasps.' },
      ],
      mode: 'llm',
      persona: { id: expect.any(String), name: expect.stringMatching(/^Persona /) },
      model: 'test-model',
      usage: { promptTokens: expect.any(Number), completionTokens: expect.any(Number), totalTokens: expect.any(Number) },
    });

    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(sent.body.model).toBe('test-model');
    expect(sent.body.stream).toBe(false);
    const [system, user, ...rest] = sent.body.messages;
    expect(rest).toEqual([]);
    expect(system.role).toBe('system');
    expect(system.content.startsWith('You are Hestia, the keeper of this household. Speak warmly.')).toBe(true);
    expect(system.content).toContain('Always answer in British English'); // the attached document
    expect(system.content).toContain('The greenhouse heater broke in March and was replaced by a paraffin heater.'); // the best passage
    expect(system.content).not.toContain('The roses need pruning'); // a passage, not the whole document
    expect(system.content).not.toContain('Bread needs flour'); // an unrelated document
    expect(system.content).toMatch(/\[3\] \(\d{4}-\d\d-\d\d, pinned\) The owner is allergic to wasps\./); // the pinned profile
    // Numbered as `sources`, and the model asked to cite by number.
    expect(system.content).toContain('## [1] House style');
    expect(system.content).toContain('[2] Garden journal\n');
    expect(system.content).toMatch(/cite its number in square brackets/);
    expect(user).toEqual({ role: 'user', content: 'What happened to the greenhouse heater?' });
  });

  it('sends the history of the conversation on the second turn, and stores both turns', async () => {
    fake.reply = 'Nice to meet you, Sam.';
    const first = await chat(t, owner.token, { message: 'My name is Sam.' });
    expect(first.status).toBe(200);
    const conversationId = first.body.data.conversationId;

    fake.reply = 'Your name is Sam.';
    const second = await chat(t, owner.token, { message: 'What is my name?', conversationId });
    expect(second.status).toBe(200);
    expect(second.body.data.conversationId).toBe(conversationId);

    const messages = fake.requests[1]!.body.messages;
    expect(messages.slice(1)).toEqual([
      { role: 'user', content: 'My name is Sam.' },
      { role: 'assistant', content: 'Nice to meet you, Sam.' },
      { role: 'user', content: 'What is my name?' },
    ]);
    // The first turn had no history.
    expect(fake.requests[0]!.body.messages).toHaveLength(2);

    const read = await t.request('GET', `/api/v1/brain/conversations/${conversationId}`, { token: owner.token });
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ id: conversationId, title: 'My name is Sam.', messageCount: 4, olderMessagesCursor: null });
    expect(read.body.data.messages.map((m: any) => [m.role, m.content, m.mode, m.model])).toEqual([
      ['user', 'My name is Sam.', null, null],
      ['assistant', 'Nice to meet you, Sam.', 'llm', 'test-model'],
      ['user', 'What is my name?', null, null],
      ['assistant', 'Your name is Sam.', 'llm', 'test-model'],
    ]);
  });

  it('uses a neutral system message when no persona is active', async () => {
    const lonely = await t.createOwner('No Persona');
    const res = await chat(t, lonely.token, { message: 'Hello' });
    expect(res.status).toBe(200);
    expect(res.body.data.persona).toBeNull();
    expect(res.body.data.sources).toEqual([]);
    expect(fake.requests[0]!.body.messages[0].content).toMatch(/No persona is active/);
  });

  it("never puts another owner's documents or memory into the prompt", async () => {
    await createDocument(t, other, 'Secret greenhouse plans', 'The greenhouse heater code is 4711.');
    await t.request('POST', '/api/v1/memory', { token: other.token, body: { content: 'Other owner memory: greenhouse' } });
    const res = await chat(t, owner.token, { message: 'greenhouse heater code' });
    expect(res.status).toBe(200);
    const system = fake.requests[0]!.body.messages[0].content as string;
    expect(system).not.toContain('4711');
    expect(system).not.toContain('Other owner memory');
    expect(res.body.data.sources.map((s: any) => s.title)).not.toContain('Secret greenhouse plans');
  });

  it('works with a token that holds only the chat scope', async () => {
    const token = await t.tokenWithScopes(owner, ['chat']);
    const res = await chat(t, token, { message: 'Hi there' });
    expect(res.status).toBe(200);
    expect(res.body.data.mode).toBe('llm');
  });

  it('answers JSON when the client names JSON and event-stream alike', async () => {
    const res = await chat(t, owner.token, { message: 'Hi' }, { accept: 'application/json, text/event-stream' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.data.reply).toBe('Hello from the fake model.');
  });
});

describe('upstream failures answer 502 UPSTREAM_ERROR and store nothing', () => {
  const cases: Array<[string, () => void, RegExp]> = [
    ['a 500 from the model', () => (fake.failure = 'server-error'), /answered 500: The server had an error/],
    ['a 429 from the model', () => (fake.failure = 'rate-limit'), /answered 429: Rate limit reached/],
    ['a body that is not JSON', () => (fake.failure = 'malformed'), /not JSON/],
    ['a completion without choices', () => (fake.failure = 'no-choices'), /without a reply/],
  ];
  for (const [name, arrange, message] of cases) {
    it(name, async () => {
      arrange();
      const before = await messageCount(owner);
      const res = await chat(t, owner.token, { message: 'Tell me about the garden' });
      const body = expectError(res, 502, 'UPSTREAM_ERROR');
      expect(body.message).toMatch(message);
      expect(res.body.requestId).toMatch(/^req_/);
      expect(await messageCount(owner)).toBe(before);
    });
  }

  it('a refused key says to check LLM_API_KEY and never shows the key', async () => {
    const wrongKey = `sk-wrong-${randomBytes(12).toString('hex')}`;
    const f = await startFakeOpenAI();
    const app = await createTestApp({ config: { llm: { baseUrl: `${f.url}/v1`, apiKey: wrongKey, model: 'test-model', timeoutMs: 2000 } } });
    try {
      const who = await app.createOwner();
      const res = await chat(app, who.token, { message: 'Hi' });
      const body = expectError(res, 502, 'UPSTREAM_ERROR');
      expect(body.message).toMatch(/answered 401/);
      expect(body.message).toMatch(/LLM_API_KEY/);
      expect(res.text).not.toContain(wrongKey);
      expect(res.text).not.toContain(wrongKey.slice(-4));
      expect(f.requests[0]!.headers.authorization).toBe(`Bearer ${wrongKey}`);
    } finally {
      await app.close();
      await f.close();
    }
  });

  it('a model that does not answer in time', async () => {
    const f = await startFakeOpenAI();
    const app = await createTestApp({ config: { llm: { baseUrl: `${f.url}/v1`, apiKey: f.apiKey, model: 'test-model', timeoutMs: 300 } } });
    try {
      const who = await app.createOwner();
      f.failure = 'hang';
      const res = await chat(app, who.token, { message: 'Hi' });
      expect(expectError(res, 502, 'UPSTREAM_ERROR').message).toMatch(/did not answer within 300 ms/);
      const streamed = await chat(app, who.token, { message: 'Hi' }, SSE);
      expectError(streamed, 502, 'UPSTREAM_ERROR');
      // A stream that stops midway runs into the same time limit.
      f.failure = 'stall';
      f.cutAfter = 1;
      const stalled = await chat(app, who.token, { message: 'Hi' }, SSE);
      expect(stalled.status).toBe(200);
      const events = parseSse(stalled.text);
      expect(events.map((e) => e.event)).toEqual(['meta', 'delta', 'error']);
      expect(events[2]!.data.error).toBe('UPSTREAM_ERROR');
      expect(await app.storage.db.selectFrom('chat_messages').select('id').execute()).toEqual([]);
    } finally {
      await app.close();
      await f.close();
    }
  });

  it('a model that cannot be reached', async () => {
    const f = await startFakeOpenAI();
    const url = f.url;
    await f.close(); // nothing listens there any more
    const app = await createTestApp({ config: { llm: { baseUrl: `${url}/v1`, apiKey: 'k', model: 'test-model', timeoutMs: 2000 } } });
    try {
      const who = await app.createOwner();
      const res = await chat(app, who.token, { message: 'Hi' });
      expect(expectError(res, 502, 'UPSTREAM_ERROR').message).toMatch(/could not be reached \(ECONNREFUSED\)/);
      expect(await app.storage.db.selectFrom('chat_conversations').select('id').execute()).toEqual([]);
    } finally {
      await app.close();
    }
  });
});

describe('streaming (Accept: text/event-stream)', () => {
  it('streams meta, the reply in pieces, then done; stores the full reply', async () => {
    fake.reply = 'Once upon a time there was a small greenhouse by the sea.';
    const res = await chat(t, owner.token, { message: 'Tell me a story about the greenhouse' }, SSE);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(res.headers['cache-control']).toBe('no-cache');
    const events = parseSse(res.text);
    expect(events[0]!.event).toBe('meta');
    expect(events[0]!.data).toMatchObject({ conversationId: expect.stringMatching(/^conv_/), mode: 'llm', model: 'test-model' });
    expect(events[0]!.data.sources.map((s: any) => s.title)).toContain('Garden journal');
    const deltas = events.filter((e) => e.event === 'delta');
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.map((e) => e.data.text).join('')).toBe(fake.reply);
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    expect(done.data).toMatchObject({ conversationId: events[0]!.data.conversationId, reply: fake.reply, mode: 'llm', model: 'test-model' });
    expect(done.data.usage.totalTokens).toBeGreaterThan(0);

    const sent = fake.requests[0]!.body;
    expect(sent.stream).toBe(true);
    expect(sent.stream_options).toEqual({ include_usage: true });
    expect(sent.messages[0].content).toContain('You are Hestia');

    const read = await t.request('GET', `/api/v1/brain/conversations/${done.data.conversationId}`, { token: owner.token });
    expect(read.body.data.messages.at(-1)).toMatchObject({ role: 'assistant', content: fake.reply, mode: 'llm' });
  });

  it('hangs up on the model when the client goes away mid-stream, and stores nothing', async () => {
    // The model's time limit is far beyond the test's: only the client's leaving can end the upstream call.
    const f = await startFakeOpenAI();
    const app = await createTestApp({ config: { llm: { baseUrl: `${f.url}/v1`, apiKey: f.apiKey, model: 'test-model', timeoutMs: 600_000 } } });
    try {
      const who = await app.createOwner();
      f.reply = 'One two three four five six seven eight.';
      f.failure = 'stall';
      f.cutAfter = 1;
      const address = new URL(await app.app.listen({ port: 0, host: '127.0.0.1' }));
      const payload = JSON.stringify({ message: 'Tell me a long story' });
      const clientRequest = httpRequest({
        host: address.hostname,
        port: address.port,
        method: 'POST',
        path: '/api/v1/brain/chat',
        headers: {
          authorization: `Bearer ${who.token}`,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(payload)),
          accept: 'text/event-stream',
        },
      });
      clientRequest.end(payload);
      const response = await new Promise<IncomingMessage>((resolve, reject) => clientRequest.on('response', resolve).on('error', reject));
      expect(response.statusCode).toBe(200);
      let text = '';
      response.setEncoding('utf8');
      await new Promise<void>((resolve) =>
        response.on('data', (chunk: string) => {
          text += chunk;
          if (text.includes('event: delta')) resolve();
        }),
      );
      expect(text).toContain('data: {"text":"One two "}');
      const upstream = f.requests[0]!;
      clientRequest.destroy(); // the client goes away
      await upstream.closed; // and Hearth closes its request to the model
      expect(await app.storage.db.selectFrom('chat_messages').select('id').execute()).toEqual([]);
    } finally {
      await app.close();
      await f.close();
    }
  });

  it('continues a conversation with its history', async () => {
    fake.reply = 'First answer.';
    const first = await chat(t, owner.token, { message: 'First question' });
    fake.reply = 'Second answer.';
    const res = await chat(t, owner.token, { message: 'Second question', conversationId: first.body.data.conversationId }, SSE);
    expect(parseSse(res.text).at(-1)!.data.reply).toBe('Second answer.');
    expect(fake.requests[1]!.body.messages.slice(1).map((m: any) => m.content)).toEqual(['First question', 'First answer.', 'Second question']);
  });

  it('a failure before the stream starts is a plain 502 JSON error', async () => {
    fake.failure = 'server-error';
    const res = await chat(t, owner.token, { message: 'Hi' }, SSE);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expectError(res, 502, 'UPSTREAM_ERROR');
  });

  it('a stream cut before any text is a plain 502 JSON error', async () => {
    fake.failure = 'cut';
    fake.cutAfter = 0;
    const res = await chat(t, owner.token, { message: 'Hi' }, SSE);
    expect(expectError(res, 502, 'UPSTREAM_ERROR').message).toMatch(/language model/);
  });

  it('a malformed first event is a plain 502 JSON error', async () => {
    fake.failure = 'malformed';
    fake.cutAfter = 0;
    const res = await chat(t, owner.token, { message: 'Hi' }, SSE);
    expect(expectError(res, 502, 'UPSTREAM_ERROR').message).toMatch(/not JSON/);
  });

  for (const failure of ['cut', 'stream-error', 'malformed'] as const) {
    it(`a ${failure} after the stream began ends it with event: error and stores nothing`, async () => {
      fake.reply = 'One two three four five six seven eight.';
      fake.failure = failure;
      fake.cutAfter = 1;
      const conversationsBefore = await conversationCount(owner);
      const res = await chat(t, owner.token, { message: 'Count for me' }, SSE);
      expect(res.status).toBe(200);
      const events = parseSse(res.text);
      expect(events.map((e) => e.event)).toEqual(['meta', 'delta', 'error']);
      expect(events[1]!.data.text).toBe('One two ');
      expect(events[2]!.data).toMatchObject({ error: 'UPSTREAM_ERROR', message: expect.stringMatching(/language model/), requestId: expect.any(String) });
      expect(await conversationCount(owner)).toBe(conversationsBefore);
    });
  }
});

describe('requests chat refuses', () => {
  it('400 for a missing, blank or NUL-holding message and for unknown fields', async () => {
    expectError(await chat(t, owner.token, {}), 400, 'VALIDATION_ERROR');
    expectError(await chat(t, owner.token, { message: '' }), 400, 'VALIDATION_ERROR');
    const blank = expectError(await chat(t, owner.token, { message: '  \n ' }), 400, 'VALIDATION_ERROR');
    expect(blank.details).toEqual([{ field: 'body.message', message: 'must not be blank' }]);
    expectError(await chat(t, owner.token, { message: 'a\u0000b' }), 400, 'VALIDATION_ERROR');
    expectError(await chat(t, owner.token, { message: 'hi', temperature: 2 }), 400, 'VALIDATION_ERROR');
    expectError(await chat(t, owner.token, { message: 'hi', conversationId: 'not an id!' }), 400, 'VALIDATION_ERROR');
    expect(fake.requests).toHaveLength(0);
  });

  it('413 for a message over 32 KiB of UTF-8; exactly 32 KiB is taken', async () => {
    const res = await chat(t, owner.token, { message: 'é'.repeat(16 * 1024 + 1) });
    expect(expectError(res, 413, 'PAYLOAD_TOO_LARGE').details).toEqual({ bytes: 32 * 1024 + 2, maxBytes: 32 * 1024 });
    const ok = await chat(t, owner.token, { message: 'x'.repeat(32 * 1024) });
    expect(ok.status).toBe(200);
    expect(fake.requests).toHaveLength(1);
  });

  it("404 for an unknown conversation and for another owner's, before the model is called", async () => {
    expectError(await chat(t, owner.token, { message: 'hi', conversationId: 'conv_01HZZZZZZZZZZZZZZZZZZZZZZZ' }), 404, 'NOT_FOUND');
    const theirs = await chat(t, other.token, { message: 'my own chat' });
    expect(theirs.status).toBe(200);
    fake.reset();
    expectError(await chat(t, owner.token, { message: 'hi', conversationId: theirs.body.data.conversationId }), 404, 'NOT_FOUND');
    expectError(await chat(t, owner.token, { message: 'hi', conversationId: theirs.body.data.conversationId }, SSE), 404, 'NOT_FOUND');
    expect(fake.requests).toHaveLength(0);
  });

  it('401 without a token, 403 without the chat scope', async () => {
    expectError(await t.request('POST', '/api/v1/brain/chat', { body: { message: 'hi' } }), 401, 'UNAUTHORIZED');
    const knowledgeOnly = await t.tokenWithScopes(owner, ['knowledge', 'memory', 'personas']);
    const res = await chat(t, knowledgeOnly, { message: 'hi' });
    expect(expectError(res, 403, 'INSUFFICIENT_SCOPE').message).toMatch(/chat/);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('conversations', () => {
  let mine: Owner;
  const ids: string[] = [];

  beforeAll(async () => {
    mine = await t.createOwner('Conversations');
    for (const message of ['Alpha topic', 'Beta topic', 'Gamma topic']) {
      const res = await chat(t, mine.token, { message });
      ids.push(res.body.data.conversationId);
    }
  });

  it('lists conversations, most recently active first, in pages', async () => {
    const all = await t.request('GET', '/api/v1/brain/conversations', { token: mine.token });
    expect(all.status).toBe(200);
    expect(all.body.data.map((c: any) => c.title)).toEqual(['Gamma topic', 'Beta topic', 'Alpha topic']);
    expect(all.body.data[0]).toEqual({ id: ids[2], title: 'Gamma topic', messageCount: 2, createdAt: expect.any(String), updatedAt: expect.any(String) });
    expect(all.body.nextCursor).toBeNull();

    // A new turn in the oldest conversation moves it to the top.
    await chat(t, mine.token, { message: 'More on alpha', conversationId: ids[0] });
    const first = await t.request('GET', '/api/v1/brain/conversations', { token: mine.token, query: { limit: 2 } });
    expect(first.body.data.map((c: any) => c.id)).toEqual([ids[0], ids[2]]);
    expect(first.body.data[0].messageCount).toBe(4);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await t.request('GET', '/api/v1/brain/conversations', { token: mine.token, query: { limit: 2, cursor: first.body.nextCursor } });
    expect(second.body.data.map((c: any) => c.id)).toEqual([ids[1]]);
    expect(second.body.nextCursor).toBeNull();
  });

  it('refuses a cursor it did not hand out', async () => {
    expectError(await t.request('GET', '/api/v1/brain/conversations', { token: mine.token, query: { cursor: 'garbage' } }), 400, 'VALIDATION_ERROR');
  });

  it('reads a conversation in pages of its newest messages', async () => {
    const id = ids[1]!;
    for (let i = 0; i < 2; i++) await chat(t, mine.token, { message: `Beta follow-up ${i}`, conversationId: id });
    const newest = await t.request('GET', `/api/v1/brain/conversations/${id}`, { token: mine.token, query: { limit: 3 } });
    expect(newest.status).toBe(200);
    expect(newest.body.data.messageCount).toBe(6);
    expect(newest.body.data.messages.map((m: any) => m.content)).toEqual(['Hello from the fake model.', 'Beta follow-up 1', 'Hello from the fake model.']);
    const older = await t.request('GET', `/api/v1/brain/conversations/${id}`, {
      token: mine.token,
      query: { limit: 3, before: newest.body.data.olderMessagesCursor },
    });
    expect(older.body.data.messages.map((m: any) => m.content)).toEqual(['Beta topic', 'Hello from the fake model.', 'Beta follow-up 0']);
    expect(older.body.data.olderMessagesCursor).toBeNull();
    expect(older.body.data.messages[1]).toEqual({
      id: expect.stringMatching(/^msg_/),
      role: 'assistant',
      content: 'Hello from the fake model.',
      sources: [],
      mode: 'llm',
      model: 'test-model',
      createdAt: expect.any(String),
    });
  });

  it('deletes a conversation with its messages', async () => {
    const id = ids[2]!;
    const res = await t.request('DELETE', `/api/v1/brain/conversations/${id}`, { token: mine.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id, deleted: true });
    expectError(await t.request('GET', `/api/v1/brain/conversations/${id}`, { token: mine.token }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `/api/v1/brain/conversations/${id}`, { token: mine.token }), 404, 'NOT_FOUND');
    expectError(await chat(t, mine.token, { message: 'hi', conversationId: id }), 404, 'NOT_FOUND');
    const left = await t.storage.db.selectFrom('chat_messages').select('id').where('conversation_id', '=', id).execute();
    expect(left).toEqual([]);
  });

  it("answers 404 for another owner's conversation and never lists it", async () => {
    const id = ids[0]!;
    expectError(await t.request('GET', `/api/v1/brain/conversations/${id}`, { token: other.token }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `/api/v1/brain/conversations/${id}`, { token: other.token }), 404, 'NOT_FOUND');
    const theirs = await t.request('GET', '/api/v1/brain/conversations', { token: other.token, query: { limit: 200 } });
    expect(theirs.body.data.map((c: any) => c.id)).not.toContain(id);
    // Still there for its owner.
    expect((await t.request('GET', `/api/v1/brain/conversations/${id}`, { token: mine.token })).status).toBe(200);
  });

  it('needs a token with the chat scope', async () => {
    const id = ids[0]!;
    const noChat = await t.tokenWithScopes(mine, ['knowledge']);
    const chatOnly = await t.tokenWithScopes(mine, ['chat']);
    for (const [method, url] of [
      ['GET', '/api/v1/brain/conversations'],
      ['GET', `/api/v1/brain/conversations/${id}`],
      ['DELETE', `/api/v1/brain/conversations/${id}`],
    ] as const) {
      expectError(await t.request(method, url), 401, 'UNAUTHORIZED');
      expectError(await t.request(method, url, { token: noChat }), 403, 'INSUFFICIENT_SCOPE');
    }
    expect((await t.request('GET', `/api/v1/brain/conversations/${id}`, { token: chatOnly })).status).toBe(200);
  });
});

describe('the OpenAPI document', () => {
  it('documents both answers of POST /brain/chat and the conversation routes', async () => {
    const res: ApiResponse = await t.request('GET', '/openapi.json');
    const op = res.body.paths['/api/v1/brain/chat'].post;
    expect(op.operationId).toBe('chat');
    expect(Object.keys(op.responses['200'].content).sort()).toEqual(['application/json', 'text/event-stream']);
    expect(op.description).toMatch(/event: meta/);
    expect(res.body.paths['/api/v1/brain/conversations'].get.operationId).toBe('listConversations');
    expect(res.body.paths['/api/v1/brain/conversations/{id}'].get.operationId).toBe('getConversation');
    expect(res.body.paths['/api/v1/brain/conversations/{id}'].delete.operationId).toBe('deleteConversation');
  });
});

describe('chat without a language model (retrieval mode)', () => {
  let r: TestApp;
  let who: Owner;
  let journal: string;

  beforeAll(async () => {
    r = await createTestApp();
    expect(r.config.llm.baseUrl).toBeUndefined();
    who = await r.createOwner('Retrieval Owner');
    journal = await createDocument(
      r,
      who,
      'Garden journal',
      JOURNAL,
    );
    await createDocument(r, who, 'Recipes', 'Bread needs flour, water, salt and patience.');
    await activePersona(r, who, 'You are Hestia.');
  });
  afterAll(async () => r.close());

  it('quotes the best-matching passages with their titles and says no model is configured', async () => {
    const res = await chat(r, who.token, { message: 'What happened to the greenhouse heater?' });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data.mode).toBe('retrieval');
    expect(data.model).toBeUndefined();
    expect(data.usage).toBeUndefined();
    expect(data.sources).toEqual([{ id: journal, title: 'Garden journal', type: 'knowledge' }]);
    expect(data.reply).toMatch(/No language model is configured/);
    expect(data.reply).toMatch(/no model wrote this answer/);
    expect(data.reply).toContain('**Garden journal**');
    expect(data.reply).toContain('> The greenhouse heater broke in March and was replaced by a paraffin heater.');
    expect(data.reply).not.toContain('The roses need pruning'); // the passage, not the whole document
    expect(data.reply).not.toContain('Bread');
    expect(data.persona).toMatchObject({ name: expect.any(String) });

    const read = await r.request('GET', `/api/v1/brain/conversations/${data.conversationId}`, { token: who.token });
    expect(read.body.data.messages[1]).toMatchObject({ role: 'assistant', content: data.reply, mode: 'retrieval', model: null, sources: data.sources });
  });

  it('says so when nothing matches', async () => {
    const res = await chat(r, who.token, { message: 'quantum chromodynamics' });
    expect(res.status).toBe(200);
    expect(res.body.data.sources).toEqual([]);
    expect(res.body.data.reply).toMatch(/No language model is configured/);
    expect(res.body.data.reply).toMatch(/Nothing in your knowledge base or memory matches/);
  });

  it("never quotes another owner's documents", async () => {
    const stranger = await r.createOwner('Stranger');
    const res = await chat(r, stranger.token, { message: 'greenhouse heater' });
    expect(res.body.data.sources).toEqual([]);
    expect(res.body.data.reply).not.toContain('paraffin');
  });

  it('streams too, in a few pieces', async () => {
    const res = await chat(r, who.token, { message: 'When were the tomatoes planted?' }, SSE);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = parseSse(res.text);
    expect(events[0]).toMatchObject({ event: 'meta', data: { mode: 'retrieval', sources: [{ id: journal, title: 'Garden journal', type: 'knowledge' }] } });
    const deltas = events.filter((e) => e.event === 'delta');
    expect(deltas.length).toBeGreaterThan(1);
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    expect(deltas.map((e) => e.data.text).join('')).toBe(done.data.reply);
    expect(done.data.reply).toContain('> The tomatoes were planted in April.');
  });

  it('quotes the memory entries that match the message beside the passages, and cites them in sources, streamed too', async () => {
    const stored = await r.request('POST', '/api/v1/memory', { token: who.token, body: { content: 'The greenhouse key hangs behind the shed door.' } });
    expect(stored.status).toBe(201);
    const entry = stored.body.data.id as string;
    await r.request('POST', '/api/v1/memory', { token: who.token, body: { content: 'Dentist appointment on Tuesday at nine.' } });

    const res = await chat(r, who.token, { message: 'Where is the greenhouse key?' });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data.mode).toBe('retrieval');
    expect(data.model).toBeUndefined();
    expect(data.sources).toEqual([
      { id: journal, title: 'Garden journal', type: 'knowledge' },
      { id: entry, title: 'The greenhouse key hangs behind the shed door.', type: 'memory', text: 'The greenhouse key hangs behind the shed door.' },
    ]);
    expect(data.reply).toContain('[1] **Garden journal**');
    expect(data.reply).toMatch(/\[2\] Noted \d{4}-\d\d-\d\d\n\n> The greenhouse key hangs behind the shed door\./);
    expect(data.reply).not.toContain('Dentist');

    const streamed = parseSse((await chat(r, who.token, { message: 'Where is the greenhouse key?' }, SSE)).text);
    expect(streamed[0]!.data.sources).toEqual(data.sources);
    expect(streamed.at(-1)!.data.sources).toEqual(data.sources);

    // Stored with the reply, and read back with the conversation.
    const read = await r.request('GET', `/api/v1/brain/conversations/${data.conversationId}`, { token: who.token });
    expect(read.body.data.messages[1].sources).toEqual(data.sources);
  });

  it('answers from memory alone when the knowledge base has nothing', async () => {
    const stored = await r.request('POST', '/api/v1/memory', { token: who.token, body: { content: 'My passport expires in October 2027.' } });
    const res = await chat(r, who.token, { message: 'When does my passport expire?' });
    expect(res.body.data.sources).toEqual([{ id: stored.body.data.id, title: 'My passport expires in October 2027.', type: 'memory', text: 'My passport expires in October 2027.' }]);
    expect(res.body.data.reply).toContain('Nothing in your knowledge base matches your message.');
    expect(res.body.data.reply).toContain('> My passport expires in October 2027.');
  });

  it('quotes to a token limited to tag work only the work entries', async () => {
    const remember = async (content: string, tags?: string[]) => {
      const res = await r.request('POST', '/api/v1/memory', { token: who.token, body: { content, ...(tags ? { tags } : {}) } });
      expect(res.status).toBe(201);
      return res.body.data.id as string;
    };
    const work = await remember('Harbour project: the crane arrives on Tuesday.', ['work']);
    await remember('Harbour walk with the kids: the crane ride costs five pounds.');
    await remember('Harbour picnic: the crane game is for grandad.', ['family']);
    const created = await r.request('POST', '/api/v1/tokens', { token: who.token, body: { name: 'work agent', scopes: ['chat'], memoryTags: ['work'] } });
    const res = await chat(r, created.body.data.token, { message: 'When does the harbour crane come?' });
    expect(res.status).toBe(200);
    expect(res.body.data.reply).toContain('> Harbour project: the crane arrives on Tuesday.');
    for (const hidden of ['kids', 'grandad']) expect(res.body.data.reply).not.toContain(hidden);
    expect(res.body.data.sources.filter((source: { type: string }) => source.type === 'memory').map((source: { id: string }) => source.id)).toEqual([work]);
  });

  it('reads replies stored before memory was cited as knowledge sources', async () => {
    const res = await chat(r, who.token, { message: 'When were the tomatoes planted?' });
    const conversationId = res.body.data.conversationId as string;
    // A reply as an earlier version stored it: documents without a type.
    await r.storage.db
      .updateTable('chat_messages')
      .set({ sources: JSON.stringify([{ id: journal, title: 'Garden journal' }, { bogus: true }]) })
      .where('conversation_id', '=', conversationId)
      .where('role', '=', 'assistant')
      .execute();
    const read = await r.request('GET', `/api/v1/brain/conversations/${conversationId}`, { token: who.token });
    expect(read.status).toBe(200);
    expect(read.body.data.messages[1].sources).toEqual([{ id: journal, title: 'Garden journal', type: 'knowledge' }]);
  });
});

describe('memory in the prompt: what matches the message, within the token\'s tags', () => {
  let m: Owner;
  let allergy: string;
  let profile: string;
  const NEWEST = 'Newest note: the car is due for its service on Monday.';

  beforeAll(async () => {
    m = await t.createOwner('Memory Owner');
    const remember = async (content: string, extra: Record<string, unknown> = {}) => {
      const res = await t.request('POST', '/api/v1/memory', { token: m.token, body: { content, ...extra } });
      if (res.status !== 201) throw new Error(`memory failed: ${res.status} ${res.text}`);
      return res.body.data.id as string;
    };
    profile = await remember('Name: Sam Rivers, lives in Leeds.', { pinned: true });
    allergy = await remember('My daughter Emma is allergic to peanuts.');
    // Enough newer notes about other things to fill memory's part of the prompt on their own.
    for (let i = 0; i < 30; i++) await remember(`Note ${i}: the quarterly budget review moved to room ${100 + i} on the third floor.`);
    await remember(NEWEST);
  });

  it('puts the entries relevant to the message in the prompt, not the newest ones, and lists them in sources', async () => {
    fake.reply = 'Emma is allergic to peanuts [3].';
    const res = await chat(t, m.token, { message: 'What is Emma allergic to?' });
    expect(res.status).toBe(200);
    const system = fake.requests[0]!.body.messages[0].content as string;
    expect(system).toContain('My daughter Emma is allergic to peanuts.');
    expect(system).toContain('Name: Sam Rivers'); // the pinned profile
    expect(system).not.toContain(NEWEST);
    expect(system).not.toContain('quarterly budget review');
    const sources = res.body.data.sources as Array<{ id: string; type: string; title: string; text?: string }>;
    expect(sources).toEqual([
      { id: profile, title: 'Name: Sam Rivers, lives in Leeds.', type: 'memory', text: 'Name: Sam Rivers, lives in Leeds.' },
      { id: allergy, title: 'My daughter Emma is allergic to peanuts.', type: 'memory', text: 'My daughter Emma is allergic to peanuts.' },
    ]);
    // Each source is in the prompt under its number.
    expect(system).toMatch(/\[1\] \(\d{4}-\d\d-\d\d, pinned\) Name: Sam Rivers/);
    expect(system).toMatch(/\[2\] \(\d{4}-\d\d-\d\d\) My daughter Emma is allergic to peanuts\./);
    expect(res.body.data.model).toBe('test-model');
  });

  it('streams the same sources in meta and done', async () => {
    const res = await chat(t, m.token, { message: 'What is Emma allergic to?' }, SSE);
    const events = parseSse(res.text);
    const ids = (list: Array<{ id: string }>) => list.map((source) => source.id);
    expect(ids(events[0]!.data.sources)).toEqual([profile, allergy]);
    expect(events[0]!.data.model).toBe('test-model');
    expect(ids(events.at(-1)!.data.sources)).toEqual([profile, allergy]);
  });

  it('gives a token limited to memory tags only the entries it sees, in the prompt and in sources', async () => {
    const tagged = async (content: string, tags: string[]) => {
      const res = await t.request('POST', '/api/v1/memory', { token: m.token, body: { content, tags } });
      expect(res.status).toBe(201);
      return res.body.data.id as string;
    };
    const family = await tagged("Emma's school play is on Friday evening.", ['family']);
    const work = await tagged('Emma from accounting needs the invoice by Friday.', ['work']);
    await t.request('POST', '/api/v1/memory', { token: m.token, body: { content: 'Pinned work rule: Emma signs every invoice.', tags: ['work'], pinned: true } });
    const created = await t.request('POST', '/api/v1/tokens', { token: m.token, body: { name: 'family chat', scopes: ['chat'], memoryTags: ['family'] } });
    expect(created.status).toBe(201);
    const limited = created.body.data.token as string;

    for (const headers of [{}, SSE]) {
      fake.reset();
      const res = await chat(t, limited, { message: 'What is happening with Emma on Friday?' }, headers);
      expect(res.status).toBe(200);
      const system = fake.requests[0]!.body.messages[0].content as string;
      expect(system).toContain("Emma's school play is on Friday evening.");
      for (const hidden of ['Emma from accounting', 'Pinned work rule', 'allergic to peanuts', 'Sam Rivers']) expect(system).not.toContain(hidden);
      const data = 'accept' in headers ? parseSse(res.text).at(-1)!.data : res.body.data;
      expect(data.sources.map((source: { id: string }) => source.id)).toEqual([family]);
      expect(JSON.stringify(data)).not.toContain(work);
    }
    // The owner's own session sees them all.
    const own = await chat(t, m.token, { message: 'What is happening with Emma on Friday?' });
    expect(own.body.data.sources.map((source: { id: string }) => source.id)).toEqual(expect.arrayContaining([family, work]));
    // The owner's conversation cites the work entry: the limited token neither reads, lists,
    // continues nor deletes it, since its replies (and so the next prompt's history) may say what the entry says.
    const path = `/api/v1/brain/conversations/${own.body.data.conversationId}`;
    expectError(await t.request('GET', path, { token: limited }), 404, 'NOT_FOUND');
    const listed = await t.request('GET', '/api/v1/brain/conversations', { token: limited });
    expect(listed.body.data.map((c: { id: string }) => c.id)).not.toContain(own.body.data.conversationId);
    fake.reset();
    expectError(await chat(t, limited, { message: 'And what else?', conversationId: own.body.data.conversationId }), 404, 'NOT_FOUND');
    expect(fake.requests).toHaveLength(0);
    expectError(await t.request('DELETE', path, { token: limited }), 404, 'NOT_FOUND');
    expect((await t.request('GET', path, { token: m.token })).body.data.messages[1].sources).toEqual(own.body.data.sources);
  });

  it('gives a token limited to tag work the work entry, never the untagged or family one, in the prompt, the sources and the history', async () => {
    const w = await t.createOwner('Work Owner');
    const remember = async (content: string, tags?: string[]) => {
      const res = await t.request('POST', '/api/v1/memory', { token: w.token, body: { content, ...(tags ? { tags } : {}) } });
      expect(res.status).toBe(201);
      return res.body.data.id as string;
    };
    const work = await remember('The Lisbon office launch is on 14 May; Priya leads it.', ['work']);
    const untagged = await remember('The Lisbon trip with my sister is in June; she books the flat.');
    const family = await remember('Lisbon: grandma turns ninety there on 2 June.', ['family']);
    const created = await t.request('POST', '/api/v1/tokens', { token: w.token, body: { name: 'work agent', scopes: ['chat'], memoryTags: ['work'] } });
    const limited = created.body.data.token as string;

    // The owner's turn draws on all three; the work token's on the work entry only.
    const ownTurn = await chat(t, w.token, { message: 'What is happening in Lisbon?' });
    expect(ownTurn.body.data.sources.map((source: { id: string }) => source.id)).toEqual(expect.arrayContaining([work, untagged, family]));
    for (const headers of [{}, SSE]) {
      fake.reset();
      fake.reply = 'The office launch is on 14 May [1].';
      const res = await chat(t, limited, { message: 'What is happening in Lisbon?' }, headers);
      expect(res.status).toBe(200);
      expect(fake.requests).toHaveLength(1);
      const prompt = JSON.stringify(fake.requests[0]!.body.messages);
      expect(prompt).toContain('Lisbon office launch');
      for (const hidden of ['sister', 'grandma', untagged, family]) expect(prompt).not.toContain(hidden);
      const data = 'accept' in headers ? parseSse(res.text).at(-1)!.data : res.body.data;
      expect(data.sources.map((source: { id: string }) => source.id)).toEqual([work]);
    }

    // Its own conversation, continued: its history holds only what it was given.
    const first = await chat(t, limited, { message: 'Who leads the Lisbon launch?' });
    fake.reset();
    const next = await chat(t, limited, { message: 'And when is it?', conversationId: first.body.data.conversationId });
    expect(next.status).toBe(200);
    const prompt = JSON.stringify(fake.requests[0]!.body.messages);
    expect(prompt).toContain('Who leads the Lisbon launch?');
    for (const hidden of ['sister', 'grandma']) expect(prompt).not.toContain(hidden);
    const read = await t.request('GET', `/api/v1/brain/conversations/${first.body.data.conversationId}`, { token: limited });
    expect(read.status).toBe(200);
    expect(read.body.data.messages).toHaveLength(4);
    const listed = (await t.request('GET', '/api/v1/brain/conversations', { token: limited })).body.data.map((c: { id: string }) => c.id);
    expect(listed).toContain(first.body.data.conversationId);
    expect(listed).not.toContain(ownTurn.body.data.conversationId);
    // The owner sees every conversation, and may continue the work token's.
    const ownList = (await t.request('GET', '/api/v1/brain/conversations', { token: w.token })).body.data.map((c: { id: string }) => c.id);
    expect(ownList).toEqual(expect.arrayContaining([first.body.data.conversationId, ownTurn.body.data.conversationId]));
    // Once the owner's turn in it cites the family entry, the work token loses it too.
    fake.reset();
    const widened = await chat(t, w.token, { message: 'What is happening in Lisbon with grandma?', conversationId: first.body.data.conversationId });
    expect(widened.body.data.sources.map((source: { id: string }) => source.id)).toContain(family);
    expectError(await t.request('GET', `/api/v1/brain/conversations/${first.body.data.conversationId}`, { token: limited }), 404, 'NOT_FOUND');
  });
});
