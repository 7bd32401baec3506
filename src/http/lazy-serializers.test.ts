import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { MemoryDuplicateResponse, MemoryResponse } from '../modules/memory/memory.schemas.js';
import { compileResponseSerializer, literalUnionsAsEnums } from './lazy-serializers.js';

type Serializer = (data: unknown) => string;

/** The serializer Fastify builds from the schema as it is, unions and all. */
function asFastifyWrites(schema: object): Serializer {
  return SerializerSelector()({}, undefined)({ schema, method: 'GET', url: '', httpStatus: '200' }) as Serializer;
}

const author = { channel: 'api', token: { id: 'tok_1', name: 'Work "agent"', kind: 'api' }, agent: null };

/** A memory entry with every nullable field null, and one with every one set. */
const bare = {
  id: 'mem_1',
  content: 'The owner likes tea',
  created_at: '2026-11-30T03:39:11.697Z',
  updatedAt: '2026-11-30T03:39:11.697Z',
  kind: 'note',
  tags: [],
  pinned: false,
  validFrom: null,
  validUntil: null,
  source: null,
  author,
  editedBy: null,
  supersedes: [],
  supersededBy: null,
  supersededAt: null,
  seenCount: 1,
  lastSeenAt: null,
  lastSeenBy: null,
};
const full = {
  ...bare,
  content: 'Line one\nline "two" \\ \u2028 é',
  tags: ['work', 'family'],
  pinned: true,
  validFrom: '2026-01-01T00:00:00.000Z',
  validUntil: '2027-01-01T00:00:00.000Z',
  source: { kind: 'url', ref: 'https://example.com/a?b="c"', quote: 'said so' },
  author: { channel: 'mcp', token: null, agent: { kind: 'oauth_client', id: 'cli_1', name: 'Claude' } },
  editedBy: author,
  supersedes: ['mem_0'],
  supersededBy: 'mem_2',
  supersededAt: '2026-12-01T00:00:00.000Z',
  seenCount: 3,
  lastSeenAt: '2026-11-30T04:00:00.000Z',
  lastSeenBy: { ...author, channel: 'console' },
};

describe('the serializers’ schema rewrite', () => {
  it('makes a member-or-null union the member with nullable, keeping the keywords beside it', () => {
    const schema = Type.Object({
      at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'when' }),
      who: Type.Union([Type.Null(), Type.Object({ id: Type.String() })]),
    });
    const rewritten = literalUnionsAsEnums(schema) as { properties: Record<string, Record<string, unknown>> };
    expect(rewritten.properties.at).toMatchObject({ type: 'string', format: 'date-time', nullable: true, description: 'when' });
    expect(rewritten.properties.at!.anyOf).toBeUndefined();
    expect(rewritten.properties.who).toMatchObject({ type: 'object', nullable: true, required: ['id'] });
    // The schema the route validates with and documents is left as it was.
    expect(schema.properties.at.anyOf).toHaveLength(2);
  });

  it('leaves unions it cannot write without validating: three members, two types, a member without one type or with a default', () => {
    const unions = [
      Type.Union([Type.String(), Type.Integer(), Type.Null()]),
      Type.Union([Type.String(), Type.Integer()]),
      Type.Union([Type.Unknown(), Type.Null()]),
      Type.Union([Type.Union([Type.String(), Type.Integer()]), Type.Null()]),
      // A default would be written for a missing property once the member stood alone.
      Type.Union([Type.String({ default: 'x' }), Type.Null()]),
    ];
    for (const union of unions) expect((literalUnionsAsEnums(union) as { anyOf?: unknown }).anyOf).toBeDefined();
  });

  it('writes a memory entry’s answers byte for byte as the union serializer and JSON.stringify do', () => {
    for (const schema of [MemoryResponse, MemoryDuplicateResponse]) {
      const ours = compileResponseSerializer(schema);
      const fastify = asFastifyWrites(schema);
      for (const entry of [bare, full]) {
        const body = schema === MemoryResponse ? { data: entry } : { data: entry, duplicateOf: entry.id, matchedBy: 'text' };
        expect(ours(body)).toBe(fastify(body));
        expect(ours(body)).toBe(JSON.stringify(body));
      }
    }
  });

  it('still leaves out what a nullable object’s schema does not name', () => {
    const body = { data: { ...full, source: { ...full.source, secret: 'x' }, editedBy: { ...author, internal: 1 } } };
    const written = JSON.parse(compileResponseSerializer(MemoryResponse)(body)) as { data: { source: object; editedBy: object } };
    expect(written.data.source).toEqual(full.source);
    expect(written.data.editedBy).toEqual(author);
  });
});
