/**
 * The relay carries a request from an API route to the daemon of a device and its answer back.
 *
 * Routes use `DeviceRelay` only. The WebSocket handler, which holds the daemon's connection,
 * uses `DeviceLinkHost`. Here both live in one process: a request reaches a daemon connected to
 * this same process (SQLite: one node). When several API nodes share one PostgreSQL,
 * `afp.cluster-relay.ts` implements the same two interfaces: `send` finds the node that holds
 * the device's link and forwards the request there.
 */
import { AppError } from '../../http/errors.js';
import { LIMITS, type Op, type ResponseFrame, type ServerMessage } from '../../shared/afp.protocol.js';
import type { EventsBus } from '../events/events.bus.js';

export interface DeviceRelay {
  /**
   * Sends one operation to the device's daemon and waits for its answer.
   * Throws AppError DEVICE_OFFLINE (no live link for this owner's device), DEVICE_TIMEOUT (no
   * answer within `timeoutMs`) or RATE_LIMITED (too many requests running on the device).
   * `tokenId` names the token that asked, for the audit of the node that serves a request
   * another node passed on.
   */
  send(ownerId: string, deviceId: string, op: Op, args: Record<string, unknown>, timeoutMs: number, tokenId?: string | null): Promise<ResponseFrame>;
  /** The devices among `deviceIds` that are online now, with when each was last heard from. */
  presence(deviceIds: string[]): Promise<Map<string, { lastSeenAt: string }>>;
  /** Closes the device's link, if it has one (a forgotten device). */
  disconnect(deviceId: string, code: number, reason: string): Promise<void>;
  /**
   * Closes every link this node holds (a node shutting down hands its daemons back): with
   * `CLOSE.GOING_AWAY` each daemon reconnects at once, through the load balancer, to a node
   * that stays. Requests running on those links answer 503.
   */
  closeAll(code: number, reason: string): Promise<void>;
}

/** One live daemon connection, as the WebSocket handler presents it to the relay. */
export interface DeviceLink {
  deviceId: string;
  ownerId: string;
  /** The device's name, for whoever hears it come and go. */
  name: string;
  send(message: ServerMessage): void;
  close(code: number, reason: string): void;
}

/** What the WebSocket handler tells the relay about its link. */
export interface AttachedLink {
  /** A response frame from the daemon. */
  received(response: ResponseFrame): void;
  /** Any frame from the daemon: it is alive. */
  heard(): void;
  /** The connection closed. */
  detach(): void;
}

export interface DeviceLinkHost {
  /** Makes `link` the device's live link; a previous link of the same device is closed. */
  attach(link: DeviceLink, onReplaced: (previous: DeviceLink) => void): AttachedLink;
}

export interface Pending {
  resolve(outcome: ResponseFrame): void;
  reject(error: AppError): void;
  timer: NodeJS.Timeout;
}

export interface LiveLink {
  link: DeviceLink;
  pending: Map<string, Pending>;
  lastSeenAt: number;
}

export function offline(deviceId: string, detail = 'its daemon is not connected'): AppError {
  return new AppError('DEVICE_OFFLINE', `Device ${deviceId} is offline: ${detail}. Start the AFP daemon on the PC, or wait for it to reconnect`);
}

export function rateLimited(deviceId: string, maxConcurrent: number): AppError {
  return new AppError('RATE_LIMITED', `Device ${deviceId} is already running ${maxConcurrent} requests; retry when one has finished`, {
    headers: { 'Retry-After': '1' },
  });
}

export function timedOut(deviceId: string, op: string, timeoutMs: number): AppError {
  return new AppError('DEVICE_TIMEOUT', `Device ${deviceId} did not answer ${op} within ${timeoutMs} ms`);
}

/**
 * The relays' `onPresence`: a device coming online or going offline is an event of its owner's
 * account (`device.online`, `device.offline`), on the console's streams and to the owner's webhooks.
 */
export function presenceEvents(events: Pick<EventsBus, 'publish'>): NonNullable<RelayOptions['onPresence']> {
  return (link, status) => {
    events.publish(link.ownerId, { type: `device.${status}`, data: { deviceId: link.deviceId, name: link.name } });
  };
}

export interface RelayOptions {
  maxConcurrent?: number;
  /**
   * Told when a device comes online (its first live link) and goes offline (its live link
   * closes, or it is removed); a daemon reconnecting over a link still open is neither.
   */
  onPresence?: (link: Pick<DeviceLink, 'deviceId' | 'ownerId' | 'name'>, status: 'online' | 'offline') => void;
}

