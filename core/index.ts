// Rookery's public core API: compose a Rookery from ports, extend it with plugins, and the
// domain types and ports an adapter or plugin implements. The plugin kit (presenters and
// visibility lookups) and the HTTP front's types are here too.

export { createRookery, type Rookery, type RookeryOptions } from './rookery.ts';
export type { Core } from './core.ts';
export { createCore, type CoreDeps } from './create-core.ts';
export { ConfigError, resolveConfig, defaultLimits, MASTODON_COMPATIBLE_VERSION, ROOKERY_VERSION, type ConfigInput, type Limits, type RookeryConfig } from './config.ts';
export type { HostAccountInput, HostAccounts, HostTokens } from './host-api.ts';
export type { SignInPort } from './oauth/sign-in-port.ts';
export type { BodyLimit, HttpFront, RawHead, RawRequest, RawResponse, RouteInfo } from './http/types.ts';
export { RookeryError, texts } from './errors.ts';
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
} from './plugin-host.ts';
export type { JobHandler, JobOptions } from './queue/registry.ts';
export type { StatusEditJson } from './present/status-json.ts';
export type { ApiRequest, ApiResponse, AuthRule, Caller, Endpoint, HttpMethod, TokenLookup, UploadedFile } from './api/types.ts';
export { json } from './api/types.ts';
export { presentAccounts, presentStatus, presentStatuses } from './present/load.ts';
export type { StatusJson, RenderOptions } from './present/status.ts';
export type { AccountJson } from './present/account.ts';
export type { CustomEmojiJson } from './present/emoji.ts';
export { factsOf, filterVisible, findVisible, viewerFacts, type VisibleStatus } from './viewer.ts';
export { anonymousFacts, canView, type ViewerFacts } from './policy.ts';
export type { DomainEvent, DomainEventType } from './events/events.ts';
export { channels } from './events/channels.ts';
export { compareIds, isId, snowflakeIds } from './ids.ts';
export * from './ports/index.ts';
export type * from './model.ts';
