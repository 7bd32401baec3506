import { column, ownedTables, table, type TablesOf } from '../../storage/columns.js';

export const connectorsTables = ownedTables({
  connectors: table({
    id: column.text(),
    owner_id: column.text(),
    name: column.text(),
    /** `name` lower-cased: unique per owner. */
    name_key: column.text(),
    base_url: column.text(),
    auth_type: column.text<'bearer' | 'header' | 'query' | 'none'>(),
    /** The owner's vault token holding the credential; null for `none`. */
    vault_token_id: column.text().orNull(),
    header_name: column.text().orNull(),
    query_param: column.text().orNull(),
    /** `rest`, or `rpc`: only the read methods are reads (GET may write). */
    api_style: column.text<'rest' | 'rpc'>(),
    /** For `rpc`: JSON array of the read methods (paths after the base address); null for `rest`. */
    read_methods: column.json().orNull(),
    created_at: column.time(),
    updated_at: column.time(),
  }),
});

export type ConnectorsTables = TablesOf<typeof connectorsTables>;
export type ConnectorsTable = ConnectorsTables['connectors'];
