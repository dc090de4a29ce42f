// What plugins registered, as the core reads it. Every entry is already bound to its core when
// it is registered (plugin-host.ts does that), so none of these types mentions Core and the
// Core type can refer to them without tying the modules into a cycle.

import type { Endpoint, Params } from './api/types.ts';
import type { Account, Id, Poll, Status, Visibility } from './model.ts';

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
  /** Set by a media hook: attachments in order. */
  mediaIds: Id[];
  /** Set by a poll hook: the poll to insert with the status. */
  poll: Poll | null;
  /** true for an edit of an existing status. */
  editing: boolean;
}

export type PublishOutcome = void | { divert: unknown };

export interface BoundPublishHook {
  readonly params: readonly string[];
  prepare(draft: PublishDraft): Promise<PublishOutcome>;
}

export interface BoundJob {
  readonly name: string;
  readonly intervalMs: number;
  run(): Promise<void>;
}

export interface Hooks {
  readonly endpoints: readonly Endpoint[];
  readonly publishHooks: readonly BoundPublishHook[];
  readonly jobs: readonly BoundJob[];
  /** The hook that takes over a publish parameter, if any plugin does. */
  hookFor(param: string): BoundPublishHook | undefined;
}
