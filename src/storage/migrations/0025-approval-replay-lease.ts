import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * When the claim of an approval started its replay. A node that dies during the replay leaves
 * the approval `approved`; past a bound longer than any replay can take, the sweep writes it
 * `failed` (never runs it again: an approved request runs at most once). Approvals already
 * `approved` when this runs started their replay when they were decided.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema.alterTable('approvals').addColumn('replay_started_at', 'text').execute();
  await sql`UPDATE approvals SET replay_started_at = decided_at WHERE status = 'approved'`.execute(db);
}
