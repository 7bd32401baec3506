/**
 * The server's side of a daemon's WebSocket: hello → register the device → attach the link to
 * the relay, then heartbeats and responses until the connection closes. The token the daemon
 * connected with is checked again on every heartbeat interval, so revoking it (or taking the
 * `devices` scope away) ends the link within one interval.
 */
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import WebSocket from 'ws';
import { extractToken, hasScope, principalOf, type Principal } from '../../http/access.js';
import { AppError } from '../../http/errors.js';
import { actorOf } from '../audit/audit.service.js';
import { CLOSE, DaemonMessage, PROTOCOL_VERSION, type ServerMessage } from '../../shared/afp.protocol.js';
import type { AttachedLink, DeviceLinkHost } from './afp.relay.js';
import type { AfpService } from './afp.service.js';

const isDaemonMessage = TypeCompiler.Compile(DaemonMessage);

/** How long a new connection may take to say hello. */
const HELLO_TIMEOUT_MS = 10_000;
/** The stored last-seen time is refreshed at most this often while a device stays connected. */
const PERSIST_SEEN_EVERY_MS = 60_000;

export interface LinkDeps {
  afp: Pick<AfpService, 'registerDevice' | 'deviceSeen'>;
  host: DeviceLinkHost;
  authenticate(secret: string): Promise<Principal | null>;
  heartbeatMs: number;
  log: FastifyBaseLogger;
}

/** Close reasons are limited to 123 bytes by the protocol. */
function closeReason(text: string): string {
  return Buffer.byteLength(text) <= 123 ? text : `${Buffer.from(text).subarray(0, 120).toString('utf8').replace(/\uFFFD+$/, '')}…`;
}

export function serveDaemonLink(socket: WebSocket, request: FastifyRequest, deps: LinkDeps): void {
  const principal = principalOf(request);
  const secret = extractToken(request)!;
  const actor = actorOf(request);
  let attached: AttachedLink | undefined;
  let deviceId: string | undefined;
  let registering = false;
  let lastHeard = Date.now();
  let lastPersisted = Date.now();

  const send = (message: ServerMessage) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  };
  const close = (code: number, reason: string) => {
    if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) socket.close(code, closeReason(reason));
  };

  const helloTimer = setTimeout(() => close(CLOSE.PROTOCOL, `expected a hello within ${HELLO_TIMEOUT_MS / 1000} s`), HELLO_TIMEOUT_MS);
  const watchdog = setInterval(() => {
    if (Date.now() - lastHeard > deps.heartbeatMs * 3) {
      deps.log.info({ deviceId }, 'AFP daemon missed its heartbeats; closing its link');
      socket.terminate();
      return;
    }
    deps.authenticate(secret).then(
      (current) => {
        if (!current || !hasScope(current, 'devices')) close(CLOSE.UNAUTHORIZED, 'the token was revoked or no longer holds the devices scope');
      },
      (error: unknown) => deps.log.warn({ err: error }, 'AFP: could not re-check a daemon token'),
    );
  }, deps.heartbeatMs);

  async function register(hello: Extract<DaemonMessage, { type: 'hello' }>): Promise<void> {
    if (hello.protocol !== PROTOCOL_VERSION) {
      close(CLOSE.PROTOCOL, `protocol ${hello.protocol} is not spoken here (this server speaks ${PROTOCOL_VERSION}): download the daemon again`);
      return;
    }
    if (!hello.key) {
      close(CLOSE.PROTOCOL, 'hello carries no device key: download the daemon again');
      return;
    }
    registering = true;
    let device;
    try {
      device = await deps.afp.registerDevice(principal.ownerId, hello, actor);
    } catch (error) {
      if (error instanceof AppError && error.status < 500) {
        if (error.code === 'FORBIDDEN') deps.log.warn({ name: hello.name }, 'AFP: refused a daemon whose device key does not match the device');
        close(CLOSE.REFUSED, error.message);
      } else {
        deps.log.error({ err: error }, 'AFP: registering a device failed');
        close(1011, 'the server could not register the device');
      }
      return;
    }
    clearTimeout(helloTimer);
    if (socket.readyState !== WebSocket.OPEN) return;
    deviceId = device.id;
    attached = deps.host.attach(
      {
        deviceId: device.id,
        ownerId: principal.ownerId,
        name: device.name,
        send,
        close,
      },
      // Only a daemon holding this device's key gets here: the same daemon reconnecting over a
      // link the server still holds open, or a copy of it sharing its key file.
      (previous) => previous.close(CLOSE.REPLACED, `another daemon connected as "${hello.name}" with this device's key`),
    );
    send({ type: 'registered', deviceId: device.id, heartbeatMs: deps.heartbeatMs });
    deps.log.info({ deviceId: device.id, platform: hello.platform, privilege: hello.privilege }, 'AFP daemon connected');
  }

  socket.on('message', (data, isBinary) => {
    lastHeard = Date.now();
    attached?.heard();
    let message: unknown;
    try {
      message = isBinary ? undefined : JSON.parse(data.toString());
    } catch {
      message = undefined;
    }
    if (!isDaemonMessage.Check(message)) {
      close(CLOSE.PROTOCOL, 'a frame did not follow the AFP protocol');
      return;
    }
    if (message.type === 'hello') {
      if (registering) close(CLOSE.PROTOCOL, 'hello was sent twice');
      else void register(message);
      return;
    }
    if (!attached) {
      close(CLOSE.PROTOCOL, 'the first frame must be hello');
      return;
    }
    if (message.type === 'heartbeat') {
      send({ type: 'heartbeat' });
      if (lastHeard - lastPersisted >= PERSIST_SEEN_EVERY_MS && deviceId) {
        lastPersisted = lastHeard;
        deps.afp.deviceSeen(deviceId, new Date(lastHeard).toISOString()).catch((error: unknown) => deps.log.warn({ err: error }, 'AFP: last-seen update failed'));
      }
      return;
    }
    attached.received(message);
  });

  socket.on('close', () => {
    clearTimeout(helloTimer);
    clearInterval(watchdog);
    attached?.detach();
    if (deviceId) {
      deps.log.info({ deviceId }, 'AFP daemon disconnected');
      deps.afp.deviceSeen(deviceId, new Date(lastHeard).toISOString()).catch((error: unknown) => deps.log.warn({ err: error }, 'AFP: last-seen update failed'));
    }
  });
}