/** What a relay does as a link of this process comes and goes, beyond keeping it. */
export interface LinkEvents {
  /** `live` is the device's link now; `replaced` when it took the place of a previous one here. */
  attached(live: LiveLink, replaced: boolean): void;
  /** The daemon was heard (any frame); `live.lastSeenAt` is updated already. */
  heard?(live: LiveLink): void;
  /** The device's current link closed (not called for a link replaced meanwhile). */
  detached(live: LiveLink): void;
}

/**
 * The daemon links held by this process and the requests waiting on them: what every relay
 * shares, whether a request came from a route of this process or from another node.
 */
export function createLinkTable(maxConcurrent: number) {
  const links = new Map<string, LiveLink>();
  let sequence = 0;

  /** Fails every request waiting on `live`. */
  function failAll(live: LiveLink, error: AppError): void {
    for (const [id, pending] of live.pending) {
      clearTimeout(pending.timer);
      live.pending.delete(id);
      pending.reject(error);
    }
  }

  /** Sends one request over a link of this process and waits for its answer, at most `timeoutMs`. */
  function forward(live: LiveLink, op: Op, args: Record<string, unknown>, timeoutMs: number): Promise<ResponseFrame> {
    const deviceId = live.link.deviceId;
    if (live.pending.size >= maxConcurrent) return Promise.reject(rateLimited(deviceId, maxConcurrent));
    sequence += 1;
    const id = `r${sequence}`;
    return new Promise<ResponseFrame>((resolve, reject) => {
      const timer = setTimeout(() => {
        live.pending.delete(id);
        reject(timedOut(deviceId, op, timeoutMs));
      }, timeoutMs);
      live.pending.set(id, { resolve, reject, timer });
      try {
        live.link.send({ type: 'request', id, op, args });
      } catch {
        clearTimeout(timer);
        live.pending.delete(id);
        reject(offline(deviceId, 'its connection failed'));
      }
    });
  }

  /** Makes `link` the device's link here; a previous link of the device here is closed (4409). */
  function attach(link: DeviceLink, onReplaced: (previous: DeviceLink) => void, events: LinkEvents): AttachedLink {
    const previous = links.get(link.deviceId);
    if (previous) {
      links.delete(link.deviceId);
      failAll(previous, offline(link.deviceId, 'its daemon reconnected while the request ran'));
      onReplaced(previous.link);
    }
    const live: LiveLink = { link, pending: new Map(), lastSeenAt: Date.now() };
    links.set(link.deviceId, live);
    events.attached(live, previous !== undefined);
    return {
      received(response) {
        const pending = live.pending.get(response.id);
        // An answer after its request timed out has no one waiting for it.
        if (!pending) return;
        clearTimeout(pending.timer);
        live.pending.delete(response.id);
        pending.resolve(response);
      },
      heard() {
        live.lastSeenAt = Date.now();
        events.heard?.(live);
      },
      detach() {
        if (links.get(link.deviceId) === live) {
          links.delete(link.deviceId);
          events.detached(live);
        }
        failAll(live, offline(link.deviceId, 'its daemon disconnected while the request ran'));
      },
    };
  }

  return { links, failAll, forward, attach };
}

export function createInProcessRelay(options: RelayOptions = {}): DeviceRelay & DeviceLinkHost {
  const { links, failAll, forward, attach } = createLinkTable(options.maxConcurrent ?? LIMITS.maxConcurrentRequests);

  return {
    attach(link, onReplaced) {
      return attach(link, onReplaced, {
        attached(live, replaced) {
          if (!replaced) options.onPresence?.(live.link, 'online');
        },
        detached(live) {
          options.onPresence?.(live.link, 'offline');
        },
      });
    },

    async send(ownerId, deviceId, op, args, timeoutMs) {
      const live = links.get(deviceId);
      // A link of another owner's device is no link for this owner: the caller answers 404.
      if (!live || live.link.ownerId !== ownerId) throw offline(deviceId);
      return forward(live, op, args, timeoutMs);
    },

    async presence(deviceIds) {
      const out = new Map<string, { lastSeenAt: string }>();
      for (const id of deviceIds) {
        const live = links.get(id);
        if (live) out.set(id, { lastSeenAt: new Date(live.lastSeenAt).toISOString() });
      }
      return out;
    },

    async disconnect(deviceId, code, reason) {
      const live = links.get(deviceId);
      if (!live) return;
      links.delete(deviceId);
      options.onPresence?.(live.link, 'offline');
      failAll(live, offline(deviceId, 'the device was removed'));
      live.link.close(code, reason);
    },

    async closeAll(code, reason) {
      for (const [deviceId, live] of [...links]) {
        links.delete(deviceId);
        options.onPresence?.(live.link, 'offline');
        failAll(live, offline(deviceId, 'the server it was connected to is shutting down'));
        live.link.close(code, reason);
      }
    },
  };
}
