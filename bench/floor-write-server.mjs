// The floor under Hearth's write row on PostgreSQL: the least a Fastify app can do to take
// `POST /api/v1/memory` durably with group commit, into Hearth's own table. No token, no access
// check, no validation schema, no limits, no request id, no logging, no write tracking: only what
// no implementation of the route can skip (parse the JSON body, insert the row, commit, answer 201
// with the entry). Concurrent requests share one INSERT … unnest (Hearth's statement, named so
// PostgreSQL plans it once per connection) and one commit, a few batches at a time, as Hearth's
// group commit does on PostgreSQL. PostgreSQL does exactly Hearth's work per row: the same
// table, its indexes, its full-text column and its triggers, made by Hearth's migrations.
// Plain JavaScript, like the minimal app. Run by bench/write-floor.bench.ts with PORT,
// DATABASE_URL (a database Hearth has migrated) and OWNER_ID (a user of that database) set.
import Fastify from 'fastify';
import pg from 'pg';

const { PORT, DATABASE_URL, OWNER_ID } = process.env;
if (!PORT || !DATABASE_URL || !OWNER_ID) throw new Error('PORT, DATABASE_URL and OWNER_ID must be set');

// Hearth's pool size and batch bounds on PostgreSQL (src/storage/group-commit.ts).
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10 });
// An idle connection PostgreSQL ends is dropped by the pool, not fatal to the process.
pool.on('error', () => undefined);
const MAX_BATCH = 64;
const MAX_IN_FLIGHT = 4;
const INSERT = {
  name: 'floor_insert',
  text: 'INSERT INTO memory_entries (id, owner_id, content, created_at, updated_at) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])',
};

const queue = [];
let inFlight = 0;
let scheduled = false;

function schedule() {
  if (scheduled || queue.length === 0 || inFlight >= MAX_IN_FLIGHT) return;
  scheduled = true;
  // The requests whose bodies arrived in this turn of the event loop join the batch.
  setImmediate(() => {
    scheduled = false;
    while (queue.length > 0 && inFlight < MAX_IN_FLIGHT) {
      const batch = queue.splice(0, MAX_BATCH);
      inFlight += 1;
      void commit(batch).finally(() => {
        inFlight -= 1;
        schedule();
      });
    }
  });
}

async function commit(batch) {
  const column = (name) => batch.map((waiting) => waiting.row[name]);
  try {
    // One statement outside a transaction commits by itself: durable when it returns.
    await pool.query({ ...INSERT, values: [column('id'), column('owner_id'), column('content'), column('created_at'), column('updated_at')] });
    for (const waiting of batch) waiting.resolve();
  } catch (error) {
    for (const waiting of batch) waiting.reject(error);
  }
}

/**
 * Ids shaped as Hearth's (`mem_` and a ULID: 10 characters of time, 16 more, Crockford's base 32):
 * the same length, and in time order with Hearth's own, so the inserts of both land at the same
 * end of the primary key and owner indexes. The last 16 count up instead of being random (a
 * ULID's randomness is Hearth's cost, not PostgreSQL's).
 */
const BASE32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
function base32(value, width) {
  let text = '';
  for (let i = 0; i < width; i++) {
    text = BASE32[value % 32] + text;
    value = Math.floor(value / 32);
  }
  return text;
}
let sequence = 0;
const newId = () => `mem_${base32(Date.now(), 10)}${base32(sequence++, 16)}`;

const app = Fastify({ logger: false });
app.get('/', async () => ({ ready: true }));
app.post('/api/v1/memory', async (request, reply) => {
  const content = request.body?.content;
  if (typeof content !== 'string') return reply.status(400).send({ error: 'content must be a string' });
  const now = new Date().toISOString();
  const row = { id: newId(), owner_id: OWNER_ID, content, created_at: now, updated_at: now };
  await new Promise((resolve, reject) => {
    queue.push({ row, resolve, reject });
    schedule();
  });
  return reply.status(201).send({ data: { id: row.id, content: row.content, created_at: row.created_at, updatedAt: row.updated_at } });
});
await app.listen({ port: Number(PORT), host: '127.0.0.1' });
