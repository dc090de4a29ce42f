// Fedify's MessageQueue on Rookery's own job queue, through the plugin host: each message is a
// job of the plugin's (`federation:fedify` by default), so it waits in whichever queue the
// instance runs (the store's, or Redis), survives restarts, and is retried with our backoff and
// buried in the dead letters after its last attempt. `nativeRetrial` tells Fedify to throw a
// failed delivery back at us instead of queueing its own retry.
//
// The job handler is registered when the queue is made (at plugin registration, in every
// process alike, so any process may run a job another queued); it hands each message to the
// handler the latest `listen` gave. A job that arrives while nobody listens fails and is retried.

import type { JobOptions, NewJob, PluginHost } from 'rookery/plugin-kit';
import { createHash } from 'node:crypto';
import type { MessageQueue, MessageQueueEnqueueOptions, MessageQueueListenOptions } from '@fedify/fedify';
import { durationMs } from './kv.ts';

export interface RookeryMessageQueueOptions extends JobOptions {
  /** The job name within the plugin (default 'fedify'); one per queue object. */
  name?: string;
}

/** Remote servers go down for hours, so deliveries are retried longer than the core's jobs: from
 * a minute, doubling, at most 6 h apart, 12 runs in all (about 20 h). */
export const FEDERATION_MAX_ATTEMPTS = 12;
export function federationBackoff(attempt: number): number {
  return Math.min(6 * 3_600_000, 60_000 * 2 ** (attempt - 1));
}

/** Largest message we queue (encoded), and longest ordering key kept as is. */
export const MAX_MESSAGE_LENGTH = 1024 * 1024;
const MAX_KEY_LENGTH = 256;

export const queueTexts = {
  notJson: 'a federation queue message must be plain JSON',
  tooLarge: `a federation queue message longer than ${MAX_MESSAGE_LENGTH} characters encoded`,
  noListener: 'no Fedify listener in this process yet',
} as const;

type Handler = (message: unknown) => Promise<void> | void;

export interface RookeryMessageQueue extends MessageQueue {
  readonly nativeRetrial: true;
  /** The job name its messages are queued under. */
  readonly jobName: string;
  enqueueMany(messages: readonly unknown[], options?: MessageQueueEnqueueOptions): Promise<void>;
}

/** A deep copy of the message as plain JSON (what the queue stores), or a TypeError. */
function plainJson(message: unknown): unknown {
  let encoded: string | undefined;
  try {
    encoded = JSON.stringify(message);
  } catch {
    throw new TypeError(queueTexts.notJson);
  }
  if (encoded === undefined) throw new TypeError(queueTexts.notJson);
  if (encoded.length > MAX_MESSAGE_LENGTH) throw new RangeError(queueTexts.tooLarge);
  return JSON.parse(encoded) as unknown;
}

export function rookeryMessageQueue(host: PluginHost, options: RookeryMessageQueueOptions = {}): RookeryMessageQueue {
  
  const listeners: Handler[] = [];
  const jobOptions: JobOptions = { maxAttempts: options.maxAttempts ?? FEDERATION_MAX_ATTEMPTS, backoff: options.backoff ?? federationBackoff };
  const jobName = host.handleJob(options.name ?? 'fedify', async (payload) => {
    const handler = listeners.at(-1);
    if (handler === undefined) throw new Error(queueTexts.noListener);
    await handler(payload);
  }, jobOptions);

  const orderingKeyOf = (key: string | undefined): string | null => {
    if (key === undefined || key === null) return null;
    const scoped = `${jobName}|${key}`;
    return scoped.length <= MAX_KEY_LENGTH ? scoped : `${jobName}|sha256:${createHash('sha256').update(key).digest('hex')}`;
  };
  const jobsFor = (messages: readonly unknown[], enqueue: MessageQueueEnqueueOptions = {}): NewJob[] => {
    const runAt = host.clock.now() + (enqueue.delay == null ? 0 : durationMs(enqueue.delay));
    const orderingKey = orderingKeyOf(enqueue.orderingKey);
    return messages.map((message) => ({ name: jobName, payload: plainJson(message), orderingKey, runAt }));
  };

  return {
    nativeRetrial: true,
    jobName,
    async enqueue(message: unknown, enqueue?: MessageQueueEnqueueOptions) {
      await host.enqueue(jobsFor([message], enqueue));
    },
    async enqueueMany(messages: readonly unknown[], enqueue?: MessageQueueEnqueueOptions) {
      if (messages.length === 0) return;
      await host.enqueue(jobsFor(messages, enqueue));
    },
    listen(handler: Handler, listen: MessageQueueListenOptions = {}): Promise<void> {
      const { signal } = listen;
      if (signal?.aborted) return Promise.resolve();
      listeners.push(handler);
      return new Promise<void>((resolve) => {
        signal?.addEventListener(
          'abort',
          () => {
            const at = listeners.lastIndexOf(handler);
            if (at !== -1) listeners.splice(at, 1);
            resolve();
          },
          { once: true },
        );
      });
    },
  };
}
