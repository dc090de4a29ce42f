// Builds a Core from its ports and configuration.

import type { RookeryConfig } from './config.ts';
import type { Core } from './core.ts';
import { dispatch } from './events/dispatch.ts';
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

export function createCore(deps: CoreDeps): { core: Core; registry: HookRegistry } {
  const registry = new HookRegistry();
  const core: Core = {
    config: deps.config,
    storage: deps.storage,
    bus: deps.bus,
    clock: deps.clock,
    ids: deps.ids ?? snowflakeIds(deps.clock, () => deps.secrets.random16()),
    smallIds: smallIds(deps.clock, () => deps.secrets.random16()),
    secrets: deps.secrets,
    logger: deps.logger ?? silentLogger,
    hooks: registry,
    async emit(event) {
      try {
        await dispatch(core, event);
      } catch (err) {
        core.logger.error({ err, event: event.type }, 'event side effects failed');
      }
      for (const listener of registry.listenersOf(event.type)) {
        try {
          await listener(event);
        } catch (err) {
          core.logger.error({ err, event: event.type }, 'plugin listener failed');
        }
      }
    },
  };
  return { core, registry };
}
