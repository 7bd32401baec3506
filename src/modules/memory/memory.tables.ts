import { column, ownedTables, table, type TablesOf } from '../../storage/columns.js';

export const memoryTables = ownedTables({
  memory_entries: table(
    {
      id: column.text(),
      owner_id: column.text(),
      content: column.text(),
      created_at: column.time(),
      updated_at: column.time(),
    },
    { fullText: { columns: ['content'], sqliteRowKey: 'rid' } },
  ),
});

export type MemoryTables = TablesOf<typeof memoryTables>;
export type MemoryEntriesTable = MemoryTables['memory_entries'];
