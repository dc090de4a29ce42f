// Rookery's public API (`rookery`): compose a Rookery from ports and plugins and mount it; the
// ports an adapter implements; and, re-exported, the plugin kit (`rookery/plugin-kit`) that
// plugins are written with.

export { createRookery, type Rookery, type RookeryOptions } from './mastodon/rookery.ts';
export type { AppCore } from './mastodon/context.ts';
export type { Core } from './domain/context.ts';
export type { CoreDeps } from './mastodon/create-core.ts';
export { resolveConfig, defaultLimits, MASTODON_COMPATIBLE_VERSION, ROOKERY_VERSION, rookeryUserAgent, type ConfigInput } from './domain/config.ts';
export type { HostAccountInput, HostAccounts, HostTokens } from './mastodon/host-api.ts';
export type { SignInPort } from './mastodon/oauth/sign-in-port.ts';
export type { BodyLimit, FormRules, HttpFront, RawHead, RawRequest, RawResponse, RouteInfo, StreamedForm } from './mastodon/http/types.ts';
export type { TokenLookup } from './mastodon/endpoint/types.ts';
export { snowflakeIds } from './domain/ids.ts';
export * from './domain/ports/index.ts';
export * from './mastodon/host/kit.ts';
