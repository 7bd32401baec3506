import { column, ownedTables, table, type TablesOf } from '../../storage/columns.js';

/** One JSON document per owner. */
const ownerDocument = () =>
  table({
    owner_id: column.text(),
    document: column.json(),
    updated_at: column.time(),
  });

export const identityTables = ownedTables({
  identity: ownerDocument(),
  preferences: ownerDocument(),
});

export type IdentityTables = TablesOf<typeof identityTables>;
export type OwnerDocumentTable = IdentityTables['identity'];
