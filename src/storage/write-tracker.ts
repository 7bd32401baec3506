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
 * search results) know when what they read has changed.
 *
 * Only sound where this process makes every write: the embedded SQLite engine. There, Kysely
 * runs every statement on one connection, so a transaction's writes become visible to a reader
 * only after it commits, and the counter is bumped when each write statement has run. A reader
 * notes `stamp(tables)` before its queries and keeps its answer only if the stamp is unchanged
 * afterwards; an answer read before a write can then never be served after it.
 */
export interface WriteTracker {
  plugin: KyselyPlugin;
  /** A number that changes whenever any of these tables has been written since. */
  stamp(tables: readonly string[]): number;
}

const WRITE_STATEMENT = /^\s*(insert|update|delete|replace)\b/i;

function tableName(node: unknown): string | undefined {
  // TableNode: { kind: 'TableNode', table: { identifier: { name } } }; AliasNode wraps it.
  const n = node as { kind?: string; table?: { identifier?: { name?: string } }; node?: unknown } | undefined;
  if (!n) return undefined;
  if (n.kind === 'AliasNode') return tableName(n.node);
  return n.table?.identifier?.name;
}

export function createWriteTracker(): WriteTracker {
  const counts = new Map<string, number>();
  /** Bumped by a raw write whose table cannot be told: every stamp changes. */
  let unknownWrites = 0;
  const pending = new WeakMap<object, string[] | 'unknown'>();

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
        if (tables === 'unknown') unknownWrites += 1;
        else for (const table of tables) counts.set(table, (counts.get(table) ?? 0) + 1);
      }
      return result;
    },
  };

  return {
    plugin,
    stamp(tables) {
      let sum = unknownWrites;
      for (const table of tables) sum += counts.get(table) ?? 0;
      return sum;
    },
  };
}
