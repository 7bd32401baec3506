import type { Kysely } from 'kysely';

/**
 * The audit log filtered by the token that acted (`GET /audit/log?tokenId=`), newest first:
 * without this index a token that acted rarely would make the query walk the owner's whole log.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('audit_owner_token').on('audit_log').columns(['owner_id', 'token_id', 'id']).execute();
}
