// The core's context: its ports, its configuration and what plugins registered. Every
// operation takes it as its first argument.

import type { RookeryConfig } from './config.ts';
import { dispatch } from './events/dispatch.ts';
import type { DomainEvent } from './events/events.ts';
import { smallIds, snowflakeIds, type IdGenerator } from './ids.ts';
import { HookRegistry } from './plugin-host.ts';
import type { EventBus } from './ports/bus.ts';
import type { Clock } from './ports/clock.ts';
import { silentLogger, type Logger } from './ports/logger.ts';
import type { Secrets } from './ports/secrets.ts';
import type { Storage } from './ports/storage.ts';

export interface CoreDeps {
  config: RookeryConfig;
  storage: Storage;
  bus: EventBus;
  clock: Clock;
  secrets: Secrets;
  logger?: Logger;
  ids?: IdGenerator;
}

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
  readonly hooks: HookRegistry;
  /** Call only after the write that caused the event committed. Side effects (notifications,
   * stream messages, plugin listeners) run before it resolves; their failures are logged, never
   * thrown, because the write they follow already succeeded. */
  emit(event: DomainEvent): Promise<void>;
}

export function createCore(deps: CoreDeps): Core {
  const hooks = new HookRegistry();
  const core: Core = {
    config: deps.config,
    storage: deps.storage,
    bus: deps.bus,
    clock: deps.clock,
    ids: deps.ids ?? snowflakeIds(deps.clock, () => deps.secrets.random16()),
    smallIds: smallIds(deps.clock, () => deps.secrets.random16()),
    secrets: deps.secrets,
    logger: deps.logger ?? silentLogger,
    hooks,
    async emit(event) {
      try {
        await dispatch(core, event);
      } catch (err) {
        core.logger.error({ err, event: event.type }, 'event side effects failed');
      }
      for (const listener of hooks.listenersOf(event.type)) {
        try {
          await listener(event as never, core);
        } catch (err) {
          core.logger.error({ err, event: event.type }, 'plugin listener failed');
        }
      }
    },
  };
  return core;
}
