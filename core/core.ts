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
import type { Secrets } from './ports/secrets.ts';
import type { Storage } from './ports/storage.ts';

export interface Core {
  readonly config: RookeryConfig;
  readonly storage: Storage;
  readonly bus: EventBus;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** For the few ids clients read as JSON integers (applications). */
  readonly smallIds: IdGenerator;
  readonly secrets: Secrets;
  readonly logger: Logger;
  readonly hooks: Hooks;
  /** Call only after the write that caused the event committed. Side effects (notifications,
   * stream messages, plugin listeners) run before it resolves; their failures are logged, never
   * thrown, because the write they follow already succeeded. */
  emit(event: DomainEvent): Promise<void>;
}
