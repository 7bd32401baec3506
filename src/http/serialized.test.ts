// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createSerializedLists } from './serialized.js';

const ItemSchema = {
  type: 'object',
  properties: { id: { type: 'integer' }, text: { type: 'string' } },
  required: ['id', 'text'],
} as const;

describe('serialized lists', () => {
  // Items of about 1 KB: a few hundred lists fill several of the slabs bodies sent once are carved from.
  const items = Array.from({ length: 50 }, (_, i) => ({ id: i, text: `item ${i} "quoted" é ${'x'.repeat(1000)}` }));
  // One array per n, so that a list sent twice is the same object (bodies are kept by identity).
  const lists600 = Array.from({ length: 600 }, (_, n) => Array.from({ length: 5 }, (_, k) => items[(n * 7 + k * 3) % items.length]!));
  const listAt = (n: number) => lists600[n]!;
  const expected = (list: ReadonlyArray<(typeof items)[number]>) => JSON.stringify({ data: list });

  async function appWith(keep: boolean) {
    const lists = createSerializedLists(ItemSchema);
    const sent: Array<{ list: ReadonlyArray<(typeof items)[number]>; body: Buffer }> = [];
    const app = Fastify();
    app.get<{ Querystring: { n: string } }>('/list', async (request, reply) => {
      const list = listAt(Number(request.query.n));
      await lists.send(reply, list, '{"data":[', ']}', keep);
      return reply;
    });
    // Keeps every body the route sent, to check that none is overwritten by later ones.
    app.addHook('onSend', async (request, _reply, payload) => {
      sent.push({ list: listAt(Number((request.query as { n: string }).n)), body: payload as Buffer });
      return payload;
    });
    return { app, lists, sent };
  }

  it('sends a list once from a shared slab: every body stays intact as later ones are made, and none is kept', async () => {
    const { app, lists, sent } = await appWith(false);
    for (let n = 0; n < 600; n++) {
      const res = await app.inject({ method: 'GET', url: `/list?n=${n}` });
      expect(res.body).toBe(expected(listAt(n)));
    }
    expect(sent).toHaveLength(600);
    for (const { list, body } of sent) expect(body.toString('utf8')).toBe(expected(list));
    expect(lists.made(listAt(0))).toBeUndefined();
    await app.close();
  });

  it('keeps the body of a list it is told to keep, and sends the same bytes again', async () => {
    const { app, lists, sent } = await appWith(true);
    for (let i = 0; i < 2; i++) {
      const res = await app.inject({ method: 'GET', url: '/list?n=3' });
      expect(res.body).toBe(expected(listAt(3)));
    }
    expect(lists.made(listAt(3))?.toString('utf8')).toBe(expected(listAt(3)));
    expect(sent[1]!.body).toBe(sent[0]!.body);
    expect(sent[0]!.body).toBe(lists.made(listAt(3)));
    await app.close();
  });
});
