// Node defaults for the core's ports: the system clock, node:crypto secrets, an in-process
// bus, the store's own job queue. createNodeRookery wires them with a store and a
// configuration (a Redis bus and queue from rookery/redis for several processes);
// createNodeHandler serves the result on node:http (or Express, Connect …),
// limitNodeServer sets a server's limits, and createFetcher is how plugins reach other servers
// (one address policy and limits for every outgoing request: fetch.ts).

import { resolveConfig, type ConfigInput } from '../../core/domain/config.ts';
import type { EventBus } from '../../core/domain/ports/bus.ts';
import type { Clock } from '../../core/domain/ports/clock.ts';
import type { CounterStore } from '../../core/domain/ports/counters.ts';
import type { Logger } from '../../core/domain/ports/logger.ts';
import type { JobQueue } from '../../core/domain/ports/queue.ts';
import type { Storage } from '../../core/domain/ports/storage.ts';
import type { SignInPort } from '../../core/mastodon/oauth/sign-in-port.ts';
import type { RookeryPlugin } from '../../core/mastodon/host/types.ts';
import { createRookery, type Rookery, type RookeryOptions } from '../../core/mastodon/rookery.ts';
import { PORT_OPTIONS } from '../../core/mastodon/create-core.ts';
import { WORKER_TUNING } from '../../core/domain/queue/worker.ts';
import { createInProcessBus } from '../../core/domain/bus.ts';
import { systemClock } from './clock.ts';
import { createNodeSecrets, SECRETS_OPTIONS, type NodeSecretsOptions } from './secrets.ts';
import { checkOptions, option, type OptionRule, type OptionSpec } from '../../core/domain/options.ts';

import type { Mailer } from '../../core/domain/ports/mailer.ts';
export { systemClock } from './clock.ts';
export { createNodeHandler, DEFAULT_MAX_BUFFERED_BYTES, DEFAULT_WRITE_TIMEOUT_MS, type NodeHandler, type NodeHandlerOptions } from './handler.ts';
export { limitNodeServer, type NodeServerLimits } from './server.ts';
export { createNodeSecrets, type NodeSecretsOptions } from './secrets.ts';
export { createFetcher, FetchRefused, FETCHER_OPTIONS, type Fetcher, type FetcherOptions, type FetchRequest, type FetchedResponse, type Hop } from './fetch.ts';
export { isPublicAddress } from '../../core/domain/ip.ts';
export { rookeryUserAgent } from '../../core/domain/config.ts';

export interface NodeRookeryOptions {
  config: ConfigInput;
  storage: Storage;
  /** Default: in-process. With several processes, one all of them share (createRedisBus). */
  bus?: EventBus;
  /** Default: the store's own queue. With several processes, one all of them share
   * (createRedisQueue): writes still record their jobs in the store, and workers relay them. */
  queue?: JobQueue;
  logger?: Logger;
  /** Default: the system clock. */
  clock?: Clock;
  plugins?: readonly RookeryPlugin[];
  secrets?: NodeSecretsOptions;
  /** This process's number (0–63) among the processes writing to one store, so that their ids
   * never collide: see reserveIdNode in rookery/redis. */
  idNode?: number;
  /** Whether this process runs queued jobs (default true); see RookeryOptions.worker. */
  worker?: RookeryOptions['worker'];
  /** The host app's own sign-in behind /oauth/authorize (default: Rookery's sign-in pages). */
  signIn?: SignInPort;
  /** Where rate-limit counters live (default: this process); see adapters/redis/rate-limits.ts. */
  counters?: CounterStore;
  /** Sends the instance's mail (default: logged, not sent); see rookery/smtp. */
  mailer?: Mailer;
}

const NODE_ROOKERY_OPTIONS: OptionSpec = {
  ...PORT_OPTIONS,
  // resolveConfig checks what the configuration holds.
  config: option.required({ what: 'an object', test: (v) => typeof v === 'object' && v !== null && !Array.isArray(v) }),
  storage: option.required(PORT_OPTIONS['storage'] as OptionRule),
  plugins: option.arrayOf(option.implementing('a plugin (name, register)', ['register']), 'an array of plugins'),
  secrets: option.object('createNodeRookery', SECRETS_OPTIONS),
  worker: option.either(option.boolean(), option.object('createNodeRookery', WORKER_TUNING)),
  signIn: option.implementing('a SignInPort (currentAccountId, signInUrl)', ['currentAccountId', 'signInUrl']),
  counters: option.implementing('a CounterStore (add)', ['add']),
  mailer: option.implementing('a Mailer (send)', ['send']),
};

export async function createNodeRookery(options: NodeRookeryOptions): Promise<Rookery> {
  checkOptions('createNodeRookery', options, NODE_ROOKERY_OPTIONS);
  const deps: Parameters<typeof createRookery>[0] = {
    config: resolveConfig(options.config),
    storage: options.storage,
    bus: options.bus ?? createInProcessBus(),
    clock: options.clock ?? systemClock,
    secrets: createNodeSecrets(options.secrets),
  };
  if (options.queue) deps.queue = options.queue;
  if (options.logger) deps.logger = options.logger;
  if (options.plugins) deps.plugins = options.plugins;
  if (options.worker !== undefined) deps.worker = options.worker;
  if (options.idNode !== undefined) deps.idNode = options.idNode;
  if (options.signIn) deps.signIn = options.signIn;
  if (options.counters) deps.counters = options.counters;
  if (options.mailer) deps.mailer = options.mailer;
  return createRookery(deps);
}
