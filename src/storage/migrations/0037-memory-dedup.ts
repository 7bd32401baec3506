import type { Kysely } from 'kysely';
import { sameTextKey } from '../../lib/same-text.js';
import type { MigrationContext } from '../dialect.js';

/** Rows read and keyed at a time while backfilling. */
const PAGE = 500;

/**
 * No duplicate memory entries (docs/decisions/memory.md, "No duplicates").
 *
 * `content_key`: the hash of the entry's content in its compared form (`lib/same-text.ts`), held
 * only while the entry is current: superseding an entry clears it, and a write meeting an
 * expired entry's key clears that one's. A unique index on (owner_id, content_key) then lets one
 * current entry of each text exist per owner, on both engines and across nodes (NULLs never
 * collide), whatever the concurrency.
 *
 * `seen_count`, `last_seen_at`, `last_seen_by`: how many times a writer stored this content, when
 * last, and who (JSON, as `editor`; null while only the author has).
 *
 * Existing entries: every one is kept. Each owner's current entries are keyed oldest first; an
 * entry whose text an older current entry of the owner already holds is kept without a key (it
 * stays listed and searchable; a new write of that text is a duplicate of the oldest).
 * Superseded entries get no key.
 */
export async function up(db: Kysely<unknown>, _context: MigrationContext): Promise<void> {
  const table = () => db.schema.alterTable('memory_entries');
  await table().addColumn('content_key', 'text').execute();
  await table().addColumn('seen_count', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await table().addColumn('last_seen_at', 'text').execute();
  await table().addColumn('last_seen_by', 'text').execute();

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migration reads the table as it is now
  const any = db as Kysely<any>;
  let after: { owner: string; id: string } | undefined;
  let owner: string | undefined;
  let keys = new Set<string>();
  for (;;) {
    let q = any.selectFrom('memory_entries').select(['owner_id', 'id', 'content', 'created_at']).where('superseded_at', 'is', null);
    if (after) {
      const { owner: o, id } = after;
      q = q.where((eb) => eb.or([eb('owner_id', '>', o), eb.and([eb('owner_id', '=', o), eb('id', '>', id)])]));
    }
    const rows = (await q.orderBy('owner_id').orderBy('id').limit(PAGE).execute()) as Array<{ owner_id: string; id: string; content: string; created_at: string }>;
    if (rows.length === 0) break;
    for (const row of rows) {
      // Rows come grouped by owner: the keys of one owner at a time are held.
      if (row.owner_id !== owner) {
        owner = row.owner_id;
        keys = new Set();
      }
      const key = sameTextKey(row.content);
      if (keys.has(key)) continue;
      keys.add(key);
      await any.updateTable('memory_entries').set({ content_key: key }).where('owner_id', '=', row.owner_id).where('id', '=', row.id).execute();
    }
    const last = rows[rows.length - 1]!;
    after = { owner: last.owner_id, id: last.id };
  }

  await db.schema.createIndex('memory_entries_owner_content_key').on('memory_entries').columns(['owner_id', 'content_key']).unique().execute();
}
