import type { Part } from '../../lib/lifecycle.js';
import type { EventsBus } from '../events/events.bus.js';
import type { WebhookDeliverer } from './webhooks.deliverer.js';
import type { WebhooksService } from './webhooks.service.js';

/**
 * The webhooks' background work, in the order it starts: the worker that sends stored deliveries,
 * then the fan-out that stores one delivery per webhook for each event published on this node
 * (the node where an event happened stores it, once). Stopped the other way round: no delivery
 * is stored once the worker stops.
 */
export function createWebhookParts(deps: {
  events: Pick<EventsBus, 'subscribeAll'>;
  webhooks: Pick<WebhooksService, 'enqueue'>;
  deliverer: Pick<WebhookDeliverer, 'start' | 'close'>;
}): Part[] {
  let stopFanOut: (() => void) | undefined;
  return [
    {
      name: 'webhooks.deliverer',
      start: (log) => deps.deliverer.start(log),
      stop: () => deps.deliverer.close(),
    },
    {
      name: 'webhooks.fan-out',
      start(log) {
        stopFanOut = deps.events.subscribeAll((ownerId, event) => {
          deps.webhooks
            .enqueue(ownerId, event)
            .catch((error: unknown) => log.error({ err: error }, `webhooks: the deliveries of event ${event.id} could not be stored`));
        });
      },
      stop() {
        stopFanOut?.();
      },
    },
  ];
}
