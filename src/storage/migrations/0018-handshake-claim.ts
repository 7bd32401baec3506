import type { Kysely } from 'kysely';
import type { MigrationContext } from '../dialect.js';

/**
 * An agent collects its own token after approval. The handshake keeps:
 * - `claim_hash`: the SHA-256 of the one-time claim secret the agent received when it asked;
 * - `claim_sealed`: the token made on approval, sealed by the owner's vault key, until the agent
 *   claims it, the handshake is revoked or the claim window closes (then it is erased);
 * - `claimed_at`: when the agent collected it (a token is handed over once);
 * - `granted_scopes`: what the owner granted, which may differ from what was asked.
 */
export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema.alterTable('handshakes').addColumn('claim_hash', 'text').execute();
  await db.schema.alterTable('handshakes').addColumn('claim_sealed', 'text').execute();
  await db.schema.alterTable('handshakes').addColumn('claimed_at', 'text').execute();
  await db.schema.alterTable('handshakes').addColumn('granted_scopes', 'text').execute();
}
