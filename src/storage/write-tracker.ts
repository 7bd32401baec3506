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
 *   has run. Another process's commits to the same file (the command line's) are seen through
 *   SQLite's data_version, within EXTERNAL_CHECK_MS (`externalVersion`).
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
  /**
   * Embedded SQLite: the database's `data_version`, which changes when another process commits
   * to the same file (`hearth reset-password`, the key rotation script), never for this
   * connection's own writes. Read by `stamp` at most every EXTERNAL_CHECK_MS; a change counts as
   * a write to every table, so no cache outlives another process's change by longer than that.
   */
  externalVersion?: () => number;
}

/** How often `stamp` asks SQLite whether another process committed: a pragma read, kept off most requests. */
export const EXTERNAL_CHECK_MS = 250;

const WRITE_STATEMENT = /^\s*(insert|update|delete|replace)\b/i;
/**
 * A raw statement that writes one named table, as a builder's would: `INSERT INTO t`, `REPLACE
 * INTO t`, `UPDATE t`, `DELETE FROM t` at its start (a plain or quoted name). Any other raw write
 * (a CTE, `INSERT OR …`, a name this does not read) counts as a write to every table.
 */
const ONE_TABLE_WRITE = /^\s*(?:insert\s+into|replace\s+into|update|delete\s+from)\s+"?([a-z_][a-z0-9_]*)"?(?=[\s(]|$)/i;

/**
 * Columns no cached answer is derived from: an UPDATE that sets only these is not counted as a
 * write of its table (nor, on PostgreSQL, announced to the other nodes). A token's last use is
 * written about once a minute per token in use, and counted it emptied every node's token cache
 * (the principals are read from `tokens`) each time: with many agents, more than once a second.
 * A column belongs here only if no cache of `write-tracker` stamps reads it.
 */
export const UNCOUNTED_COLUMNS: ReadonlyMap<string, ReadonlySet<string>> = new Map([['tokens', new Set(['last_used_at'])]]);

/**
 * The tables whose rows the database removes itself when rows of another are deleted (`ON DELETE
 * CASCADE`), by parent. No statement names them, so a write to a parent counts as a write to these
 * too: deleting a document took its passages away, yet the words index of passages was kept and
 * went on answering the deleted text until the next write to `kb_passages`. Any write to a parent
 * counts, not only a delete (an insert or an update that changes no child costs a recomputation
 * at most). The owner's key (`users`) is left out: an account's rows go with its erasure, which
 * deletes table by table. A test compares this with the schema's foreign keys.
 */
export const CASCADED_TABLES: ReadonlyMap<string, readonly string[]> = new Map([
  ['kb_documents', ['kb_passages', 'persona_documents', 'skill_documents']],
  ['personas', ['persona_documents', 'persona_skills']],
  ['skills', ['persona_skills', 'skill_documents']],
  ['chat_conversations', ['chat_messages']],
  ['marketplace_listings', ['marketplace_ratings']],
  ['webhook_endpoints', ['webhook_deliveries']],
  ['webhook_deliveries', ['webhook_attempts']],
  ['tokens', ['token_policies', 'approvals']],
  ['afp_devices', ['afp_links']],
]);

/** Each parent's children and theirs (a webhook's deliveries take their attempts with them). */
const CASCADE_CLOSURE: ReadonlyMap<string, readonly string[]> = new Map(
  [...CASCADED_TABLES.keys()].map((parent) => {
    const reached = new Set<string>();
    const visit = (table: string): void => {
      for (const child of CASCADED_TABLES.get(table) ?? []) {
        if (reached.has(child)) continue;
        reached.add(child);
        visit(child);
      }
    };
    visit(parent);
    return [parent, [...reached]];
  }),
);

/** Whether an UPDATE of `table` that sets exactly `columns` leaves every cached answer as it was. */
export function changesNothingCached(table: string, columns: readonly string[]): boolean {
  const uncounted = UNCOUNTED_COLUMNS.get(table);
  return uncounted !== undefined && columns.length > 0 && columns.every((column) => uncounted.has(column));
}

/** The column an UPDATE's SET entry names (ColumnUpdateNode: { column: ColumnNode { column: { name } } }). */
function updatedColumn(node: unknown): string | undefined {
  const n = node as { column?: { kind?: string; column?: { name?: string } } } | undefined;
  return n?.column?.kind === 'ColumnNode' ? n.column.column?.name : undefined;
}

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
    case 'UpdateQueryNode': {
      const table = tableName(node.table);
      if (!table) return [];
      const columns = (node.updates ?? []).map(updatedColumn);
      if (columns.every((c): c is string => c !== undefined) && changesNothingCached(table, columns)) return undefined;
      return [table];
    }
    case 'DeleteQueryNode':
      return node.from.froms.map(tableName).filter((t): t is string => !!t);
    case 'RawNode': {
      const text = node.sqlFragments.join('?');
      if (!WRITE_STATEMENT.test(text)) return undefined;
      // The search indexer stores each vector with one: counted as a write to every table, it
      // emptied every cache of every table each time.
      const table = ONE_TABLE_WRITE.exec(text)?.[1];
      return table === undefined ? 'unknown' : [table.toLowerCase()];
    }
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
  const { externalVersion } = options;
  let lastVersion: number | undefined;
  let nextCheck = 0;

  /** Counts another process's commit (see externalVersion) as a write to every table. */
  function checkExternal(): void {
    const now = Date.now();
    if (now < nextCheck) return;
    nextCheck = now + EXTERNAL_CHECK_MS;
    let version: number;
    try {
      version = externalVersion!();
    } catch {
      // The database is closed (shutting down): nothing is served from it any more.
      return;
    }
    if (lastVersion !== undefined && version !== lastVersion) unknownWrites += 1;
    lastVersion = version;
  }

  function count(table: string): void {
    counts.set(table, (counts.get(table) ?? 0) + 1);
  }

  function noteWrites(tables: Iterable<string> | 'unknown'): void {
    if (tables === 'unknown') {
      unknownWrites += 1;
      return;
    }
    for (const table of tables) {
      count(table);
      const children = CASCADE_CLOSURE.get(table);
      if (children) for (const child of children) count(child);
    }
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
      if (externalVersion) checkExternal();
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
