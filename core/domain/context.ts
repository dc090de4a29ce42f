// The core's context: its ports, its configuration and what plugins registered. Every
// operation takes it as its first argument. This file holds the type only (create-core.ts
// builds one), so that the modules that take a Core depend on nothing but this and the ports.

import type { RookeryConfig } from './config.ts';
import type { DomainEvent } from './events/events.ts';
import type { Hooks } from './hooks.ts';
import type { EventBus } from './ports/bus.ts';
import type { Clock } from './ports/clock.ts';
import type { IdGenerator } from './ports/ids.ts';
import type { Logger } from './ports/logger.ts';
import type { JobQueue, NewJob } from './ports/queue.ts';
import type { Secrets } from './ports/secrets.ts';
import type { Storage } from './ports/storage.ts';
import type { JobRegistry } from './queue/registry.ts';

export interface Core {
  readonly config: RookeryConfig;
  readonly storage: Storage;
  readonly bus: EventBus;
  /** Where jobs wait: the store's own durable queue unless another was given. */
  readonly queue: JobQueue;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** For the few ids clients read as JSON integers (applications). */
  readonly smallIds: IdGenerator;
  readonly secrets: Secrets;
  readonly logger: Logger;
  readonly hooks: Hooks;
  /** Job handlers by name, and the event handlers subscribed to each domain event. */
  readonly jobs: JobRegistry;
  /** The jobs that will handle `event`, to hand to the outbox of the storage write that causes
   * it: the event is then recorded atomically with the write and handled after it committed. */
  record(event: DomainEvent): NewJob[];
  /** Queues jobs that belong to no write (a follow-up a handler schedules, a delayed job). */
  enqueue(jobs: readonly NewJob[]): Promise<void>;
}
