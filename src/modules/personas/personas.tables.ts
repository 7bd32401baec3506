import { column, ownedTables, table, type TablesOf } from '../../storage/columns.js';

export const personasTables = ownedTables({
  personas: table({
    id: column.text(),
    owner_id: column.text(),
    name: column.text(),
    description: column.text(),
    soul_content: column.text(),
    active: column.boolean(),
    created_at: column.time(),
    updated_at: column.time(),
  }),
});

export type PersonasTables = TablesOf<typeof personasTables>;
export type PersonasTable = PersonasTables['personas'];
