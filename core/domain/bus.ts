// The in-process event bus (one process: the default). publish hands the message to every
// handler of the channel before it resolves; a handler that throws (or rejects) cannot break
// publish or keep the other handlers from running.

import type { EventBus, StreamHandler, StreamMessage } from './ports/bus.ts';

interface Subscription {
  handler: StreamHandler;
  active: boolean;
}

export function createInProcessBus(): EventBus {
  const channels = new Map<string, Set<Subscription>>();

  const deliver = (sub: Subscription, message: StreamMessage, channel: string): void => {
    try {
      const result: unknown = sub.handler(message, channel);
      // A handler typed `void` may still be async: swallow its rejection too.
      if (result !== null && typeof result === 'object' && typeof (result as { then?: unknown }).then === 'function') {
        (result as PromiseLike<unknown>).then(undefined, () => {});
      }
    } catch {
      // Handlers must not be able to break publish.
    }
  };

  return {
    async publish(channel, message) {
      const subs = channels.get(channel);
      if (subs === undefined) return;
      // A snapshot: a handler subscribed during this round waits for the next message, and one
      // unsubscribed during it (by another handler) gets nothing more.
      for (const sub of [...subs]) if (sub.active) deliver(sub, message, channel);
    },
    async subscribe(channel, handler) {
      const sub: Subscription = { handler, active: true };
      let subs = channels.get(channel);
      if (subs === undefined) {
        subs = new Set();
        channels.set(channel, subs);
      }
      subs.add(sub);
      return async () => {
        sub.active = false;
        const current = channels.get(channel);
        if (current === undefined || !current.delete(sub)) return;
        if (current.size === 0) channels.delete(channel);
      };
    },
    async hasSubscribers(channel) {
      return (channels.get(channel)?.size ?? 0) > 0;
    },
    async listening(names) {
      return new Set(names.filter((channel) => (channels.get(channel)?.size ?? 0) > 0));
    },
    async close() {
      for (const subs of channels.values()) for (const sub of subs) sub.active = false;
      channels.clear();
    },
  };
}
