/**
 * The relay when several API nodes share one PostgreSQL: a request that reaches any node is
 * served by the daemon connected to whichever node holds its link.
 *
 * - Where a link is: `afp_links` (device, owner, node), written on attach and deleted on
 *   detach. A row counts only while its node is alive in the node registry
 *   (`storage.nodes`), so a killed node's devices show offline once it misses three
 *   heartbeats, with nobody cleaning up first; then one live node claims the dead node's rows
 *   and announces `device.offline` for them.
 * - How a request travels: over the cluster bus, to the owning node (`afp.request`), which
 *   forwards it over its socket, writes it to the owner's audit log (the request ran on a PC
 *   through this node, whoever asked), and sends the answer back (`afp.answer`). The bus seals
 *   every message (bus-seal.ts): only a node of this cluster can send a request, and nobody else
 *   reads one. Arguments or answers too large for a message (a write's content, a read's file)
 *   go through the unlogged `afp_payloads` table, which only Hearth's own database role reads,
 *   the message carrying their key; the reader deletes them.
 * - Each request is sent once and never retried, so the daemon runs it at most once; a lost
 *   message costs the caller its timeout, which stays the caller's (504). The caller fails at
 *   once (503) when the owning node stops heartbeating or its own listening connection drops.
 * - The requests running on a device are counted where its link is, whichever node they came
 *   from (429 beyond the device's limit).
 */
import { sql, type Kysely } from 'kysely';
import { AppError } from '../../http/errors.js';
import { ignoreFailure } from '../../lib/ignore-failure.js';
import { CLOSE, LIMITS, OPS, type Op, type ResponseFrame } from '../../shared/afp.protocol.js';
import { MAX_MESSAGE_BYTES, type ClusterBus } from '../../storage/cluster-bus.js';
import type { NodeRegistry } from '../../storage/node-registry.js';
import type { Database } from '../../storage/tables.js';
import type { AuditService } from '../audit/audit.service.js';
import { createLinkTable, offline, timedOut, type DeviceLinkHost, type DeviceRelay, type LiveLink, type Pending, type RelayOptions } from './afp.relay.js';

const TOPIC_REQUEST = 'afp.request';
const TOPIC_ANSWER = 'afp.answer';
const TOPIC_CLOSE = 'afp.close';
/** A bus message carries at most this much JSON; beyond, the data goes through `afp_payloads`. */
const INLINE_BYTES = MAX_MESSAGE_BYTES;
/** The stored last-seen time of a link is refreshed at most this often. */
const PERSIST_SEEN_EVERY_MS = 10_000;
/** Payloads nobody read (their reader died) are removed after this long: far beyond any request's timeout. */
const PAYLOAD_MAX_AGE_MS = 10 * 60_000;
const SWEEP_EVERY_MS = 60_000;
/** The rows of a node silent this long are removed (they stopped counting long before, once it missed three heartbeats). */
const LINK_FORGET_AFTER_MS = 10 * 60_000;

/** The failures a node reports back for a request it could not run. */
type RemoteErrorCode = 'DEVICE_OFFLINE' | 'DEVICE_TIMEOUT' | 'RATE_LIMITED' | 'UPSTREAM_ERROR';

interface RequestMessage {
  id: string;
  owner: string;
  device: string;
  op: Op;
  timeoutMs: number;
  /** The token that asked (for the serving node's audit log). */
  token?: string | null;
  args?: Record<string, unknown>;
  /** The key of the arguments in `afp_payloads`, when too large to travel inline. */
  argsRef?: string;
}

interface AnswerMessage {
  id: string;
  frame?: ResponseFrame;
  frameRef?: string;
  error?: { code: RemoteErrorCode; message: string };
}

interface CloseMessage {
  device: string;
  code: number;
  reason: string;
}

/** A request this node sent to another node, waiting for its answer. */
interface Remote extends Pending {
  node: string;
  deviceId: string;
}

export interface ClusterRelayDeps extends RelayOptions {
  db: Kysely<Database>;
  bus: ClusterBus;
  nodes: NodeRegistry;
  audit: Pick<AuditService, 'record'>;
}

/** What the serving node's audit entry says of a request passed on to it: never a file's content. */
function relayedDetails(op: Op, args: Record<string, unknown>, fromNode: string): Record<string, unknown> {
  const details: Record<string, unknown> = { op, fromNode };
  if (typeof args.path === 'string') details.path = args.path;
  if (typeof args.cmd === 'string') details.cmd = args.cmd.length > 2000 ? `${args.cmd.slice(0, 2000)}…` : args.cmd;
  if (typeof args.cwd === 'string') details.cwd = args.cwd;
  if (typeof args.recursive === 'boolean') details.recursive = args.recursive;
  return details;
}

