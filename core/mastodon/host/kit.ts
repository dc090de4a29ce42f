// The plugin kit (`rookery/plugin-kit`): everything a plugin is written with, and nothing a
// plugin could break the core with. The built-in plugins import only this, the storage
// contexts of the engines they support (`rookery/sqlite`, `rookery/postgres`, `rookery/mongodb`,
// types only) and the contract helpers (`rookery/testing`): exactly what a plugin written
// outside this repository can import. docs/plugins.md walks through writing one.

// Registering, and the host's methods.
export type {
  AccountDecorator,
  AccountPatch,
  DecorateContext,
  EventListener,
  ListenerOptions,
  PluginAccounts,
  PluginPresent,
  PluginStatuses,
  PluginSystem,
  PluginWeb,
  Job,
  PluginHost,
  PluginModeration,
  ProfileDraft,
  ProfileHook,
  PublishDraft,
  PublishHook,
  PublishOutcome,
  RemoteResolver,
  RookeryPlugin,
  StatusDecorator,
} from './types.ts';
export type { JobHandler, JobOptions } from '../../domain/queue/registry.ts';
export type { DomainEvent, DomainEventType } from '../../domain/events/events.ts';
export type { VisibleStatus } from '../../domain/viewer.ts';
export type { Author, PublishResult } from '../../domain/statuses/publish.ts';
export type { TextParts } from '../../domain/statuses/compose.ts';
export type { NewLocalAccount } from '../../domain/accounts/create.ts';
export type { NotificationDraft } from '../../domain/notifications/notify.ts';
export type { FederationOperations, RemoteAccountInput, RemoteQuoteInput, RemoteStatusInput } from '../../domain/federation/index.ts';
export { REMOTE_ACCOUNT_LIMITS, REMOTE_STATUS_LIMITS } from '../../domain/federation/index.ts';
export { httpUrl, MAX_URI } from '../../domain/remote/lookup.ts';

// Services between plugins.
export {
  imagesService,
  pollsService,
  REMOTE_POLL_LIMITS,
  serviceKey,
  type ImagesService,
  type StoredImage,
  type LocalPollVoted,
  type PollsService,
  type PollVote,
  type RemotePollAttached,
  type RemotePollInput,
  type ServiceKey,
} from './services.ts';

// Endpoints: requests, responses, errors in Mastodon's shape, parameters, paging links.
export type { ApiRequest, ApiResponse, AuthRule, Caller, Endpoint, FileLimit, HttpMethod, UploadedFile } from '../endpoint/types.ts';
export { FILE_HEAD_BYTES, json } from '../endpoint/types.ts';
export { RookeryError, texts, notFound, unprocessable, badRequest, forbidden, validationFailed, type FieldError } from '../../domain/errors.ts';
export { bool, int, obj, page, present, str, strArray, type Params } from '../../domain/params.ts';
export { linkHeader, type LinkCursors } from '../api/links.ts';
export { offsetPagedJson, offsetWindow, type OffsetWindow } from '../api/offset-paging.ts';
export { mayTrend, STATUS_CANDIDATES, TREND_DAYS } from '../../domain/trends.ts';
export { DAY, historyOf, startOfDay, HISTORY_DAYS, type HistoryDay } from '../../domain/tags/history.ts';
export { rateLimitTexts } from '../rate-limits.ts';
export type { BrowserSession } from '../oauth/sessions.ts';
export type { PageOptions } from '../oauth/pages.ts';
export type { FormToken } from '../oauth/web-flow.ts';

// Mastodon's entities, and the renderers that need nothing but their input.
export type { StatusJson, StatusEditJson } from '../entities/status-json.ts';
export type { AccountJson } from '../entities/account-json.ts';
export type { CustomEmojiJson } from '../entities/emoji.ts';
export type { CardJson, MediaJson, PollJson } from '../entities/media.ts';
export type { NotificationJson } from '../present/load.ts';
export type { RenderOptions } from '../present/status.ts';
export { renderCard, renderMedia, renderPoll } from '../entities/media.ts';
export { renderScheduledStatus } from '../present/scheduled.ts';
export { iso, isoOrNull } from '../entities/time.ts';

// URLs of local things, text, ids.
export { accountUri, accountUrl, acct, statusUri, statusUrl, tagUrl } from '../../domain/urls.ts';
export { countGraphemes, escapeHtml, extractEntities, normalizeTag } from '../../domain/text/index.ts';
export { compareIds, isId } from '../../domain/ids.ts';

// Quote posts: the policy a status has (a stored one, or the default for its origin and visibility).
export { effectivePolicy as quotePolicyOf } from '../../domain/statuses/quote.ts';

// A plugin's own options, checked as the core checks its configuration.
export { checkOptions, ConfigError, option, type OptionRule, type OptionSpec } from '../../domain/options.ts';

// The model, the configuration and the ports a plugin's storage implements against.
export type * from '../../domain/model.ts';
export type { Permission } from '../../domain/moderation/roles.ts';
export type { Limits, RookeryConfig } from '../../domain/config.ts';
export { rookeryUserAgent } from '../../domain/config.ts';
export type { Clock } from '../../domain/ports/clock.ts';
export type { Logger } from '../../domain/ports/logger.ts';
export type { Job as QueuedJob, NewJob, Outbox } from '../../domain/ports/queue.ts';
export { StorageConflict, type Page, type StorageExtension, type StorageWrite } from '../../domain/ports/storage.ts';
