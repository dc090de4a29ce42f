// What a plugin sees of the instance: the PluginHost handed to its register(). A plugin never
// holds the core. It registers what it adds (endpoints, hooks, decorators, listeners, jobs, its
// own storage), reads and acts through the host's methods — which apply the visibility rules of
// the reader it names — and talks to other plugins through services the host passes on.
// Work that no reader's visibility applies to (federation delivery, a notification's push, a
// job's bookkeeping) goes through `host.system`, so that it says so where it is done.
//
// Every callback registered here runs with what it needs in its arguments, or reaches the
// instance through the host its plugin captured in register(): none is given the core.

import type { RookeryConfig } from '../../domain/config.ts';
import type { DomainEvent, DomainEventType } from '../../domain/events/events.ts';
import type { AccountPatch, ProfileDraft, PublishDraft, PublishOutcome, RemoteResolver } from '../../domain/hooks.ts';
import type { Account, AdminTargetType, Id, Notification, Status, StatusEdit, User } from '../../domain/model.ts';
import type { Permission } from '../../domain/moderation/roles.ts';
import type { NotificationDraft } from '../../domain/notifications/notify.ts';
import type { FileLimit, Params } from '../../domain/params.ts';
import type { Clock } from '../../domain/ports/clock.ts';
import type { Logger } from '../../domain/ports/logger.ts';
import type { NewJob } from '../../domain/ports/queue.ts';
import type { Secrets } from '../../domain/ports/secrets.ts';
import type { AccountRepository, InteractionRepository, NotificationRepository, OAuthRepository, QuoteRepository, RelationshipRepository, StatusRepository, StorageExtension, StorageWrite } from '../../domain/ports/storage.ts';
import type { JobHandler, JobOptions } from '../../domain/queue/registry.ts';
import type { NewLocalAccount } from '../../domain/accounts/create.ts';
import type { TextParts } from '../../domain/statuses/compose.ts';
import type { Author, PublishResult } from '../../domain/statuses/publish.ts';
import type { VisibleStatus } from '../../domain/viewer.ts';
import type { FederationOperations } from '../../domain/federation/index.ts';
import type { DecorateContext } from '../context.ts';
import type { ApiRequest, ApiResponse, Endpoint } from '../endpoint/types.ts';
import type { AccountJson } from '../entities/account-json.ts';
import type { StatusEditJson, StatusJson } from '../entities/status-json.ts';
import type { BrowserSession } from '../oauth/sessions.ts';
import type { PageOptions } from '../oauth/pages.ts';
import type { FormToken } from '../oauth/web-flow.ts';
import type { NotificationJson } from '../present/load.ts';
import type { RenderOptions } from '../present/status.ts';
import type { ServiceKey } from './services.ts';

export type { AccountPatch, DecorateContext, ProfileDraft, PublishDraft, PublishOutcome, RemoteResolver };

export interface PublishHook {
  /** The publish parameters this hook takes over, e.g. ['media_ids'] or ['poll']. */
  params: readonly string[];
  /** Run on every edit, whether its parameters are present or not, so that the plugin keeps,
   * replaces or drops its part (default: only when one of its parameters is present). */
  edits?: boolean;
  /** Validates and fills the draft; returning { divert } answers the request with that body
   * instead of publishing (a scheduled status, say). */
  prepare(draft: PublishDraft): Promise<PublishOutcome>;
}

export interface StatusDecorator<L> {
  /** Whether `load` reads something of the reader's own (their votes, say). */
  perViewer?: boolean;
  /** One batched read for every status one presentation call renders. */
  load(statuses: readonly Status[], viewerId: Id | null): Promise<L>;
  /** Fills the plugin's own members (media_attachments, emojis, card, poll), which start as []
   * and null. It may be given an object holding only those: the core's members are rendered
   * and kept apart (core/mastodon/present/cache), so it must not read them. */
  render(status: Status, loaded: L, json: StatusJson, context: DecorateContext): void;
  /** Texts keyword filters look at (alt texts, poll options). */
  searchable?(status: Status, loaded: L): string[];
  renderEdits?(edits: readonly StatusEdit[], json: StatusEditJson[]): Promise<void>;
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
  load(accounts: readonly Account[]): Promise<L>;
  render(account: Account, loaded: L, json: AccountJson): void;
}

export interface ProfileHook {
  /** The update_credentials parameters it takes over (avatar, header). */
  params: readonly string[];
  /** Request bytes its parameters may take (its files), added to the endpoint's body limit. */
  maxBytes?: number;
  /** The limit of the file sent as `param` (one of `params`), told from its first
   * FILE_HEAD_BYTES bytes: a transport that streams the body stops reading the file past
   * `maxBytes`, and the edit is refused with `refusal`. */
  fileLimit?(param: string, head: Uint8Array): FileLimit | null;
  /** Validates its parameters and fills draft.patch (a 422 RookeryError refuses the edit). */
  prepare(draft: ProfileDraft): Promise<void>;
}

