// What plugins registered that the domain reads: publish and profile hooks, the resolver of
// remote accounts and statuses, domain blocks, periodic jobs. Every entry is already bound when
// it is registered (the plugin host does that), so none of these types mentions Core and the
// Core type can refer to them without tying the modules into a cycle. What only the Mastodon
// interface reads (endpoints, decorators) is declared in mastodon/context.ts.

import type { Account, Id, Status, User, Visibility } from './model.ts';
import type { FileLimit, Params } from './params.ts';
import type { NewJob } from './ports/queue.ts';
import type { StorageWrite } from './ports/storage.ts';

/** A status about to be published (or edited), after the core parsed its own parameters. */
export interface PublishDraft {
  account: Account;
  /** Every request parameter, as received. */
  params: Params;
  text: string;
  spoilerText: string;
  sensitive: boolean;
  visibility: Visibility;
  language: string | null;
  inReplyTo: Status | null;
  applicationId: Id | null;
  idempotencyKey: string | null;
  /** The id the status will have (an edit: its own). */
  statusId: Id;
  /** Attachments in order. A media hook sets them; an edit starts from the status's own. */
  mediaIds: Id[];
  /** The status's poll. A poll hook sets it; an edit starts from the status's own. */
  pollId: Id | null;
  /** The options of that poll, recorded in the edit history. On an edit the hook that owns the
   * poll fills both: the options before the edit (recorded with the original the first time a
   * status is edited) and those it will have. */
  pollOptions: string[] | null;
  previousPollOptions: string[] | null;
  /** Work the plugins' repositories prepared, committed atomically with the status write
   * (attach the media, insert the poll …). */
  writes: StorageWrite[];
  /** true for an edit of an existing status. */
  editing: boolean;
  /** The status being edited (null when publishing). */
  current: Status | null;
}

export type PublishOutcome = void | { divert: unknown };

export interface BoundPublishHook {
  readonly plugin: string;
  readonly params: readonly string[];
  /** Runs on every edit, parameters present or not (to keep, replace or drop its part). */
  readonly edits: boolean;
  prepare(draft: PublishDraft): Promise<PublishOutcome>;
}

export type AccountPatch = Partial<Pick<Account, 'displayName' | 'note' | 'locked' | 'bot' | 'discoverable' | 'fields' | 'avatarUrl' | 'headerUrl'>>;

/** A profile edit (update_credentials) after the core read its own parameters. */
export interface ProfileDraft {
  account: Account;
  user: User;
  params: Params;
  patch: AccountPatch;
  /** Jobs recorded with the profile write, in the same atomic step (remove the files of the
   * images it replaces, say): they run only once the edit committed. */
  jobs: NewJob[];
  /** The images this edit removes (DELETE /api/v1/profile/avatar|header): the core already set
   * them to null in `patch`; the hook that took the param over cleans up after them. */
  cleared?: readonly ('avatar' | 'header')[];
}

export interface BoundProfileHook {
  readonly plugin: string;
  /** The update_credentials parameters it takes over, e.g. ['avatar', 'header']. */
  readonly params: readonly string[];
  /** Request bytes its parameters may take (files), added to the endpoint's body limit. */
  readonly maxBytes?: number;
  /** The limit of the file sent as `param`, one of its params (see Endpoint.payload.fileLimit). */
  fileLimit?(param: string, head: Uint8Array): FileLimit | null;
  prepare(draft: ProfileDraft): Promise<void>;
}

export interface BoundJob {
  readonly name: string;
  readonly intervalMs: number;
  run(): Promise<void>;
}

/** What finds accounts and statuses on other servers (the federation plugin provides it): each
 * answer is already stored (through core/federation) when it comes back; null when there is
 * nothing to find. The core bounds how long it waits for either. */
export interface RemoteResolver {
  /** `user@domain`, without a leading @. */
  account(acct: string): Promise<Account | null>;
  /** An http(s) URL of a remote account or status. */
  url(url: string): Promise<{ account: Account } | { status: Status } | null>;
}

export interface Hooks {
  /** The plugin that reaches other servers, if one is installed. */
  readonly resolver: RemoteResolver | null;
  /** Whether the instance refuses everything from this (lower case) domain. */
  domainBlocked(domain: string): Promise<boolean>;
  readonly publishHooks: readonly BoundPublishHook[];
  readonly profileHooks: readonly BoundProfileHook[];
  readonly jobs: readonly BoundJob[];
  /** The hook that takes over a publish parameter, if any plugin does. */
  hookFor(param: string): BoundPublishHook | undefined;
  /** The hook that takes over a profile parameter, if any plugin does. */
  profileHookFor(param: string): BoundProfileHook | undefined;
}
