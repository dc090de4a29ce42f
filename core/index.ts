// Rookery's public core API: compose a Rookery from ports, extend it with plugins, and the
// domain types and ports an adapter or plugin implements. The plugin kit (presenters and
// visibility lookups) and the HTTP front's types are here too.

export { createRookery, type Rookery, type RookeryOptions } from './mastodon/rookery.ts';
export type { Core } from './domain/context.ts';
export { createCore, type CoreDeps } from './mastodon/create-core.ts';
export { ConfigError, resolveConfig, defaultLimits, MASTODON_COMPATIBLE_VERSION, ROOKERY_VERSION, type ConfigInput, type Limits, type RookeryConfig } from './domain/config.ts';
export type { HostAccountInput, HostAccounts, HostTokens } from './mastodon/host-api.ts';
export type { SignInPort } from './mastodon/oauth/sign-in-port.ts';
export type { BodyLimit, HttpFront, RawHead, RawRequest, RawResponse, RouteInfo } from './mastodon/http/types.ts';
export { RookeryError, texts } from './domain/errors.ts';
export {
  HookRegistry,
  type AccountDecorator,
  type AccountPatch,
  type DecorateContext,
  type EventListener,
  type Job,
  type PluginHost,
  type ProfileDraft,
  type ProfileHook,
  type PublishDraft,
  type PublishHook,
  type PublishOutcome,
  type RookeryPlugin,
  type StatusDecorator,
} from './mastodon/plugin-host.ts';
export type { JobHandler, JobOptions } from './domain/queue/registry.ts';
export type { StatusEditJson } from './mastodon/entities/status-json.ts';
export type { ApiRequest, ApiResponse, AuthRule, Caller, Endpoint, HttpMethod, TokenLookup, UploadedFile } from './mastodon/endpoint/types.ts';
export { json } from './mastodon/endpoint/types.ts';
export { presentAccounts, presentStatus, presentStatuses } from './mastodon/present/load.ts';
export type { StatusJson, RenderOptions } from './mastodon/present/status.ts';
export type { AccountJson } from './mastodon/present/account.ts';
export type { CustomEmojiJson } from './mastodon/entities/emoji.ts';
export { factsOf, filterVisible, findVisible, viewerFacts, type VisibleStatus } from './domain/viewer.ts';
export { anonymousFacts, canView, type ViewerFacts } from './domain/policy.ts';
export type { DomainEvent, DomainEventType } from './domain/events/events.ts';
export { channels } from './domain/routing/channels.ts';
export { compareIds, isId, snowflakeIds } from './domain/ids.ts';
export * from './domain/ports/index.ts';
export type * from './domain/model.ts';
