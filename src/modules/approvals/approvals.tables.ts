import type { RequestChannel } from '../../http/channel.js';
import { column, ownedTables, table, type TablesOf } from '../../storage/columns.js';

export const approvalsTables = ownedTables({
  token_policies: table({
    token_id: column.text(),
    owner_id: column.text(),
    /** JSON: action class → 'ask' | 'deny' (classes left out are allowed). */
    rules: column.json(),
    updated_at: column.time(),
  }),
  approvals: table({
    id: column.text(),
    owner_id: column.text(),
    token_id: column.text(),
    token_name: column.text(),
    action_class: column.text(),
    method: column.text(),
    url: column.text(),
    operation_id: column.text().orNull(),
    description: column.text(),
    body_sealed: column.text().orNull(),
    status: column.text<'pending' | 'approved' | 'denied' | 'expired' | 'executed' | 'failed'>(),
    expires_at: column.time(),
    decided_at: column.time().orNull(),
    decided_by: column.text().orNull(),
    executed_at: column.time().orNull(),
    result_status: column.integer().orNull(),
    result_sealed: column.text().orNull(),
    result_expires_at: column.time().orNull(),
    created_at: column.time(),
    /** When the claim started the replay (approved only); see the sweep of stale replays. */
    replay_started_at: column.time().orNull(),
    /** The channel the held request came over (http/channel.ts): its replay records the same. */
    channel: column.text<RequestChannel>(),
  }),
});

export type ApprovalsTables = TablesOf<typeof approvalsTables>;
export type ApprovalsTable = ApprovalsTables['approvals'];
export type TokenPoliciesTable = ApprovalsTables['token_policies'];
