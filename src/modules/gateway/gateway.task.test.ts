import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { createTestApp, expectError, type Owner, type TestApp } from '../../../test/harness.js';
import { estimateTokens } from '../../lib/token-estimate.js';

// Value.Check knows no formats until told; the server's Ajv checks date-time strictly.
if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(v));

let t: TestApp;
let owner: Owner;
/** A token that sees memory and knowledge, as an agent working on a task would hold. */
let agent: string;
const ids: { allergy: string; seat: string; plan: string; newest: string[] } = { allergy: '', seat: '', plan: '', newest: [] };

const context = (token: string, query: Record<string, string | number> = {}) =>
  t.request('GET', '/api/v1/gateway/context', { token, query: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])) });

async function remember(content: string): Promise<string> {
  const res = await t.request('POST', '/api/v1/memory', { token: owner.token, body: { content } });
  expect(res.status).toBe(201);
  return res.body.data.id as string;
}

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.createOwner('Dana Task');
  agent = await t.tokenWithScopes(owner, ['read', 'memory', 'knowledge']);
  // The relevant notes first, so that every unrelated one is newer than they are.
  ids.allergy = await remember('My daughter Emma is allergic to peanuts; the school has her epinephrine pen.');
  ids.seat = await remember('I prefer aisle seats on long flights.');
  for (let i = 0; i < 12; i++) {
    ids.newest.unshift(await remember(`Quarterly report ${i}: revenue grew in the northern region while costs stayed flat; the board meets on Thursday about hiring two engineers, the office space on the third floor, and whether the budget for next year allows a second team. Marketing asked for a larger share of the spend, finance wants the forecast redone with the new exchange rates, and the auditors arrive in the second week of the month to review the contracts signed since spring.`));
  }
  const plan = await t.request('POST', '/api/v1/brain/knowledge-base', {
    token: owner.token,
    body: { title: 'Allergy plan', content: 'What to do when Emma reacts to peanuts: give the epinephrine pen, call the emergency number, then her parents.' },
  });
  ids.plan = plan.body.data.id;
  for (let i = 0; i < 5; i++) {
    await t.request('POST', '/api/v1/brain/knowledge-base', { token: owner.token, body: { title: `Office lease ${i}`, content: 'The office lease runs until March; rent is paid monthly.' } });
  }
});

afterAll(async () => t.close());

