import type { Health } from './discovery.schemas.js';

/** How long the database may take to answer the health check's query before it counts as unreachable. */
export const HEALTH_DATABASE_TIMEOUT_MS = 1_000;
/** A database answer is reused this long: health stays about as cheap as a route without a query. */
export const HEALTH_DATABASE_MAX_AGE_MS = 1_000;

export interface HealthServiceDeps {
  /** This node's id (the cluster bus's): which node of several answered. */
  nodeId: string;
  engine: 'sqlite' | 'postgres';
  /** One trivial query (`select 1`); rejects when the database cannot answer. */
  ping(): Promise<unknown>;
  timeoutMs?: number;
  maxAgeMs?: number;
}

/**
 * What GET /api/v1/health reports: whether this node serves (or drains before it stops) and
 * whether its database answers. A load balancer sends traffic only to a node answering 200.
 */
export function createHealthService(deps: HealthServiceDeps) {
  const timeoutMs = deps.timeoutMs ?? HEALTH_DATABASE_TIMEOUT_MS;
  const maxAgeMs = deps.maxAgeMs ?? HEALTH_DATABASE_MAX_AGE_MS;
  let state: 'serving' | 'draining' = 'serving';
  let last: { at: number; reachable: boolean } | undefined;
  let checking: Promise<boolean> | undefined;

  /** One query at a time, its answer shared by the checks that arrive meanwhile and reused for `maxAgeMs`. */
  function databaseReachable(): Promise<boolean> {
    if (last && Date.now() - last.at < maxAgeMs) return Promise.resolve(last.reachable);
    checking ??= new Promise<boolean>((resolve) => {
      // A database that does not answer at all (a lost network, a full pool) must not hold health up.
      const timer = setTimeout(() => resolve(false), timeoutMs);
      deps.ping().then(
        () => resolve(true),
        () => resolve(false),
      ).finally(() => clearTimeout(timer));
    }).then((reachable) => {
      last = { at: Date.now(), reachable };
      checking = undefined;
      return reachable;
    });
    return checking;
  }

  return {
    get state() {
      return state;
    },
    /** From now on health answers `draining` (503): the node is shutting down. */
    drain(): void {
      state = 'draining';
    },
    async check(): Promise<Health> {
      const reachable = state === 'draining' ? (last?.reachable ?? true) : await databaseReachable();
      return {
        status: state === 'draining' ? 'draining' : reachable ? 'ok' : 'unavailable',
        node: { id: deps.nodeId, state },
        database: { engine: deps.engine, reachable },
      };
    },
  };
}

export type HealthService = ReturnType<typeof createHealthService>;
