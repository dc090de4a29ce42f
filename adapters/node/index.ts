// Node defaults for the core's ports: the system clock, node:crypto secrets, an in-process
// bus. createNodeRookery wires them with a store and a configuration; createNodeHandler serves
// the result on node:http (or Express, Connect …), and limitNodeServer sets a server's limits.

import { resolveConfig, type ConfigInput } from '../../core/config.ts';
import type { EventBus } from '../../core/ports/bus.ts';
import type { CounterStore } from '../../core/ports/counters.ts';
import type { Logger } from '../../core/ports/logger.ts';
import type { Storage } from '../../core/ports/storage.ts';
import type { SignInPort } from '../../core/oauth/sign-in-port.ts';
import type { RookeryPlugin } from '../../core/plugin-host.ts';
import { createRookery, type Rookery, type RookeryOptions } from '../../core/rookery.ts';
import { createInProcessBus } from '../memory/bus.ts';
import { systemClock } from './clock.ts';
import { createNodeSecrets, type NodeSecretsOptions } from './secrets.ts';

export { systemClock } from './clock.ts';
export { createNodeHandler, DEFAULT_MAX_BUFFERED_BYTES, DEFAULT_WRITE_TIMEOUT_MS, type NodeHandler, type NodeHandlerOptions } from './handler.ts';
export { limitNodeServer, type NodeServerLimits } from './server.ts';
export { createNodeSecrets, type NodeSecretsOptions } from './secrets.ts';

export interface NodeRookeryOptions {
  config: ConfigInput;
  storage: Storage;
  bus?: EventBus;
  logger?: Logger;
  plugins?: readonly RookeryPlugin[];
  secrets?: NodeSecretsOptions;
  /** Whether this process runs queued jobs (default true); see RookeryOptions.worker. */
  worker?: RookeryOptions['worker'];
  /** The host app's own sign-in behind /oauth/authorize (default: Rookery's sign-in pages). */
  signIn?: SignInPort;
  /** Where rate-limit counters live (default: this process); see adapters/redis/rate-limits.ts. */
  counters?: CounterStore;
}

export function createNodeRookery(options: NodeRookeryOptions): Promise<Rookery> {
  const deps: Parameters<typeof createRookery>[0] = {
    config: resolveConfig(options.config),
    storage: options.storage,
    bus: options.bus ?? createInProcessBus(),
    clock: systemClock,
    secrets: createNodeSecrets(options.secrets),
  };
  if (options.logger) deps.logger = options.logger;
  if (options.plugins) deps.plugins = options.plugins;
  if (options.worker !== undefined) deps.worker = options.worker;
  if (options.signIn) deps.signIn = options.signIn;
  if (options.counters) deps.counters = options.counters;
  return createRookery(deps);
}
