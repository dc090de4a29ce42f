// The plugin host. Optional features (media, polls, scheduled statuses, preview cards, rate
// limits, federation …) register here instead of reaching into the core or each other:
// - their storage: `storage(extension)` gives the plugin its own repository on the instance's
//   store (ports/storage.ts, StorageExtension), with its own tables and migrations;
// - endpoints, served by whichever HTTP transport mounts the core;
// - publish hooks, which take over publish parameters the core does not handle itself
//   (media_ids, poll[…], scheduled_at), prepare the draft (and the storage writes that commit
//   with the status), or divert it (schedule it);
// - status decorators, which fill a status's plugin-owned parts (media_attachments, poll,
//   card) from the plugin's storage in one batched read per render; account decorators, the
//   same for an account's (emojis);
// - profile hooks, which take over update_credentials parameters (avatar, header);
// - what the instance endpoint states about what the plugin enforces (its configuration);
// - listeners of domain events: each becomes a job per event, run after the write that caused
//   the event committed, at least once, with retries (so a listener must be idempotent);
// - queue jobs by name, and periodic jobs.

import type { Endpoint } from './endpoint/types.ts';
import type { AppCore } from './context.ts';
import type { DomainEvent, DomainEventType } from '../domain/events/events.ts';
import type {
  BoundJob,
  BoundProfileHook,
  BoundPublishHook,
  Hooks,
  ProfileDraft,
  PublishDraft,
  PublishOutcome,
  RemoteResolver,
} from '../domain/hooks.ts';
import type { BoundAccountDecorator, BoundStatusDecorator, DecorateContext } from './context.ts';
import type { Account, Id, Status, StatusEdit } from '../domain/model.ts';
import type { StorageExtension } from '../domain/ports/storage.ts';
import type { AccountJson } from './entities/account-json.ts';
import type { StatusEditJson, StatusJson } from './entities/status-json.ts';
import type { JobHandler, JobOptions } from '../domain/queue/registry.ts';

export type { AccountPatch, ProfileDraft, PublishDraft, PublishOutcome, RemoteResolver } from '../domain/hooks.ts';
export type { DecorateContext } from './context.ts';

export interface PublishHook {
  /** The publish parameters this hook takes over, e.g. ['media_ids'] or ['poll']. */
  params: readonly string[];
  /** Run on every edit, whether its parameters are present or not, so that the plugin keeps,
   * replaces or drops its part (default: only when one of its parameters is present). */
  edits?: boolean;
  /** Validates and fills the draft; returning { divert } answers the request with that body
   * instead of publishing (a scheduled status, say). */
  prepare(draft: PublishDraft, core: AppCore): Promise<PublishOutcome>;
}

export interface StatusDecorator<L> {
  perViewer?: boolean;
  load(statuses: readonly Status[], viewerId: Id | null, core: AppCore): Promise<L>;
  render(status: Status, loaded: L, json: StatusJson, context: DecorateContext): void;
  searchable?(status: Status, loaded: L): string[];
  renderEdits?(edits: readonly StatusEdit[], json: StatusEditJson[], core: AppCore): Promise<void>;
}

/** Fills an account's plugin-owned parts wherever accounts are presented (their own reads,
 * statuses' authors, notifications, streams). */
export interface AccountDecorator<L> {
  /** Whether it may have something for this account (default: every one). A presentation call
   * none of whose accounts it covers neither loads nor renders it: most calls, for a plugin
   * that decorates remote accounts only, cost nothing more. */
  covers?(account: Account): boolean;
  /** One batched read for every account one presentation call renders (those it does not
   * cover included). */
  load(accounts: readonly Account[], core: AppCore): Promise<L>;
  render(account: Account, loaded: L, json: AccountJson): void;
}

export interface ProfileHook {
  /** The update_credentials parameters it takes over (avatar, header). */
  params: readonly string[];
  /** Request bytes its parameters may take (its files), added to the endpoint's body limit. */
  maxBytes?: number;
  /** Validates its parameters and fills draft.patch (a 422 RookeryError refuses the edit). */
  prepare(draft: ProfileDraft, core: AppCore): Promise<void>;
}

export type EventListener<T extends DomainEventType = DomainEventType> = (
  event: Extract<DomainEvent, { type: T }>,
  core: AppCore,
) => Promise<void>;

export interface Job {
  name: string;
  intervalMs: number;
  run(core: AppCore): Promise<void>;
}