export type EventListener<T extends DomainEventType = DomainEventType> = (event: Extract<DomainEvent, { type: T }>) => Promise<void>;

/** How a listener runs (JobOptions), and `when`: whether an event concerns it at all, decided
 * from the event alone as it is recorded, in the transaction of the write that records it (so
 * quick, and reading nothing). An event it answers false for queues no job for the listener:
 * a listener that acts on few events of its type then costs the others nothing. A `when` that
 * throws counts as true. */
export interface ListenerOptions<T extends DomainEventType = DomainEventType> extends JobOptions {
  when?: (event: Extract<DomainEvent, { type: T }>) => boolean;
}

export interface Job {
  name: string;
  intervalMs: number;
  run(): Promise<void>;
}

/** Reads that apply the visibility rules of the reader they are given (null: anonymous). */
export interface PluginStatuses {
  /** The live status `id` as `viewer` may see it (a boost only with its original); anything
   * else, a malformed id included, is RookeryError 404 `Record not found`. */
  visible(viewer: Account | null, id: string): Promise<VisibleStatus>;
  /** Those of `statuses` that `viewer` may see, in their order. */
  filterVisible(viewer: Account | null, statuses: readonly Status[]): Promise<Status[]>;
  /** The live statuses of `ids` that `viewer` may see, in the order of `ids` (the others, and
   * malformed ids, are left out). */
  getVisible(viewer: Account | null, ids: readonly Id[]): Promise<Status[]>;
  /** Publishes as `author`, exactly as POST /api/v1/statuses does with these parameters (its
   * validations, hooks and texts); `writes` commit with the status. */
  publish(author: Author, params: Params, idempotencyKey: string | null, options?: { writes?: readonly StorageWrite[] }): Promise<PublishResult>;
  /** The text parameters (status, spoiler_text, sensitive) as publish reads them. */
  readText(params: Params, defaultSensitive: boolean): TextParts;
  /** Publish's own checks of those parts (length, blank text); throws its 422. */
  validateText(parts: TextParts, hasMedia: boolean): void;
}

export interface PluginAccounts {
  /** Accounts are public: any reader may see any account's profile. */
  get(id: Id): Promise<Account | null>;
  getMany(ids: readonly Id[]): Promise<Account[]>;
  /** A local account by its username (case-insensitive). */
  findLocal(username: string): Promise<Account | null>;
  /** Signs a person up, with the checks and texts of POST /api/v1/accounts; given the request,
   * the admins' IP blocks apply to where it comes from (403 when they refuse it). */
  signUp(input: NewLocalAccount, requireAgreement?: boolean, request?: Pick<ApiRequest, 'remoteAddress' | 'headers'>): Promise<{ account: Account; user: User }>;
}

/** Mastodon's JSON for a reader. */
export interface PluginPresent {
  status(status: Status, viewer: Account | null, options?: RenderOptions): Promise<StatusJson>;
  statuses(statuses: readonly Status[], viewer: Account | null, options?: RenderOptions): Promise<StatusJson[]>;
  accounts(ids: readonly Id[]): Promise<AccountJson[]>;
  notifications(notifications: readonly Notification[], viewer: Account): Promise<NotificationJson[]>;
  /** A status's plugin-owned parts as an anonymous reader sees them (media, poll, card, emojis). */
  pluginParts(status: Status): Promise<Pick<StatusJson, 'media_attachments' | 'poll' | 'card' | 'emojis'>>;
}

/** The instance's HTML pages and their browser sessions, for plugins that serve pages of their
 * own (a front page, a sign-up form) in the look and under the CSRF rules of the sign-in pages. */
export interface PluginWeb {
  /** The name of the form field that carries the CSRF token. */
  readonly csrfField: string;
  page(title: string, content: string, options?: PageOptions): ApiResponse;
  /** The page a form post gets when its CSRF token or origin is refused. */
  refusedPage(): ApiResponse;
  session(cookies: Record<string, string>): Promise<BrowserSession | null>;
  formToken(request: ApiRequest, session: BrowserSession | null): FormToken;
  formPosted(request: ApiRequest, session: BrowserSession | null, params: Params): boolean;
  /** A CSRF token for a form that must act only once (a sign-up): a fresh one on every call,
   * bound to this browser as formToken's are. Showing it stores nothing. */
  singleUseToken(request: ApiRequest, session: BrowserSession | null): FormToken;
  /** Whether a post carries a single-use token this browser was given, recently (stores nothing). */
  singleUsePosted(request: ApiRequest, session: BrowserSession | null, params: Params): boolean;
  /** Spends the post's single-use token, right before the form acts: true the first time; false
   * when it has served already (in any process sharing the instance's counters) or is not one. */
  spendSingleUse(request: ApiRequest, session: BrowserSession | null, params: Params): Promise<boolean>;
  /** Counts a sign-up from this request's client under the limits of POST /api/v1/accounts,
   * on that endpoint's own counters (one budget per address, and per e-mail address, for both
   * ways in): null when it may go on, else the seconds until it may be tried again. */
  countSignUp(request: ApiRequest, email: string): Promise<number | null>;
}

