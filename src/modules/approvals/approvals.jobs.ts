import type { Part } from '../../lib/lifecycle.js';
import type { ApprovalsService } from './approvals.service.js';

/** How often pending approvals past their time are written expired, replays a dead node left written failed, and old answers dropped. */
export const SWEEP_INTERVAL_MS = 60_000;

/** The approvals' background work: the sweep, once a minute on every node (each row is written by one). */
export function createApprovalsSweep(approvals: Pick<ApprovalsService, 'sweep'>, intervalMs = SWEEP_INTERVAL_MS): Part {
  let sweeper: NodeJS.Timeout | undefined;
  return {
    name: 'approvals.sweep',
    start(log) {
      sweeper = setInterval(() => {
        approvals.sweep().catch((error: unknown) => log.error({ err: error }, 'approvals: the sweep of expired approvals and interrupted replays failed; it runs again in a minute'));
      }, intervalMs);
      sweeper.unref();
    },
    stop() {
      clearInterval(sweeper);
    },
  };
}
