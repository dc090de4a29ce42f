// The plugin host: what the plugins registered (the hooks the domain and the Mastodon interface
// read), and the PluginHost each plugin is handed, bound to the core it registers with.

import { outsideAllowList } from '../../domain/moderation/email-blocks.ts';
import { can } from '../../domain/moderation/roles.ts';
import { clientIp } from '../ip-access.ts';
import { createLocalAccount } from '../../domain/accounts/create.ts';
import type { DomainEvent, DomainEventType } from '../../domain/events/events.ts';
import { federationOperations } from '../../domain/federation/index.ts';
import type { BoundJob, BoundProfileHook, BoundPublishHook, RemoteResolver } from '../../domain/hooks.ts';
import { notify } from '../../domain/notifications/notify.ts';
import { readText, validateText } from '../../domain/statuses/compose.ts';
import { publish } from '../../domain/statuses/publish.ts';
import { isId } from '../../domain/ids.ts';
import { filterVisible, findVisible } from '../../domain/viewer.ts';
import type { AppCore, AppHooks, BoundAccountDecorator, BoundStatusDecorator } from '../context.ts';
import type { Endpoint } from '../endpoint/types.ts';
import type { CounterStore } from '../../domain/ports/counters.ts';
import { CSRF_FIELD } from '../oauth/csrf.ts';
import { page, refusedPage } from '../oauth/pages.ts';
import { currentSession } from '../oauth/sessions.ts';
import { postedToken, singleUseToken, spendToken } from '../oauth/single-use.ts';
import { formPosted, formToken } from '../oauth/web-flow.ts';
import type { RateLimiter } from '../rate-limits.ts';
import { pluginParts, presentAccounts, presentNotifications, presentStatus, presentStatuses } from '../present/load.ts';
import type { ServiceKey } from './services.ts';
import type { AccountDecorator, EventListener, ListenerOptions, PluginSystem, PluginHost, StatusDecorator } from './types.ts';

/** A listener's `when` for one event; one that throws is taken as yes (the listener's job then
 * decides), never as a failure of the write recording the event. */
function concerns(when: (event: DomainEvent) => boolean, event: DomainEvent): boolean {
  try {
    return when(event);
  } catch {
    return true;
  }
}

/** The named methods of `repository`, bound, and nothing else: a plugin is handed these reads,
 * not the repository (whose writes would go around the core's rules). */
function only<R extends object, K extends keyof R>(repository: R, names: readonly K[]): Pick<R, K> {
  const picked = {} as Pick<R, K>;
  for (const name of names) {
    const method = repository[name];
    if (typeof method !== 'function') throw new Error(`the store has no ${String(name)}`);
    picked[name] = method.bind(repository) as R[K];
  }
  return picked;
}

/** What the host's web methods count with: the instance's counters and rate limits (null
 * when config.rateLimits is off). */
export interface HostLimits {
  counters: CounterStore;
  rateLimiter: RateLimiter | null;
}

/** What the plugins registered, each entry bound to the core it was registered with. */
export class HookRegistry implements AppHooks {
  readonly endpoints: Endpoint[] = [];
  readonly publishHooks: BoundPublishHook[] = [];
  readonly decorators: BoundStatusDecorator[] = [];
  readonly accountDecorators: BoundAccountDecorator[] = [];
  readonly profileHooks: BoundProfileHook[] = [];
  readonly instanceConfiguration: Record<string, unknown> = {};
  readonly jobs: BoundJob[] = [];
  resolver: RemoteResolver | null = null;
  readonly #domainChecks: ((domain: string) => Promise<boolean>)[] = [];
  readonly #services = new Map<string, { plugin: string; service: unknown }>();
  #ready: (() => void)[] | null = [];

