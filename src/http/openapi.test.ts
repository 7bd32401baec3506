// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { hoistTitledSchemas } from './openapi.js';

describe('hoistTitledSchemas', () => {
  it('moves titled schemas, nested ones first, into components and refers to them', () => {
    const item = { title: 'Item', type: 'object', properties: { id: { type: 'string' } } };
    const page = { title: 'ItemPage', type: 'object', properties: { data: { type: 'array', items: item } } };
    const components: Record<string, unknown> = {};
    const paths = { '/items': { get: { responses: { 200: { content: { 'application/json': { schema: page } } } } } } };
    const out = hoistTitledSchemas(paths, components) as any;
    expect(out['/items'].get.responses[200].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ItemPage' });
    expect(components.ItemPage).toEqual({ title: 'ItemPage', type: 'object', properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Item' } } } });
    expect(components.Item).toEqual(item);
    // The input is left as it was: the route schemas Fastify validates with are not touched.
    expect(page.properties.data.items).toBe(item);
  });

  it('names one shape once when several routes carry equal copies, whatever their key order', () => {
    const components: Record<string, unknown> = {};
    hoistTitledSchemas([{ title: 'Deleted', type: 'object', required: ['id'] }, { type: 'object', required: ['id'], title: 'Deleted' }], components);
    expect(Object.keys(components)).toEqual(['Deleted']);
  });

  it('refuses two different shapes under one title', () => {
    expect(() => hoistTitledSchemas([{ title: 'Deleted', type: 'object' }, { title: 'Deleted', type: 'string' }], {})).toThrow(
      'Two different schemas are both titled "Deleted"',
    );
  });

  it('leaves data alone: a `title` inside an example or a default names nothing', () => {
    const schema = { type: 'object', default: { title: 'A note', type: 'object' }, properties: { title: { type: 'string' } } };
    const components: Record<string, unknown> = {};
    expect(hoistTitledSchemas(schema, components)).toEqual(schema);
    expect(components).toEqual({});
  });

  it('refuses a title that cannot name a component', () => {
    expect(() => hoistTitledSchemas({ title: 'Two words', type: 'object' }, {})).toThrow('cannot name a component');
  });
});
