// Composition: a core with its ports, the plugins it hosts, and every endpoint it serves.
// Transports (adapters/hapi, adapters/node) hand requests to its HTTP front and move bytes.

import { accessRefused } from './ip-access.ts';
import { authorize } from './api/guard.ts';
import { accountEndpoints } from './api/accounts.ts';
import { instanceEndpoints } from './api/instance.ts';
import { oauthEndpoints } from './api/oauth.ts';
import { registrationEndpoints } from './api/registration.ts';
import { statusEndpoints } from './api/statuses.ts';
import { supportingEndpoints } from './api/supporting.ts';
import type { Caller, Endpoint, TokenLookup } from './endpoint/types.ts';
import type { AppCore } from './context.ts';
import { createCore, PORT_OPTIONS, type CoreDeps } from './create-core.ts';
import { checkOptions, option, type OptionRule, type OptionSpec } from '../domain/options.ts';
import { hostAccounts, hostTokens, type HostAccounts, type HostTokens } from './host-api.ts';
import { createHttpFront } from './http/front.ts';
import type { HttpFront } from './http/types.ts';
import { pruneExpiredSessions, PRUNE_SESSIONS_JOB } from './oauth/sessions.ts';
import type { SignInPort } from './oauth/sign-in-port.ts';
import { viewerChangesAt } from '../domain/viewer.ts';
import { keptTokenLookups, lookupToken } from './oauth/tokens.ts';
import type { ServiceKey } from './host/services.ts';
import type { RookeryPlugin } from './host/types.ts';
import { NOTIFYING_EVENTS, notificationHandler } from '../domain/notifications/handlers.ts';
import { quoteDeletionHandler } from '../domain/statuses/quote.ts';
import { STREAMED_EVENTS, streamHandler } from './streaming/fanout.ts';
import { concernsConversations, CONVERSATION_EVENTS, conversationHandler } from '../domain/conversations/conversations.ts';
import { profileHandler } from '../domain/accounts/profile.ts';
import { createRelay } from '../domain/queue/relay.ts';
import { createWorker, WORKER_TUNING, type WorkerOptions } from '../domain/queue/worker.ts';
import { createMemoryCounters } from '../domain/counters.ts';
import type { CounterStore } from '../domain/ports/counters.ts';
import { createRateLimiter } from './rate-limits.ts';
import { createStreamHub, type StreamHub } from './streaming/hub.ts';
import { emailEndpoints } from './api/emails.ts';
import type { Mailer } from '../domain/ports/mailer.ts';
import { loggingMailer, registerMailJob } from '../domain/mail/queue.ts';
import { registerPurgeJob } from '../domain/accounts/delete.ts';
import { registerMoveJob } from '../domain/accounts/move.ts';
import { movedDecorator } from './present/moved.ts';

export interface RookeryOptions extends CoreDeps {
  plugins?: readonly RookeryPlugin[];
  /** Run queued jobs in this process (default true); false for a process that only serves
   * requests or streams while workers elsewhere run the jobs. Options tune the worker. */
  worker?: boolean | Pick<WorkerOptions, 'batch' | 'leaseMs' | 'pollMs' | 'jobTimeoutMs'>;
  /** The host app's own sign-in behind /oauth/authorize (default: Rookery's sign-in pages). */
  signIn?: SignInPort;
  /** Where rate-limit counters live (default: this process; adapters/redis shares them). */
  counters?: CounterStore;
  /** Sends the confirmation and password-reset mails (default: they are logged, not sent;
   * rookery/smtp sends them over SMTP). */
  mailer?: Mailer;
}

export interface Rookery {
  readonly core: AppCore;
  /** Plugin endpoints first: a plugin may take over a path the core answers with a placeholder. */
  readonly endpoints: readonly Endpoint[];
  /** Live streams: what SSE and WebSocket transports call (core/streaming/hub.ts). */
  readonly streaming: StreamHub;
  /** The transport-neutral HTTP front every transport hands its requests to. */
  readonly http: HttpFront;
  /** For a host app with its own sign-up: local accounts and their tokens, from code. */
  readonly accounts: HostAccounts;
  readonly tokens: HostTokens;
  /** What a plugin provides under `key` (core/mastodon/host/services.ts); null when none does. */
  service<T>(key: ServiceKey<T>): T | null;
  lookupToken(raw: string | null | undefined): Promise<TokenLookup>;
  authorize(endpoint: Endpoint, lookup: TokenLookup): Caller;
  /** Starts the plugins' periodic jobs; returns a function that stops them. */
  startJobs(): () => void;
  /** Runs every job that is due now (and those they queue) before it resolves, the store's
   * outbox relayed first when jobs wait elsewhere: what a test awaits instead of sleeping.
   * Needs a worker in this process (the default). */
  drain(): Promise<void>;
  /** Stops the worker and jobs, then closes the bus, the queue (unless it is the store's) and
   * the store. */
  close(): Promise<void>;
}

