import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';

/**
 * Counts completed writes per table, so that caches of derived answers (the gateway context,
 * memory pages, skills) know when what they read has changed. A reader notes `stamp(tables)`
 * before its queries and keeps its answer only if the stamp is unchanged afterwards; an entry
 * is served only while the stamp still equals the one it was stored with.
 *
 * The one rule that makes this sound: a write is counted only once it is visible to every
 * reader, that is after it committed, and before the request that made it is acknowledged.
 * - Embedded SQLite: Kysely runs every statement on one connection, so a reader never runs
 *   inside another request's open transaction; `plugin` counts each write statement when it
 *   has run.
 * - PostgreSQL: the pool wrapper (postgres-pool.ts) counts a write when its statement or its
 *   transaction's COMMIT has returned. Other nodes write too: their writes arrive by
 *   notification (change-feed.ts); while that feed is down `stamp` answers undefined (cache
 *   nothing), and caches keep no answer longer than `maxAgeMs`, in case a notification never came.
 */
export interface WriteTracker {
  /** Counts writes as Kysely runs them; installed on the embedded engine only. */
  plugin: KyselyPlugin;
  /**
   * A number that changes whenever any of these tables has been written since; undefined
   * while changes made elsewhere cannot be seen (nothing may be cached or served then).
   */
  stamp(tables: readonly string[]): number | undefined;
  /** Counts committed writes to these tables ('unknown': a write to any table). */
  noteWrites(tables: Iterable<string> | 'unknown'): void;
  /** Changes made elsewhere can no longer be seen: every stamp is undefined until `resume`. */
  suspend(): void;
  /** Changes made elsewhere are seen again; every stamp taken before changes. */
  resume(): void;
  /**
   * Where other processes write too: the longest a cache may keep an answer (counted from
   * before it was computed), so that it outlives a lost notification of a change made
   * elsewhere by this long at most. Undefined where this process makes every write.
   */
  readonly maxAgeMs: number | undefined;
}

export interface WriteTrackerOptions {
  maxAgeMs?: number;
}

const WRITE_STATEMENT = /^\s*(insert|update|delete|replace)\b/i;

function tableName(node: unknown): string | undefined {
  // TableNode: { kind: 'TableNode', table: { identifier: { name } } }; AliasNode wraps it.
  const n = node as { kind?: string; table?: { identifier?: { name?: string } }; node?: unknown } | undefined;
  if (!n) return undefined;
  if (n.kind === 'AliasNode') return tableName(n.node);
  return n.table?.identifier?.name;
}

function writtenTables(node: RootOperationNode): string[] | 'unknown' | undefined {
  switch (node.kind) {
    case 'InsertQueryNode':
      return [tableName(node.into)].filter((t): t is string => !!t);
    case 'UpdateQueryNode':
      return [tableName(node.table)].filter((t): t is string => !!t);
    case 'DeleteQueryNode':
      return node.from.froms.map(tableName).filter((t): t is string => !!t);
    case 'RawNode':
      return WRITE_STATEMENT.test(node.sqlFragments.join('?')) ? 'unknown' : undefined;
    default:
      // DDL (migrations) and selects change no cached answer.
      return undefined;
  }
}

export function createWriteTracker(options: WriteTrackerOptions = {}): WriteTracker {
  const counts = new Map<string, number>();
  /** Bumped by a write whose table cannot be told, and on resume: every stamp changes. */
  let unknownWrites = 0;
  let suspended = false;
  const pending = new WeakMap<object, string[] | 'unknown'>();

  function noteWrites(tables: Iterable<string> | 'unknown'): void {
    if (tables === 'unknown') unknownWrites += 1;
    else for (const table of tables) counts.set(table, (counts.get(table) ?? 0) + 1);
  }

  const plugin: KyselyPlugin = {
    transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
      const tables = writtenTables(node);
      if (tables) pending.set(queryId, tables);
      return node;
    },
    async transformResult({ result, queryId }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      const tables = pending.get(queryId);
      if (tables) {
        pending.delete(queryId);
        noteWrites(tables);
      }
      return result;
    },
  };

  return {
    plugin,
    stamp(tables) {
      if (suspended) return undefined;
      // Counts only grow, so the sum changes whenever one of them does.
      let sum = unknownWrites;
      for (const table of tables) sum += counts.get(table) ?? 0;
      return sum;
    },
    noteWrites,
    suspend() {
      suspended = true;
      unknownWrites += 1;
    },
    resume() {
      unknownWrites += 1;
      suspended = false;
    },
    maxAgeMs: options.maxAgeMs,
  };
}
