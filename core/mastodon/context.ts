// The application's context: the domain's Core, whose hooks also carry what only the Mastodon
// interface reads — the plugins' endpoints, their status and account decorators (which fill
// media, polls, cards and emojis into the JSON) and what they state in the instance's
// configuration. The domain never sees these: it is given a Core, which an AppCore is.

import type { Core } from '../domain/context.ts';
import type { Hooks } from '../domain/hooks.ts';
import type { Account, Id, Millis, Status, StatusEdit } from '../domain/model.ts';
import type { Endpoint } from './endpoint/types.ts';
import type { AccountJson } from './entities/account-json.ts';
import type { StatusEditJson, StatusJson } from './entities/status-json.ts';

/** What renders a status's plugin-owned parts (media, poll, card). */
export interface DecorateContext {
  now: Millis;
  /** A signed-in reader (per-viewer keys such as poll.voted are present), or anonymous. */
  signedIn: boolean;
  /** A renderer whose output depends on the time (a poll's `expired`) says from when it will
   * read differently, so that an answer kept ready (http/kept.ts) is not served from then on.
   * Anything else it renders must come from the store (its load) and the status. */
  changesAt?(at: Millis): void;
}

export interface BoundStatusDecorator {
  readonly plugin: string;
  /** Whether `load` reads something of the viewer's own (their votes): then a status rendered
   * for one reader after another is loaded again for each. */
  readonly perViewer: boolean;
  /** One batched read for everything being rendered (originals of boosts included). */
  load(statuses: readonly Status[], viewerId: Id | null): Promise<unknown>;
  /** Fills its part of the JSON (which starts with [] and null). */
  render(status: Status, loaded: unknown, json: StatusJson, context: DecorateContext): void;
  /** Texts keyword filters look at (alt texts, poll options). */
  searchable?(status: Status, loaded: unknown): string[];
  /** Fills its part of the edit history entries (in the order of `edits`). */
  renderEdits?(edits: readonly StatusEdit[], json: StatusEditJson[]): Promise<void>;
}

/** What renders an account's plugin-owned parts (the emojis of a remote account). */
export interface BoundAccountDecorator {
  readonly plugin: string;
  /** Whether it has anything for this account (a remote one, say): when it has for none of a
   * call's accounts, its load is not called. Decided from the account's row alone: the render
   * cache keeps an author's member while the row is the same (present/cache/status-text.ts). */
  covers(account: Account): boolean;
  /** One batched read for every account one presentation call renders. */
  load(accounts: readonly Account[]): Promise<unknown>;
  /** Fills its part of the JSON (emojis starts as []). */
  render(account: Account, loaded: unknown, json: AccountJson): void;
}

export interface AppHooks extends Hooks {
  readonly endpoints: readonly Endpoint[];
  readonly decorators: readonly BoundStatusDecorator[];
  readonly accountDecorators: readonly BoundAccountDecorator[];
  /** Keys of the instance's `configuration` that plugins state (what they enforce). */
  readonly instanceConfiguration: Readonly<Record<string, unknown>>;
}

export interface AppCore extends Core {
  readonly hooks: AppHooks;
}