/** Work done for the instance rather than for a reader: no visibility rule applies, so each
 * use names it (host.system.…). */
export interface PluginSystem {
  readonly accounts: Pick<AccountRepository, 'get' | 'getMany' | 'getUser' | 'findByUsername' | 'findByUri'>;
  readonly statuses: Pick<StatusRepository, 'get' | 'getMany' | 'findByUri' | 'query'>;
  readonly relationships: Pick<RelationshipRepository, 'getFollow' | 'followersOf' | 'followingOf' | 'remoteFollowersOf' | 'relationships'>;
  readonly interactions: Pick<InteractionRepository, 'pinsBy'>;
  readonly notifications: Pick<NotificationRepository, 'get'>;
  readonly quotes: Pick<QuoteRepository, 'ofStatuses' | 'findByUri' | 'policies'>;
  readonly tokens: Pick<OAuthRepository, 'findTokenByHash'>;
  /** Creates a notification once per key (a retried job creates it once), as the core's own do. */
  notify(key: string, draft: NotificationDraft): Promise<Notification | null>;
  /** The domain's side of federation: storing what other servers state, under the rules of the
   * matching local operations. */
  readonly federation: FederationOperations;
}

export interface PluginHost {
  /** The plugin's name, as it registered. */
  readonly name: string;
  readonly config: RookeryConfig;
  readonly clock: Clock;
  /** A new id (sortable, 64-bit, as a decimal string). */
  newId(): Id;
  readonly logger: Logger;
  /** Digests and constant-time comparison of secrets (tokens are kept only as digests). */
  readonly secrets: Pick<Secrets, 'sha256' | 'equal' | 'randomToken'>;

  /** The plugin's repository on the instance's store (the same instance on every call). */
  storage<T>(extension: StorageExtension<T>): T;
  /** Queues jobs that belong to no write (a follow-up a handler schedules, a delayed job). */
  enqueue(jobs: readonly NewJob[]): Promise<void>;
  /** The jobs that will handle `event`, for the outbox of the plugin's own storage write that
   * causes it: the event is then recorded atomically with that write. */
  record(event: DomainEvent): NewJob[];

  addEndpoint(endpoint: Endpoint): void;
  onPublish(hook: PublishHook): void;
  decorateStatuses<L>(decorator: StatusDecorator<L>): void;
  decorateAccounts<L>(decorator: AccountDecorator<L>): void;
  onProfileUpdate(hook: ProfileHook): void;
  /** States a key of the instance's `configuration` (e.g. media_attachments): what it enforces. */
  configureInstance(key: string, value: unknown): void;
  /** Runs `listener` for every event of this type, as a job of its own (retried on failure). */
  on<T extends DomainEventType>(type: T, listener: EventListener<T>, options?: ListenerOptions<T>): void;
  /** A queue job handler, under a name of the plugin's (`<plugin>:<name>`); returns that name
   * for enqueue and for outboxes. */
  handleJob(name: string, handler: JobHandler, options?: JobOptions): string;
  /** A periodic job, run on an interval in the processes that run jobs. */
  addJob(job: Job): void;
  /** Finds accounts and statuses on other servers (search with resolve, @user@domain mentions);
   * one plugin provides it, a second one is an error. */
  provideResolver(resolver: RemoteResolver): void;
  /** The instance's domain blocks: remote statuses from a domain for which `blocked` answers
   * true are not stored. */
  provideDomainBlocks(blocked: (domain: string) => Promise<boolean>): void;

  /** Offers a service to the other plugins; one provider per service. */
  provide<T>(key: ServiceKey<T>, service: T): void;
  /** The service another plugin provides, or null when no installed plugin does. Ask when it is
   * needed, or in onReady: the provider may register after this plugin. */
  service<T>(key: ServiceKey<T>): T | null;
  /** Runs `callback` once every plugin has registered, before the instance serves a request or
   * runs a job: where a plugin subscribes to another's service. */
  onReady(callback: () => void): void;

  readonly statuses: PluginStatuses;
  readonly accounts: PluginAccounts;
  readonly moderation: PluginModeration;
  readonly present: PluginPresent;
  readonly web: PluginWeb;
  readonly system: PluginSystem;
}

/** What a plugin serving part of the admin API needs: the role check and the audit log. */
export interface PluginModeration {
  /** Whether the account's staff role has the permission (false for no account). */
  can(account: Account | null, permission: Permission): boolean;
  /** Records what a staff member did, in the audit log. */
  record(by: Account, action: string, targetType: AdminTargetType, targetId: Id): Promise<void>;
  /** In limited federation mode, whether no domain allow covers `domain` (it or a parent; a port
   * is ignored): federation with it is refused. Always false when the mode is off. */
  outsideAllowList(domain: string): Promise<boolean>;
}

export interface RookeryPlugin {
  name: string;
  register(host: PluginHost): void | Promise<void>;
}
