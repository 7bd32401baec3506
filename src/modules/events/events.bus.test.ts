/**
 * The events bus across nodes: an event published on one node reaches its owner's listeners on
 * every node (the live streams), while only the node where it happened hands it to the
 * listeners of every owner (webhooks, which store one delivery per event).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ENGINE, type TestApp } from '../../../test/harness.js';
import type { Storage } from '../../storage/storage.js';
import { createEventsBus, EVENTS_TOPIC } from './events.bus.js';
import type { AccountEvent } from './events.schemas.js';

const tokenCreated = { type: 'token.created' as const, data: { tokenId: 'tok_1', name: 'ci', kind: 'api' as const, scopes: ['memory' as const] } };

describe('one node', () => {
  it('delivers to the owner listeners and to every-owner listeners, with an id and a time', () => {
    const bus = createEventsBus();
    const mine: AccountEvent[] = [];
    const all: Array<[string, AccountEvent]> = [];
    bus.subscribe('usr_a', (event) => mine.push(event));
    bus.subscribe('usr_b', () => expect.fail('another owner heard it'));
    bus.subscribeAll((ownerId, event) => all.push([ownerId, event]));
    const delivered = bus.publish('usr_a', tokenCreated);
    expect(delivered.id).toMatch(/^evt_/);
    expect(mine).toEqual([delivered]);
    expect(all).toEqual([['usr_a', delivered]]);
  });
});

describe.skipIf(ENGINE !== 'postgres')('nodes sharing PostgreSQL', () => {
  let app: TestApp;
  let other: Storage;

  beforeAll(async () => {
    app = await createTestApp();
    other = await app.openStorage();
  });
  afterAll(async () => {
    await other?.close();
    await app?.close();
  });

  it("hands another node's event to its owner's listeners here, not to the every-owner listeners", async () => {
    const here = createEventsBus({ cluster: app.storage.bus });
    const there = createEventsBus({ cluster: other.bus });
    const heardThere: Array<[string, AccountEvent]> = [];
    there.subscribeAll((ownerId, event) => heardThere.push([ownerId, event]));
    const atOwner = new Promise<AccountEvent>((resolve) => there.subscribe('usr_a', resolve));
    // Another owner's listener on the same node: it must not hear usr_a's event.
    there.subscribe('usr_b', () => expect.fail("another owner's listener heard it"));
    // The message on the wire: the event as delivered here, with its owner.
    const onWire = new Promise<string>((resolve) => {
      const off = other.bus.subscribe(EVENTS_TOPIC, (message) => {
        off();
        resolve(message);
      });
    });

    const delivered = here.publish('usr_a', tokenCreated);
    expect(await atOwner).toEqual(delivered);
    expect(JSON.parse(await onWire)).toEqual({ ownerId: 'usr_a', event: delivered });
    // Heard by the owner's listener on the same message: the every-owner listener was passed over.
    expect(heardThere).toEqual([]);
    here.close();
    there.close();
  });
});
