import { createHook } from 'node:async_hooks';

/** The queue entry kept alive by keepTickShapeAlive; never read, only held. */
let keptTick: object | undefined;

/**
 * Keeps one of `process.nextTick`'s queue entries alive for the life of the process, so that V8
 * keeps the shape (hidden class) such entries are built with.
 *
 * Why: nextTick builds each entry as an object literal whose first keys are computed (Node's
 * async-id symbols). V8 remembers the shapes such a literal went through weakly; a full garbage
 * collection that runs while no entry is alive frees them, and the next entry, built on new
 * shapes, makes V8 give up on the literal for good ("megamorphic"). From then on every nextTick
 * (several per request: the HTTP streams call it as a request is read and answered) takes V8's
 * slow path to add each property. A small process never collects before its first requests and
 * does not meet this; this server does, during start-up. Measured with callgrind: the slow path
 * was about 30% of the instructions of a cached GET, and holding one entry removes it.
 *
 * The entry is caught through an async hook enabled for this one call only (`TickObject` is the
 * resource type async_hooks documents for nextTick); it holds only an empty callback.
 * Call it first thing, before start-up's garbage collections.
 */
export function keepTickShapeAlive(): void {
  if (keptTick) return;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject') keptTick = resource;
    },
  });
  hook.enable();
  try {
    process.nextTick(() => {});
  } finally {
    hook.disable();
  }
}