function uniqueRoutes(endpoints: readonly Endpoint[]): Endpoint[] {
  const seen = new Set<string>();
  return endpoints.filter((endpoint) => {
    const key = `${endpoint.method} ${endpoint.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const ROOKERY_OPTIONS: OptionSpec = {
  ...PORT_OPTIONS,
  config: option.required({ what: 'a configuration made by resolveConfig', test: (v) => typeof v === 'object' && v !== null && Object.isFrozen(v) && typeof (v as { domain?: unknown }).domain === 'string' }),
  storage: option.required(PORT_OPTIONS['storage'] as OptionRule),
  bus: option.required(PORT_OPTIONS['bus'] as OptionRule),
  clock: option.required(PORT_OPTIONS['clock'] as OptionRule),
  secrets: option.required(option.implementing('Secrets (sha256, equal, randomToken, sign, random16)', ['sha256', 'equal', 'randomToken', 'sign', 'random16'])),
  plugins: option.arrayOf(option.implementing('a plugin (name, register)', ['register']), 'an array of plugins'),
  worker: option.either(option.boolean(), option.object('createRookery', WORKER_TUNING)),
  signIn: option.implementing('a SignInPort (currentAccountId, signInUrl)', ['currentAccountId', 'signInUrl']),
  counters: option.implementing('a CounterStore (add)', ['add']),
  mailer: option.implementing('a Mailer (send)', ['send']),
};

export async function createRookery(options: RookeryOptions): Promise<Rookery> {
  checkOptions('createRookery', options, ROOKERY_OPTIONS);
  const { core, registry, onJobs } = createCore(options);
  // The streams' job first: an event's jobs start in the order they were subscribed, and a live
  // stream's readers wait for every job that starts before it.
  core.jobs.subscribe('streams', STREAMED_EVENTS, streamHandler(core));
  core.jobs.subscribe('notifications', NOTIFYING_EVENTS, notificationHandler(core));
  core.jobs.subscribe('conversations', CONVERSATION_EVENTS, conversationHandler(core), {}, concernsConversations);
  core.jobs.subscribe('profiles', ['account.updated'], profileHandler(core));
  core.jobs.subscribe('quotes', ['status.deleted'], quoteDeletionHandler(core));
  registerMailJob(core, options.mailer ?? loggingMailer(core.logger));
  registerPurgeJob(core);
  registerMoveJob(core);
  registry.accountDecorators.push(movedDecorator(core));
  // Made before the plugins register: their host counts with them (the web sign-up's limits).
  const counters = options.counters ?? createMemoryCounters();
  const rateLimiter = core.config.rateLimits ? createRateLimiter(core.config, counters, () => core.clock.now()) : null;
  for (const plugin of options.plugins ?? []) await plugin.register(registry.hostFor(core, plugin.name, { counters, rateLimiter }));
  registry.ready();
  // The core's own periodic job, run by startJobs() like the plugins' ones.
  registry.jobs.push({ ...PRUNE_SESSIONS_JOB, run: async () => void (await pruneExpiredSessions(core)) });
  const workerOptions = options.worker ?? true;
  // Writes record their jobs in the store; when jobs wait elsewhere (Redis), the worker relays them.
  const relay = core.queue === core.storage.jobs ? null : createRelay({ from: core.storage.jobs, to: core.queue, clock: core.clock });
  const worker =
    workerOptions === false
      ? null
      : createWorker({ queue: core.queue, registry: core.jobs, clock: core.clock, logger: core.logger, relay, freshen: () => core.storage.freshen?.(), ...(workerOptions === true ? {} : workerOptions) });
  if (worker !== null) {
    onJobs(() => worker.wake());
    worker.start();
  }
  const endpoints = uniqueRoutes([
    ...core.hooks.endpoints,
    ...oauthEndpoints(core, options.signIn, counters),
    ...registrationEndpoints(core),
    ...emailEndpoints(core),
    ...accountEndpoints(core),
    ...instanceEndpoints(core),
    ...statusEndpoints(core),
    ...supportingEndpoints(core),
  ]);
  const stoppers = new Set<() => void>();
  const streaming = createStreamHub(core);
  const lookup = (raw: string | null | undefined) => lookupToken(core, raw);
  const guard = (endpoint: Endpoint, found: TokenLookup) => authorize(endpoint, found, core.config);
  return {
    core,
    endpoints,
    streaming,
    http: createHttpFront({
      endpoints, lookupToken: keptTokenLookups(core), authorize: guard, logger: core.logger, rateLimiter,
      freshen: () => core.storage.freshen?.(),
      accessRefused: (remoteAddress, forwardedFor) => accessRefused(core, remoteAddress, forwardedFor),
      ...(core.storage.stamp === undefined ? {} : { stamp: () => core.storage.stamp?.() ?? null }),
      ...(core.storage.stampSeen === undefined ? {} : { stampSeen: () => core.storage.stampSeen?.() ?? null }),
      readerChangesAt: (accountId) => viewerChangesAt(core, accountId),
      now: () => core.clock.now(),
    }),
    accounts: hostAccounts(core),
    tokens: hostTokens(core),
    service: (key) => registry.service(key),
    lookupToken: lookup,
    authorize: guard,
    startJobs() {
      const timers = core.hooks.jobs.map((job) =>
        setInterval(() => {
          job.run().catch((err: unknown) => core.logger.error({ err, job: job.name }, 'job failed'));
        }, job.intervalMs),
      );
      const stop = () => {
        for (const timer of timers) clearInterval(timer);
        stoppers.delete(stop);
      };
      stoppers.add(stop);
      return stop;
    },
    async drain() {
      if (worker === null) throw new Error('drain() needs a worker in this process (worker: false was given)');
      await worker.drain();
      await streaming.settled();
    },
    async close() {
      for (const stop of [...stoppers]) stop();
      await worker?.stop();
      await streaming.close();
      await core.bus.close();
      if (core.queue !== core.storage.jobs) await core.queue.close?.();
      await counters.close?.();
      await core.storage.close();
    },
  };
}