const REMOTE_ERRORS: ReadonlySet<string> = new Set<RemoteErrorCode>(['DEVICE_OFFLINE', 'DEVICE_TIMEOUT', 'RATE_LIMITED', 'UPSTREAM_ERROR']);

function remoteError(error: { code: RemoteErrorCode; message: string }): AppError {
  return new AppError(error.code, error.message, error.code === 'RATE_LIMITED' ? { headers: { 'Retry-After': '1' } } : {});
}

export function createClusterRelay(deps: ClusterRelayDeps): DeviceRelay & DeviceLinkHost & { start(): void; close(): Promise<void> } {
  const { db, bus, nodes } = deps;
  const self = bus.nodeId;
  const maxConcurrent = deps.maxConcurrent ?? LIMITS.maxConcurrentRequests;
  const { links, failAll, forward, attach } = createLinkTable(maxConcurrent);
  /** When each link's last_seen_at was last written. */
  const persistedAt = new WeakMap<LiveLink, number>();
  const remotes = new Map<string, Remote>();
  let sequence = 0;
  /** The link table's writes for one device run in order on this node (an attach, then its detach). */
  const chains = new Map<string, Promise<void>>();
  const aliveSince = () => sql<boolean>`clock_timestamp() - ${nodes.deadAfterMs} * interval '1 millisecond'`;

  function inOrder(deviceId: string, work: () => Promise<void>): Promise<void> {
    // The link table is a shared view of this node's links: a failed write is retried by the
    // next attach or sweep, and must not stop the writes queued behind it.
    const next = ignoreFailure((chains.get(deviceId) ?? Promise.resolve()).then(work), 'retried by the next attach or sweep');
    chains.set(deviceId, next);
    void next.then(() => {
      if (chains.get(deviceId) === next) chains.delete(deviceId);
    });
    return next;
  }

  /** Records `live` as this node's link of its device, and has the node holding a previous link close it. */
  function record(live: LiveLink): Promise<void> {
    const { deviceId, ownerId, name } = live.link;
    return inOrder(deviceId, async () => {
      const { rows } = await sql<{ previous: string | null }>`
        WITH old AS (SELECT node_id FROM afp_links WHERE device_id = ${deviceId})
        INSERT INTO afp_links (device_id, owner_id, node_id, connected_at, last_seen_at)
        VALUES (${deviceId}, ${ownerId}, ${self}, clock_timestamp(), clock_timestamp())
        ON CONFLICT (device_id) DO UPDATE SET owner_id = excluded.owner_id, node_id = excluded.node_id,
          connected_at = excluded.connected_at, last_seen_at = excluded.last_seen_at
        RETURNING (SELECT node_id FROM old) AS previous`.execute(db);
      const previous = rows[0]?.previous;
      if (previous && previous !== self && nodes.alive(previous)) {
        // The same reason afp.link.ts gives a replaced link on this node.
        const message: CloseMessage = { device: deviceId, code: CLOSE.REPLACED, reason: `another daemon connected as "${name}" with this device's key` };
        bus.sendTo(previous, TOPIC_CLOSE, JSON.stringify(message));
      }
    });
  }

  async function putPayload(id: string, body: string): Promise<void> {
    await sql`INSERT INTO afp_payloads (id, body, created_at) VALUES (${id}, ${body}, clock_timestamp())`.execute(db);
  }

  async function takePayload(id: string): Promise<string | undefined> {
    const { rows } = await sql<{ body: string }>`DELETE FROM afp_payloads WHERE id = ${id} RETURNING body`.execute(db);
    return rows[0]?.body;
  }

  function dropPayload(id: string): void {
    void ignoreFailure(sql`DELETE FROM afp_payloads WHERE id = ${id}`.execute(db), 'a payload left behind is deleted by the sweep');
  }

  /** Sends a request to the node holding the device's link and waits for its answer. */
  async function sendRemote(node: string, ownerId: string, deviceId: string, op: Op, args: Record<string, unknown>, timeoutMs: number, token: string | null): Promise<ResponseFrame> {
    // The answer would come as a notification this node cannot hear now: no use waiting for it.
    if (!bus.connected) throw offline(deviceId, 'this server node has lost its connection to the other nodes for now; try again');
    const started = Date.now();
    sequence += 1;
    const id = `${self}.${sequence}`;
    let message: RequestMessage = { id, owner: ownerId, device: deviceId, op, timeoutMs, token, args };
    let text = JSON.stringify(message);
    if (Buffer.byteLength(text) > INLINE_BYTES) {
      await putPayload(id, JSON.stringify(args));
      message = { id, owner: ownerId, device: deviceId, op, timeoutMs, token, argsRef: id };
      text = JSON.stringify(message);
    }
    return new Promise<ResponseFrame>((resolve, reject) => {
      const timer = setTimeout(
        () => {
          remotes.delete(id);
          if (message.argsRef) dropPayload(message.argsRef);
          reject(timedOut(deviceId, op, timeoutMs));
        },
        Math.max(0, timeoutMs - (Date.now() - started)),
      );
      remotes.set(id, { node, deviceId, resolve, reject, timer });
      try {
        bus.sendTo(node, TOPIC_REQUEST, text);
      } catch {
        clearTimeout(timer);
        remotes.delete(id);
        reject(offline(deviceId, 'the server node holding its link could not be reached'));
      }
    });
  }

  /** On the node holding the link: runs a request another node sent, and sends the answer back. */
  async function serveRemote(text: string, from: string): Promise<void> {
    let request: RequestMessage;
    try {
      request = JSON.parse(text) as RequestMessage;
    } catch {
      return;
    }
    if (typeof request?.id !== 'string' || !(OPS as readonly string[]).includes(request.op) || typeof request.timeoutMs !== 'number') return;
    const answer = (message: AnswerMessage) => bus.sendTo(from, TOPIC_ANSWER, JSON.stringify(message));
    const fail = (code: RemoteErrorCode, message: string) => answer({ id: request.id, error: { code, message } });
    try {
      let args = request.args;
      if (request.argsRef) {
        const body = await takePayload(request.argsRef);
        // Gone: the caller gave up (its timeout) and removed it.
        if (body === undefined) return fail('DEVICE_TIMEOUT', timedOut(request.device, request.op, request.timeoutMs).message);
        args = JSON.parse(body) as Record<string, unknown>;
      }
      const live = links.get(request.device);
      if (!live || live.link.ownerId !== request.owner) return fail('DEVICE_OFFLINE', offline(request.device).message);
      const frame = await forward(live, request.op, args ?? {}, request.timeoutMs);
      // The caller's node audits the operations that change a PC; this node audits every one it
      // ran for another node, so that what reached the PC through it is on record here too.
      const audited = deps.audit.record(
        { ownerId: request.owner, tokenId: typeof request.token === 'string' ? request.token : null, ip: null, userAgent: null },
        {
          action: 'afp.relay.serve',
          outcome: frame.ok ? 'success' : 'failure',
          targetType: 'afp_device',
          targetId: request.device,
          details: relayedDetails(request.op, args ?? {}, from),
        },
      );
      await ignoreFailure(audited, 'the PC has run it: its answer goes back even if the log could not be written');
      const inline = JSON.stringify({ id: request.id, frame } satisfies AnswerMessage);
      if (Buffer.byteLength(inline) <= INLINE_BYTES) {
        bus.sendTo(from, TOPIC_ANSWER, inline);
        return;
      }
      const ref = `${request.id}.answer`;
      await putPayload(ref, JSON.stringify(frame));
      answer({ id: request.id, frameRef: ref });
    } catch (error) {
      if (error instanceof AppError && REMOTE_ERRORS.has(error.code)) return fail(error.code as RemoteErrorCode, error.message);
      fail('UPSTREAM_ERROR', `The server node holding device ${request.device}'s link could not pass its answer on; try again`);
    }
  }

  /** On the caller's node: the answer to a request it sent. */
  async function answered(text: string): Promise<void> {
    let message: AnswerMessage;
    try {
      message = JSON.parse(text) as AnswerMessage;
    } catch {
      return;
    }
    const waiting = typeof message?.id === 'string' ? remotes.get(message.id) : undefined;
    if (!waiting) {
      // Too late: its caller has answered 504 already. Nobody else will read the payload.
      if (typeof message?.frameRef === 'string') dropPayload(message.frameRef);
      return;
    }
    remotes.delete(message.id);
    clearTimeout(waiting.timer);
    if (message.error && REMOTE_ERRORS.has(message.error.code)) return waiting.reject(remoteError(message.error));
    if (message.frame) return waiting.resolve(message.frame);
    if (typeof message.frameRef === 'string') {
      try {
        const body = await takePayload(message.frameRef);
        if (body !== undefined) return waiting.resolve(JSON.parse(body) as ResponseFrame);
      } catch {
        // Answered below.
      }
    }
    waiting.reject(new AppError('UPSTREAM_ERROR', `The answer of device ${waiting.deviceId} was lost between the server nodes; try again`));
  }

  /** Closes this node's link of a device, as told by another node (replaced there, or removed). */
  function closeLocal(deviceId: string, code: number, reason: string): boolean {
    const live = links.get(deviceId);
    if (!live) return false;
    links.delete(deviceId);
    const replaced = code === CLOSE.REPLACED;
    // A replaced link's device is still online, on the node that replaced it.
    if (!replaced) deps.onPresence?.(live.link, 'offline');
    failAll(live, offline(deviceId, replaced ? 'its daemon reconnected while the request ran' : 'the device was removed'));
    live.link.close(code, reason);
    void inOrder(deviceId, async () => {
      await sql`DELETE FROM afp_links WHERE device_id = ${deviceId} AND node_id = ${self}`.execute(db);
    });
    return true;
  }

  /** Fails the requests waiting on answers that can no longer come. */
  function failRemotes(which: (remote: Remote) => boolean, detail: string): void {
    for (const [id, remote] of remotes) {
      if (!which(remote)) continue;
      remotes.delete(id);
      clearTimeout(remote.timer);
      remote.reject(offline(remote.deviceId, detail));
    }
  }

  const unsubscribe = [
    bus.subscribe(TOPIC_REQUEST, (text, from) => void serveRemote(text, from)),
    bus.subscribe(TOPIC_ANSWER, (text) => void answered(text)),
    bus.subscribe(TOPIC_CLOSE, (text) => {
      try {
        const message = JSON.parse(text) as CloseMessage;
        if (typeof message?.device === 'string' && typeof message.code === 'number') closeLocal(message.device, message.code, String(message.reason ?? ''));
      } catch {
        // Not a close message: nothing to do.
      }
    }),
  ];
  // A dead node's links stopped counting already (presence and send join live nodes); what is
  // left is to tell the owners their devices went offline, once. Every live node hears 'down'
  // and tries; the conditional DELETE hands each row to one of them (the one whose statement
  // returns it), and spares a link the daemon already recorded on another node, and the rows of
  // a node heartbeating again by now (only slow: it puts them back when it rejoins).
  const onNodeDown = (node: string) => {
    failRemotes((remote) => remote.node === node, 'the server node holding its link stopped; its daemon reconnects to another');
    const claimed = sql<{ device_id: string; owner_id: string; name: string }>`
      DELETE FROM afp_links l USING afp_devices d
      WHERE l.node_id = ${node} AND d.id = l.device_id
        AND NOT EXISTS (SELECT 1 FROM cluster_nodes n WHERE n.node_id = ${node} AND n.heartbeat_at > ${aliveSince()})
      RETURNING l.device_id, l.owner_id, d.name`
      .execute(db)
      .then(({ rows }) => {
        for (const row of rows) deps.onPresence?.({ deviceId: row.device_id, ownerId: row.owner_id, name: row.name }, 'offline');
      });
    void ignoreFailure(claimed, 'not claimed now (the database is out of reach): the rows stay, and the sweep forgets them');
  };
  // This node cannot hear answers while its listening connection is down: they are lost.
  const onBusDown = () => failRemotes(() => true, 'the connection between the server nodes was lost while the request ran');
  // Taken for dead and back: another node may have removed this node's rows meanwhile (and told
  // the owners the devices went offline). Put back the missing ones, never over a row another
  // node wrote since (the daemon reconnected there), and say online again for those put back.
  const onRejoined = () => {
    for (const live of links.values()) {
      const { deviceId, ownerId } = live.link;
      void inOrder(deviceId, async () => {
        const inserted = await sql`INSERT INTO afp_links (device_id, owner_id, node_id, connected_at, last_seen_at)
          VALUES (${deviceId}, ${ownerId}, ${self}, clock_timestamp(), clock_timestamp()) ON CONFLICT (device_id) DO NOTHING`.execute(db);
        if (inserted.numAffectedRows && links.get(deviceId) === live) deps.onPresence?.(live.link, 'online');
      });
    }
  };
  nodes.events.on('down', onNodeDown);
  nodes.events.on('rejoined', onRejoined);
  bus.events.on('down', onBusDown);
  // The sweep of payloads and links left behind: background work, started with the server (start).
  let sweep: NodeJS.Timeout | undefined;
  const sweepOnce = () => {
    // A pass the database missed is made up by the next one.
    void ignoreFailure(sql`DELETE FROM afp_payloads WHERE created_at < clock_timestamp() - ${PAYLOAD_MAX_AGE_MS} * interval '1 millisecond'`.execute(db), 'swept again soon');
    void ignoreFailure(sql`DELETE FROM afp_links l WHERE NOT EXISTS (
      SELECT 1 FROM cluster_nodes n WHERE n.node_id = l.node_id AND n.heartbeat_at > clock_timestamp() - ${LINK_FORGET_AFTER_MS} * interval '1 millisecond')`.execute(db), 'swept again soon');
  };

  return {
    attach(link, onReplaced) {
      return attach(link, onReplaced, {
        attached(live, replaced) {
          persistedAt.set(live, live.lastSeenAt);
          if (!replaced) deps.onPresence?.(link, 'online');
          void record(live);
        },
        heard(live) {
          if (live.lastSeenAt - (persistedAt.get(live) ?? 0) < PERSIST_SEEN_EVERY_MS) return;
          persistedAt.set(live, live.lastSeenAt);
          void inOrder(link.deviceId, async () => {
            await sql`UPDATE afp_links SET last_seen_at = clock_timestamp() WHERE device_id = ${link.deviceId} AND node_id = ${self}`.execute(db);
          });
        },
        detached() {
          void inOrder(link.deviceId, async () => {
            const deleted = await sql`DELETE FROM afp_links WHERE device_id = ${link.deviceId} AND node_id = ${self}`.execute(db);
            // No row of this node: the device reconnected to another node meanwhile, and is online there.
            if (deleted.numAffectedRows) deps.onPresence?.(link, 'offline');
          });
        },
      });
    },

    async send(ownerId, deviceId, op, args, timeoutMs, tokenId) {
      const live = links.get(deviceId);
      if (live) {
        // A link of another owner's device is no link for this owner: the caller answers 404.
        if (live.link.ownerId !== ownerId) throw offline(deviceId);
        return forward(live, op, args, timeoutMs);
      }
      const { rows } = await sql<{ node_id: string; owner_id: string }>`
        SELECT l.node_id, l.owner_id FROM afp_links l JOIN cluster_nodes n ON n.node_id = l.node_id
        WHERE l.device_id = ${deviceId} AND n.heartbeat_at > ${aliveSince()}`.execute(db);
      const row = rows[0];
      // A row of this node without a live link here is a link closing right now.
      if (!row || row.owner_id !== ownerId || row.node_id === self) throw offline(deviceId);
      return sendRemote(row.node_id, ownerId, deviceId, op, args, timeoutMs, tokenId ?? null);
    },

    async presence(deviceIds) {
      const out = new Map<string, { lastSeenAt: string }>();
      const elsewhere: string[] = [];
      for (const id of deviceIds) {
        const live = links.get(id);
        if (live) out.set(id, { lastSeenAt: new Date(live.lastSeenAt).toISOString() });
        else elsewhere.push(id);
      }
      if (elsewhere.length === 0) return out;
      const { rows } = await sql<{ device_id: string; last_seen_at: Date }>`
        SELECT l.device_id, l.last_seen_at FROM afp_links l JOIN cluster_nodes n ON n.node_id = l.node_id
        WHERE l.device_id IN (${sql.join(elsewhere)}) AND l.node_id <> ${self} AND n.heartbeat_at > ${aliveSince()}`.execute(db);
      for (const row of rows) out.set(row.device_id, { lastSeenAt: new Date(row.last_seen_at).toISOString() });
      return out;
    },

    async disconnect(deviceId, code, reason) {
      if (closeLocal(deviceId, code, reason)) return;
      // Held elsewhere (its row may be gone already with the device): every node closes its link, if it has one.
      bus.publish(TOPIC_CLOSE, JSON.stringify({ device: deviceId, code, reason } satisfies CloseMessage));
      await sql`DELETE FROM afp_links WHERE device_id = ${deviceId}`.execute(db);
    },

    async closeAll(code, reason) {
      for (const [deviceId, live] of [...links]) {
        links.delete(deviceId);
        deps.onPresence?.(live.link, 'offline');
        failAll(live, offline(deviceId, 'the server node it was connected to is shutting down'));
        live.link.close(code, reason);
      }
      await Promise.all([...chains.values()]);
      await sql`DELETE FROM afp_links WHERE node_id = ${self}`.execute(db);
    },

    /** Starts the sweep (once). */
    start() {
      if (sweep) return;
      sweep = setInterval(sweepOnce, SWEEP_EVERY_MS);
      sweep.unref();
    },

    async close() {
      for (const stop of unsubscribe) stop();
      nodes.events.off('down', onNodeDown);
      nodes.events.off('rejoined', onRejoined);
      bus.events.off('down', onBusDown);
      clearInterval(sweep);
      failRemotes(() => true, 'this server node is shutting down');
      await Promise.all([...chains.values()]);
    },
  };
}