export interface PluginHost {
  readonly core: AppCore;
  /** The plugin's repository on the instance's store (the same instance on every call). */
  storage<T>(extension: StorageExtension<T>): T;
  addEndpoint(endpoint: Endpoint): void;
  onPublish(hook: PublishHook): void;
  decorateStatuses<L>(decorator: StatusDecorator<L>): void;
  decorateAccounts<L>(decorator: AccountDecorator<L>): void;
  onProfileUpdate(hook: ProfileHook): void;
  /** States a key of the instance's `configuration` (e.g. media_attachments): what it enforces. */
  configureInstance(key: string, value: unknown): void;
  /** Runs `listener` for every event of this type, as a job of its own (retried on failure). */
  on<T extends DomainEventType>(type: T, listener: EventListener<T>, options?: JobOptions): void;
  /** A queue job handler, under a name of the plugin's (`<plugin>:<name>`); returns that name
   * for core.enqueue and for outboxes. */
  handleJob(name: string, handler: JobHandler, options?: JobOptions): string;
  /** A periodic job, run on an interval in the processes that run jobs. */
  addJob(job: Job): void;
  /** Finds accounts and statuses on other servers (search with resolve, @user@domain mentions);
   * one plugin provides it, a second one is an error. */
  provideResolver(resolver: RemoteResolver): void;
  /** The instance's domain blocks: remote statuses from a domain for which `blocked` answers
   * true are not stored. */
  provideDomainBlocks(blocked: (domain: string) => Promise<boolean>): void;
}

export interface RookeryPlugin {
  name: string;
  register(host: PluginHost): void | Promise<void>;
}

/** What the plugins registered, each entry bound to the core it was registered with. */
export class HookRegistry implements Hooks {
  readonly endpoints: Endpoint[] = [];
  readonly publishHooks: BoundPublishHook[] = [];
  readonly decorators: BoundStatusDecorator[] = [];
  readonly accountDecorators: BoundAccountDecorator[] = [];
  readonly profileHooks: BoundProfileHook[] = [];
  readonly instanceConfiguration: Record<string, unknown> = {};
  readonly jobs: BoundJob[] = [];
  resolver: RemoteResolver | null = null;
  readonly #domainChecks: ((domain: string) => Promise<boolean>)[] = [];

  async domainBlocked(domain: string): Promise<boolean> {
    for (const check of this.#domainChecks) if (await check(domain.toLowerCase())) return true;
    return false;
  }

  hookFor(param: string): BoundPublishHook | undefined {
    return this.publishHooks.find((hook) => hook.params.includes(param));
  }

  profileHookFor(param: string): BoundProfileHook | undefined {
    return this.profileHooks.find((hook) => hook.params.includes(param));
  }

  hostFor(core: AppCore, plugin: string): PluginHost {
    let listeners = 0;
    return {
      core,
      storage: (extension) => core.storage.extend(extension),
      addEndpoint: (endpoint) => void this.endpoints.push(endpoint),
      onPublish: (hook) =>
        void this.publishHooks.push({ plugin, params: hook.params, edits: hook.edits ?? false, prepare: (draft) => hook.prepare(draft, core) }),
      decorateStatuses: <L>(decorator: StatusDecorator<L>) => {
        const bound: BoundStatusDecorator = {
          plugin,
          perViewer: decorator.perViewer ?? false,
          load: (statuses, viewerId) => decorator.load(statuses, viewerId, core),
          render: (status, loaded, json, context) => decorator.render(status, loaded as L, json, context),
        };
        const { searchable, renderEdits } = decorator;
        if (searchable) bound.searchable = (status, loaded) => searchable.call(decorator, status, loaded as L);
        if (renderEdits) bound.renderEdits = (edits, json) => renderEdits.call(decorator, edits, json, core);
        this.decorators.push(bound);
      },
      decorateAccounts: <L>(decorator: AccountDecorator<L>) =>
        void this.accountDecorators.push({
          plugin,
          covers: decorator.covers ? (account) => decorator.covers?.(account) === true : () => true,
          load: (accounts) => decorator.load(accounts, core),
          render: (account, loaded, json) => decorator.render(account, loaded as L, json),
        }),
      onProfileUpdate: (hook) =>
        void this.profileHooks.push({
          plugin,
          params: hook.params,
          ...(hook.maxBytes === undefined ? {} : { maxBytes: hook.maxBytes }),
          prepare: (draft) => hook.prepare(draft, core),
        }),
      configureInstance: (key, value) => void (this.instanceConfiguration[key] = value),
      on: (type, listener, options) => {
        listeners += 1;
        // The name is stable across processes: same plugins, same order, same names.
        const name = `${plugin}:${type}:${listeners}`;
        core.jobs.subscribe(name, [type], (recorded) => (listener as unknown as EventListener)(recorded.event, core), options);
      },
      handleJob: (name, handler, options) => {
        const full = `${plugin}:${name}`;
        core.jobs.register(full, handler, options);
        return full;
      },
      addJob: (job) => void this.jobs.push({ name: job.name, intervalMs: job.intervalMs, run: () => job.run(core) }),
      provideResolver: (resolver) => {
        if (this.resolver !== null) throw new Error(`the plugin "${plugin}" provides a resolver, but another plugin already did`);
        this.resolver = resolver;
      },
      provideDomainBlocks: (blocked) => void this.#domainChecks.push(blocked),
    };
  }
}
