import type { Kysely, Migration, MigrationProvider } from 'kysely';
import * as core from './0001-core.js';
import * as ownerData from './0003-owner-data.js';
import * as knowledge from './0005-knowledge.js';
import * as vault from './0006-vault.js';
import * as oauth from './0007-oauth.js';
import * as connectors from './0008-connectors.js';
import * as afp from './0009-afp.js';
import * as chat from './0010-chat.js';
import * as marketplace from './0011-marketplace.js';
import * as billing from './0012-billing.js';
import * as afpDeviceKey from './0013-afp-device-key.js';
import * as oauthBrowserBinding from './0014-oauth-browser-binding.js';
import * as dropLoginLockout from './0015-drop-login-lockout.js';
import * as oauthRefreshLease from './0016-oauth-refresh-lease.js';
import * as skillsActiveIndex from './0017-skills-active-index.js';
import * as handshakeClaim from './0018-handshake-claim.js';
import * as authorizationServer from './0019-authorization-server.js';
import * as searchGenerations from './0020-search-generations.js';
import * as consoleConsent from './0021-console-consent.js';
import * as webhooks from './0022-webhooks.js';
import * as auditTokenIndex from './0023-audit-token-index.js';
import * as approvals from './0024-approvals.js';
import * as approvalReplayLease from './0025-approval-replay-lease.js';
import * as clusterNodes from './0026-cluster-nodes.js';
import * as sharedCounters from './0027-shared-counters.js';
import * as statementSearchGenerations from './0028-statement-search-generations.js';
import * as webhookFairness from './0029-webhook-fairness.js';
import * as connectorReadMethods from './0030-connector-read-methods.js';
import * as webhookDeliveryRetention from './0031-webhook-delivery-retention.js';
import * as searchVectors from './0032-search-vectors.js';
import * as knowledgePassages from './0033-knowledge-passages.js';
import * as memoryProvenance from './0034-memory-provenance.js';
import * as memoryProfileScope from './0035-memory-profile-scope.js';
import * as portabilityExportJobs from './0036-portability-export-jobs.js';
import * as memoryDedup from './0037-memory-dedup.js';
import * as knowledgeFileSize from './0038-knowledge-file-size.js';
import * as passwordResets from './0039-password-resets.js';
import * as userDisabled from './0040-user-disabled.js';
import * as accountErasures from './0041-account-erasures.js';
import * as eventOutbox from './0042-event-outbox.js';
import * as memoryFulltextDropped from './0043-memory-fulltext-dropped.js';
import * as memoryTextKeysInProcess from './0044-memory-text-keys-in-process.js';
import type { Dialect, MigrationContext } from '../dialect.js';


interface MigrationModule {
  up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void>;
}

/**
 * The one list of migrations, in order, for both engines. A migration is told which engine it
 * runs on and branches only where the engines truly differ (full-text search, triggers,
 * integer keys). Kysely runs them in name order, so numbers only grow. Add new files at the end;
 * never edit one that has shipped.
 */
const MIGRATIONS: Array<[name: string, module: MigrationModule]> = [
  ['0001-core', core],
  ['0003-owner-data', ownerData],
  ['0005-knowledge', knowledge],
  ['0006-vault', vault],
  ['0007-oauth', oauth],
  ['0008-connectors', connectors],
  ['0009-afp', afp],
  ['0010-chat', chat],
  ['0011-marketplace', marketplace],
  ['0012-billing', billing],
  ['0013-afp-device-key', afpDeviceKey],
  ['0014-oauth-browser-binding', oauthBrowserBinding],
  ['0015-drop-login-lockout', dropLoginLockout],
  ['0016-oauth-refresh-lease', oauthRefreshLease],
  ['0017-skills-active-index', skillsActiveIndex],
  ['0018-handshake-claim', handshakeClaim],
  ['0019-authorization-server', authorizationServer],
  ['0020-search-generations', searchGenerations],
  ['0021-console-consent', consoleConsent],
  ['0022-webhooks', webhooks],
  ['0023-audit-token-index', auditTokenIndex],
  ['0024-approvals', approvals],
  ['0025-approval-replay-lease', approvalReplayLease],
  ['0026-cluster-nodes', clusterNodes],
  ['0027-shared-counters', sharedCounters],
  ['0028-statement-search-generations', statementSearchGenerations],
  ['0029-webhook-fairness', webhookFairness],
  ['0030-connector-read-methods', connectorReadMethods],
  ['0031-webhook-delivery-retention', webhookDeliveryRetention],
  ['0032-search-vectors', searchVectors],
  ['0033-knowledge-passages', knowledgePassages],
  ['0034-memory-provenance', memoryProvenance],
  ['0035-memory-profile-scope', memoryProfileScope],
  ['0036-portability-export-jobs', portabilityExportJobs],
  ['0037-memory-dedup', memoryDedup],
  ['0038-knowledge-file-size', knowledgeFileSize],
  ['0039-password-resets', passwordResets],
  ['0040-user-disabled', userDisabled],
  ['0041-account-erasures', accountErasures],
  ['0042-event-outbox', eventOutbox],
  ['0043-memory-fulltext-dropped', memoryFulltextDropped],
  ['0044-memory-text-keys-in-process', memoryTextKeysInProcess],
];

/** The names Kysely records in `kysely_migration`, one per migration. */
export const MIGRATION_NAMES: readonly string[] = MIGRATIONS.map(([name]) => name);

export function migrationProvider(dialect: Dialect): MigrationProvider {
  return {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, module] of MIGRATIONS) {
        out[name] = { up: (db) => module.up(db, { dialect }) };
      }
      return out;
    },
  };
}
