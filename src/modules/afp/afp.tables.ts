import { column, ownedTables, table, type TablesOf } from '../../storage/columns.js';

export const afpTables = ownedTables({
  /** A remote PC whose AFP daemon registered (online is whether its daemon is connected now). */
  afp_devices: table({
    id: column.text(),
    owner_id: column.text(),
    name: column.text(),
    /** Node's platform and architecture as the daemon reported them: linux-x64, darwin-arm64, win32-x64. */
    platform: column.text(),
    privilege: column.text<'read' | 'write' | 'exec'>(),
    /** The real path of the folder the daemon may touch, as it last reported it. */
    root: column.text(),
    daemon_version: column.text(),
    last_seen_at: column.time(),
    created_at: column.time(),
    /**
     * SHA-256 (hex) of the device key of the daemon that registered the device; a connection for
     * the device with another key is refused. NULL only for a device registered before keys
     * existed, which no connection may use until its owner removes it.
     */
    key_hash: column.text().orNull(),
  }),
  /** Which node holds a connected device's daemon link (used with PostgreSQL only). */
  afp_links: table({
    device_id: column.text(),
    owner_id: column.text(),
    node_id: column.text(),
    connected_at: column.timestamptz(),
    last_seen_at: column.timestamptz(),
  }),
  /** A request's arguments or answer too large for a notification, for the seconds the request runs (PostgreSQL only). */
  afp_payloads: table({
    id: column.text(),
    body: column.text(),
    created_at: column.timestamptz(),
  }),
});

export type AfpTables = TablesOf<typeof afpTables>;
export type AfpDevicesTable = AfpTables['afp_devices'];