  async domainBlocked(domain: string): Promise<boolean> {
    for (const check of this.#domainChecks) if (await check(domain.toLowerCase())) return true;
    return false;
  }

  /** Every plugin has registered: their onReady callbacks run, in the order they were given. */
  ready(): void {
    const callbacks = this.#ready ?? [];
    this.#ready = null;
    for (const callback of callbacks) callback();
  }

  /** What a plugin provides under `key`, for the embedding app and tests (null: nobody does). */
  service<T>(key: ServiceKey<T>): T | null {
    return (this.#services.get(key.name)?.service as T | undefined) ?? null;
  }

  hookFor(param: string): BoundPublishHook | undefined {
    return this.publishHooks.find((hook) => hook.params.includes(param));
  }

  profileHookFor(param: string): BoundProfileHook | undefined {
    return this.profileHooks.find((hook) => hook.params.includes(param));
  }

  hostFor(core: AppCore, plugin: string, limits: HostLimits): PluginHost {
    let listeners = 0;
    const { storage } = core;
    const system: PluginSystem = {
      accounts: only(storage.accounts, ['get', 'getMany', 'getUser', 'findByUsername', 'findByUri']),
      statuses: only(storage.statuses, ['get', 'getMany', 'findByUri', 'query']),
      relationships: only(storage.relationships, ['getFollow', 'followersOf', 'followingOf', 'remoteFollowersOf', 'relationships']),
      interactions: only(storage.interactions, ['pinsBy']),
      notifications: only(storage.notifications, ['get']),
      quotes: only(storage.quotes, ['ofStatuses', 'findByUri', 'policies']),
      tokens: only(storage.oauth, ['findTokenByHash']),
      notify: (key, draft) => notify(core, key, draft),
      federation: federationOperations(core),
    };
    return {
      name: plugin,
      config: core.config,
      clock: core.clock,
      newId: () => core.ids.next(),
      logger: core.logger,
      secrets: { sha256: (value) => core.secrets.sha256(value), equal: (a, b) => core.secrets.equal(a, b), randomToken: (bytes) => core.secrets.randomToken(bytes) },
      storage: (extension) => core.storage.extend(extension),
      enqueue: (jobs) => core.enqueue(jobs),
      record: (event) => core.record(event),
      addEndpoint: (endpoint) => void this.endpoints.push(endpoint),
      onPublish: (hook) => void this.publishHooks.push({ plugin, params: hook.params, edits: hook.edits ?? false, prepare: (draft) => hook.prepare(draft) }),
      decorateStatuses: <L>(decorator: StatusDecorator<L>) => {
        const bound: BoundStatusDecorator = {
          plugin,
          perViewer: decorator.perViewer ?? false,
          load: (statuses, viewerId) => decorator.load(statuses, viewerId),
          render: (status, loaded, json, context) => decorator.render(status, loaded as L, json, context),
        };
        const { searchable, renderEdits } = decorator;
        if (searchable) bound.searchable = (status, loaded) => searchable.call(decorator, status, loaded as L);
        if (renderEdits) bound.renderEdits = (edits, json) => renderEdits.call(decorator, edits, json);
        this.decorators.push(bound);
      },
      decorateAccounts: <L>(decorator: AccountDecorator<L>) =>
        void this.accountDecorators.push({
          plugin,
          covers: decorator.covers ? (account) => decorator.covers?.(account) === true : () => true,
          load: (accounts) => decorator.load(accounts),
          render: (account, loaded, json) => decorator.render(account, loaded as L, json),
        }),
      onProfileUpdate: (hook) =>
        void this.profileHooks.push({
          plugin,
          params: hook.params,
          ...(hook.maxBytes === undefined ? {} : { maxBytes: hook.maxBytes }),
          ...(hook.fileLimit === undefined ? {} : { fileLimit: (param: string, head: Uint8Array) => hook.fileLimit?.(param, head) ?? null }),
          prepare: (draft) => hook.prepare(draft),
        }),
      configureInstance: (key, value) => void (this.instanceConfiguration[key] = value),
      on: <T extends DomainEventType>(type: T, listener: EventListener<T>, options?: ListenerOptions<T>) => {
        listeners += 1;
        // The name is stable across processes: same plugins, same order, same names.
        const name = `${plugin}:${type}:${listeners}`;
        const { when, ...jobOptions } = options ?? {};
        const wants = when === undefined ? undefined : (event: DomainEvent) => concerns(when as (event: DomainEvent) => boolean, event);
        core.jobs.subscribe(name, [type], (recorded) => (listener as unknown as EventListener)(recorded.event), jobOptions, wants);
      },
      handleJob: (name, handler, options) => {
        const full = `${plugin}:${name}`;
        core.jobs.register(full, handler, options);
        return full;
      },
      addJob: (job) => void this.jobs.push({ name: job.name, intervalMs: job.intervalMs, run: () => job.run() }),
      provideResolver: (resolver) => {
        if (this.resolver !== null) throw new Error(`the plugin "${plugin}" provides a resolver, but another plugin already did`);
        this.resolver = resolver;
      },
      provideDomainBlocks: (blocked) => void this.#domainChecks.push(blocked),
      provide: <T>(key: ServiceKey<T>, service: T) => {
        const taken = this.#services.get(key.name);
        if (taken !== undefined) throw new Error(`the plugin "${plugin}" provides the service "${key.name}", but the plugin "${taken.plugin}" already does`);
        this.#services.set(key.name, { plugin, service });
      },
      service: (key) => this.service(key),
      onReady: (callback) => {
        if (this.#ready === null) throw new Error(`the plugin "${plugin}" asked for onReady after every plugin had registered`);
        this.#ready.push(callback);
      },
      statuses: {
        visible: (viewer, id) => findVisible(core, viewer, id),
        filterVisible: (viewer, statuses) => filterVisible(core, viewer, statuses),
        getVisible: async (viewer, ids) => {
          const found = new Map((await storage.statuses.getMany(ids.filter(isId))).map((status) => [status.id, status]));
          return filterVisible(core, viewer, [...new Set(ids)].flatMap((id) => found.get(id) ?? []));
        },
        publish: (author, params, idempotencyKey, options = {}) => publish(core, author, params, idempotencyKey, options.writes === undefined ? {} : { writes: options.writes }),
        readText: (params, defaultSensitive) => readText(params, defaultSensitive),
        validateText: (parts, hasMedia) => validateText(core, parts, hasMedia),
      },
      accounts: {
        get: (id) => core.storage.accounts.get(id),
        getMany: (ids) => core.storage.accounts.getMany(ids),
        findLocal: (username) => core.storage.accounts.findByUsername(username, null),
        signUp: (input, requireAgreement, request) =>
          createLocalAccount(core, request === undefined ? input : { ...input, signUpIp: clientIp(core.config, request.remoteAddress, request.headers['x-forwarded-for']) }, requireAgreement),
      },
      moderation: {
        can: (account, permission) => account !== null && can(account.role, permission),
        record: (by, action, targetType, targetId) => core.storage.serverBlocks.record({ id: core.ids.next(), accountId: by.id, action, targetType, targetId, createdAt: core.clock.now() }),
        outsideAllowList: (domain) => outsideAllowList(core, domain),
      },
      present: {
        status: (status, viewer, options) => presentStatus(core, status, viewer, options),
        statuses: (statuses, viewer, options) => presentStatuses(core, statuses, viewer, options),
        accounts: (ids) => presentAccounts(core, ids),
        notifications: (notifications, viewer) => presentNotifications(core, notifications, viewer),
        pluginParts: (status) => pluginParts(core, status),
      },
      web: {
        csrfField: CSRF_FIELD,
        page: (title, content, options) => page(core, title, content, options),
        refusedPage: () => refusedPage(core),
        session: (cookies) => currentSession(core, cookies),
        formToken: (request, session) => formToken(core, request, session),
        formPosted: (request, session, params) => formPosted(core, request, session, params),
        singleUseToken: (request, session) => singleUseToken(core, request.cookies, session?.session ?? null),
        singleUsePosted: (request, session, params) => postedToken(core, request.cookies, session?.session ?? null, params) !== null,
        spendSingleUse: async (request, session, params) => {
          const token = postedToken(core, request.cookies, session?.session ?? null, params);
          return token !== null && (await spendToken(core, limits.counters, token));
        },
        countSignUp: async (request, email) =>
          limits.rateLimiter === null ? null : limits.rateLimiter.countSignUp({ remoteAddress: request.remoteAddress, forwardedFor: request.headers['x-forwarded-for'] }, email),
      },
      system,
    };
  }
}