describe('GET /api/v1/gateway/context?task=', () => {
  it('fills memory and knowledge with what serves the task first, each item with its id', async () => {
    const res = await context(agent, { task: 'Plan a birthday dinner for Emma, mind her peanut allergy' });
    expect(res.status).toBe(200);
    expect(Value.Check(t.container.gateway.contextSchema, res.body)).toBe(true);
    const { memory, knowledge } = res.body.data;
    expect(memory.relevant).toBeGreaterThanOrEqual(1);
    expect(memory.entries[0].id).toBe(ids.allergy);
    // The newest others follow the matching ones (no budget here: up to the cap).
    expect(memory.entries.slice(memory.relevant).map((e: { id: string }) => e.id)).toEqual(
      [...ids.newest, ids.seat, ids.allergy].filter((id) => !memory.entries.slice(0, memory.relevant).some((e: { id: string }) => e.id === id)),
    );
    expect(memory.total).toBe(14);
    for (const entry of memory.entries) expect(entry).toMatchObject({ id: expect.stringMatching(/^mem_/), content: expect.any(String), created_at: expect.any(String), updatedAt: expect.any(String) });
    // A passage of the document: its own id, and the document it lies in.
    expect(knowledge.relevant[0]).toMatchObject({
      id: `${ids.plan}:0`,
      title: 'Allergy plan',
      text: expect.stringContaining('peanuts'),
      score: expect.any(Number),
      document: { id: ids.plan, title: 'Allergy plan', start: 0 },
    });
    expect(knowledge.relevant.map((r: { id: string }) => r.id)).not.toContain(undefined);
    expect(knowledge.documentCount).toBe(6);
    expect(res.body.data).not.toHaveProperty('budget');
  });

  it('within a small budget keeps the relevant entry and leaves out newer unrelated ones', async () => {
    // 650: clear of both edges on either engine (the seat's note needs about 525, the newest
    // report beside it more than 900), whatever order documents written in one millisecond list in.
    const res = await context(agent, { task: 'Book a flight: which seat do I like?', maxTokens: 650 });
    expect(res.status).toBe(200);
    expect(Value.Check(t.container.gateway.contextSchema, res.body)).toBe(true);
    const { memory, knowledge, budget } = res.body.data;
    const kept = memory.entries.map((e: { id: string }) => e.id);
    expect(kept[0]).toBe(ids.seat);
    expect(kept).not.toContain(ids.newest[0]);
    expect(memory.truncated).toBe(true);
    expect(budget).toEqual({ maxTokens: 650, usedTokens: estimateTokens(res.text), truncated: true, trimmed: expect.arrayContaining(['memory']) });
    expect(budget.usedTokens).toBeLessThanOrEqual(650);
    expect(knowledge.documentCount).toBe(6);
  });

  it('never answers more than the budget, measured on the answer itself, for any token and budget', async () => {
    for (const token of [agent, owner.token]) {
      for (const maxTokens of [500, 557, 700, 1200, 3000, 32_000]) {
        for (const task of [undefined, 'peanuts and flights and the quarterly report']) {
          const res = await context(token, task ? { task, maxTokens } : { maxTokens });
          expect(res.status).toBe(200);
          expect(Value.Check(t.container.gateway.contextSchema, res.body)).toBe(true);
          const used = estimateTokens(res.text);
          expect(res.body.data.budget.usedTokens).toBe(used);
          expect(used, `${maxTokens} tokens, ${token === agent ? 'agent' : 'master'}, task ${task}`).toBeLessThanOrEqual(maxTokens);
          // User and token are pinned: always whole.
          expect(res.body.data.user.id).toBe(owner.id);
          expect(res.body.data.token.scopes.length).toBeGreaterThan(0);
        }
      }
    }
  });

  it('with a budget large enough, cuts nothing and says so', async () => {
    const res = await context(agent, { maxTokens: 32_000 });
    expect(res.body.data.budget).toEqual({ maxTokens: 32_000, usedTokens: estimateTokens(res.text), truncated: false, trimmed: [] });
    const plain = (await context(agent)).body.data;
    delete res.body.data.budget;
    expect(res.body.data).toEqual(plain);
  });

  it('with maxTokens alone keeps the newest entries first, as without a budget, and drops the route list before the owner data', async () => {
    const plain = (await context(owner.token)).body.data;
    const res = await context(owner.token, { maxTokens: 1000 });
    const { memory, budget, endpoints } = res.body.data;
    expect(memory).not.toHaveProperty('relevant');
    const order = plain.memory.entries.map((e: { id: string }) => e.id);
    const kept = memory.entries.map((e: { id: string }) => e.id);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept).toEqual(order.filter((id: string) => kept.includes(id)));
    expect(kept[0]).toBe(ids.newest[0]);
    expect(endpoints).toEqual([]);
    expect(budget.trimmed).toEqual(expect.arrayContaining(['memory', 'endpoints']));
  });

  it('without task answers exactly as before, and a blank task is no task', async () => {
    const plain = await context(agent);
    expect(plain.body.data).not.toHaveProperty('budget');
    expect(plain.body.data.memory).not.toHaveProperty('relevant');
    expect(plain.body.data.knowledge).not.toHaveProperty('relevant');
    // Newest first, as GET /memory lists them.
    const listed = (await t.request('GET', '/api/v1/memory', { token: agent, query: { limit: '100' } })).body.data.map((e: { id: string }) => e.id);
    expect(plain.body.data.memory.entries.map((e: { id: string }) => e.id)).toEqual(listed);
    expect(plain.body.data.memory).toEqual({ entries: expect.any(Array), total: 14, truncated: false });
    expect((await context(agent, { task: '   ' })).text).toBe(plain.text);
  });

  it('refuses a budget or a task out of bounds with 400, naming the field and the limits', async () => {
    for (const maxTokens of ['499', '32001', 'lots', '1.5', '-5']) {
      const body = expectError(await context(agent, { maxTokens }), 400, 'VALIDATION_ERROR');
      expect(body.message).toContain('maxTokens');
    }
    expect(expectError(await context(agent, { maxTokens: '100' }), 400, 'VALIDATION_ERROR').message).toMatch(/maxTokens.*500/);
    const long = expectError(await context(agent, { task: 'x'.repeat(1001) }), 400, 'VALIDATION_ERROR');
    expect(long.message).toMatch(/task.*1000/);
    expect((await context(agent, { task: 'y'.repeat(1000) })).status).toBe(200);
  });

  it('never serves one task the answer of another, nor a budget the answer of another', async () => {
    for (let round = 0; round < 2; round++) {
      const seat = (await context(agent, { task: 'aisle seat on the flight' })).body.data.memory;
      const allergy = (await context(agent, { task: 'peanut allergy' })).body.data.memory;
      expect(seat.entries[0].id).toBe(ids.seat);
      expect(allergy.entries[0].id).toBe(ids.allergy);
      const plain = (await context(agent)).body.data.memory;
      expect(plain.entries[0].id).toBe(ids.newest[0]);
      expect(plain).not.toHaveProperty('relevant');
      const small = (await context(agent, { maxTokens: 500 })).body.data;
      const large = (await context(agent, { maxTokens: 5000 })).body.data;
      expect(small.budget.maxTokens).toBe(500);
      expect(large.budget.maxTokens).toBe(5000);
      expect(large.memory.entries.length).toBeGreaterThan(small.memory.entries.length);
    }
    // A new entry shows at once in a task's answer (never cached) and in the cached plain one.
    const fresh = await remember('Emma also avoids tree nuts.');
    expect((await context(agent, { task: 'tree nuts' })).body.data.memory.entries[0].id).toBe(fresh);
    expect((await context(agent)).body.data.memory.entries[0].id).toBe(fresh);
    await t.request('DELETE', `/api/v1/memory/${fresh}`, { token: owner.token });
  });

  it('sends the sections asked for with omit empty, names them, and refuses the others', async () => {
    const plain = (await context(owner.token)).body.data;
    const res = await t.request('GET', '/api/v1/gateway/context', { token: owner.token, query: { omit: 'endpoints' } });
    expect(res.status).toBe(200);
    expect(Value.Check(t.container.gateway.contextSchema, res.body)).toBe(true);
    expect(res.body.data.endpoints).toEqual([]);
    expect({ ...res.body.data, endpoints: plain.endpoints }).toEqual(plain);
    const both = await t.request('GET', '/api/v1/gateway/context?omit=endpoints&omit=knowledge&maxTokens=20000', { token: owner.token });
    expect(both.body.data.knowledge).toEqual({ documentCount: 6, recent: [] });
    expect(both.body.data.memory.entries).toHaveLength(14);
    expect(both.body.data.budget).toMatchObject({ truncated: true, trimmed: ['knowledge', 'endpoints'] });
    const refused = expectError(await t.request('GET', '/api/v1/gateway/context?omit=persona', { token: owner.token }), 400, 'VALIDATION_ERROR');
    expect(refused.message).toBe('omit: persona cannot be left out; these can: memory, knowledge, endpoints');
  });

  it('keeps a persona longer than the budget whole and says the budget was exceeded', async () => {
    const long = await t.createOwner('Long Persona');
    const soul = 'Answer calmly and check every date twice. '.repeat(80);
    const persona = await t.request('POST', '/api/v1/personas', { token: long.token, body: { name: 'Careful', soul_content: soul } });
    await t.request('POST', `/api/v1/personas/${persona.body.data.id}/activate`, { token: long.token });
    await t.request('POST', '/api/v1/memory', { token: long.token, body: { content: 'Checks dates twice' } });
    const token = await t.tokenWithScopes(long, ['read', 'personas', 'memory']);
    const res = await context(token, { task: 'check dates', maxTokens: 500 });
    expect(res.status).toBe(200);
    const { persona: shown, memory, budget } = res.body.data;
    expect(shown.soul_content).toBe(soul);
    expect(memory).toEqual({ entries: [], total: 1, truncated: true, relevant: 0 });
    expect(budget.usedTokens).toBe(estimateTokens(res.text));
    expect(budget.usedTokens).toBeGreaterThan(500);
    expect(budget).toMatchObject({ maxTokens: 500, truncated: true, trimmed: ['memory', 'endpoints'] });
  });

  it("shows a task's matches only from the caller's own memory", async () => {
    const other = await t.createOwner('Other Task');
    await t.request('POST', '/api/v1/memory', { token: other.token, body: { content: 'Other owner: peanut butter recipe' } });
    const res = await context(agent, { task: 'peanut butter recipe', maxTokens: 2000 });
    expect(res.text).not.toContain('Other owner');
  });
});
