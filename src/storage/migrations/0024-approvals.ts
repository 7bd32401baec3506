import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * Policies and approvals of tokens that are not the owner's own:
 * - `token_policies`: per token, the rule (allow, ask, deny) of each action class that is not
 *   `allow`; no row means every class is allowed. Goes with its token.
 * - `approvals`: a request held for the owner's decision. The request's body and, once run,
 *   its answer are sealed by the owner's vault key (they may hold a mail body or a file's
 *   content) and dropped once no longer needed. `status` moves pending → approved (claimed by
 *   one atomic UPDATE, so it runs once whatever the number of callers or nodes) → executed or
 *   failed; or pending → denied or expired.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema
    .createTable('token_policies')
    .addColumn('token_id', 'text', (c) => c.primaryKey().references('tokens.id').onDelete('cascade'))
    .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('rules', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('approvals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_id', 'text', (c) => c.notNull().references('tokens.id').onDelete('cascade'))
    .addColumn('token_name', 'text', (c) => c.notNull())
    .addColumn('action_class', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('operation_id', 'text')
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('body_sealed', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('decided_at', 'text')
    .addColumn('decided_by', 'text')
    .addColumn('executed_at', 'text')
    .addColumn('result_status', 'integer')
    .addColumn('result_sealed', 'text')
    .addColumn('result_expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('approvals_owner').on('approvals').columns(['owner_id', 'id']).execute();
  await db.schema.createIndex('approvals_status_expiry').on('approvals').columns(['status', 'expires_at']).execute();
}
