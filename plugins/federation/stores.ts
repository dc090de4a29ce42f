// Where Fedify keeps its cache, idempotence records and key pairs (a KvStore) and where its
// deliveries and inbox work wait (a MessageQueue). One function, so that swapping the stores
// is one line.

import { MemoryKvStore, type KvStore, type MessageQueue, type MessageQueueEnqueueOptions } from '@fedify/fedify';
import type { PluginHost } from '../../core/plugin-host.ts';

export interface FederationStores {
  kv: KvStore;
  queue: MessageQueue;
}

/** An in-process queue (until the queue on the core's ports is wired): messages wait in memory,
 * delayed ones on unref'd timers, and run once a listener is started. */
export class LocalMessageQueue implements MessageQueue {
  readonly nativeRetrial = false;
  #pending: unknown[] = [];
  #handler: ((message: unknown) => Promise<void> | void) | null = null;
  #timers = new Set<NodeJS.Timeout>();
  #running = false;

  async enqueue(message: unknown, options?: MessageQueueEnqueueOptions): Promise<void> {
    const delay = options?.delay === undefined ? 0 : Math.max(0, Math.round(options.delay.total({ unit: 'milliseconds' })));
    if (delay === 0) return this.#push(message);
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#push(message);
    }, delay);
    timer.unref();
    this.#timers.add(timer);
  }

  #push(message: unknown): void {
    this.#pending.push(message);
    void this.#run();
  }

  async #run(): Promise<void> {
    if (this.#running || this.#handler === null) return;
    this.#running = true;
    try {
      while (this.#handler !== null && this.#pending.length > 0) {
        const message = this.#pending.shift();
        try {
          await this.#handler(message);
        } catch {
          // Fedify retries failed work itself (re-enqueued with a delay).
        }
      }
    } finally {
      this.#running = false;
    }
  }

  listen(handler: (message: unknown) => Promise<void> | void, options?: { signal?: AbortSignal }): Promise<void> {
    this.#handler = handler;
    void this.#run();
    return new Promise((done) => {
      const stop = () => {
        this.#handler = null;
        for (const timer of this.#timers) clearTimeout(timer);
        this.#timers.clear();
        done();
      };
      if (options?.signal?.aborted) stop();
      else options?.signal?.addEventListener('abort', stop, { once: true });
    });
  }
}

export function federationStores(_host: PluginHost): FederationStores {
  return { kv: new MemoryKvStore(), queue: new LocalMessageQueue() };
}
