// The plugin host. Optional features (media, polls, scheduled statuses, preview cards, rate
// limits, federation …) register here instead of reaching into the core or each other:
// - endpoints, served by whichever HTTP adapter mounts the core;
// - publish hooks, which take over publish parameters the core does not handle itself
//   (media_ids, poll[…], scheduled_at), prepare the draft, or divert it (schedule it);
// - listeners of domain events, run after the write that caused them committed;
// - periodic jobs (publishing due scheduled statuses, closing polls), claimed through storage
//   so that one process runs each.

import type { Endpoint, Params } from './api/types.ts';
import type { Core } from './core.ts';
import type { DomainEvent, DomainEventType } from './events/events.ts';
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

export interface PublishHook {
  /** The publish parameters this hook takes over, e.g. ['media_ids'] or ['poll']. */
  params: readonly string[];
  /** Validates and fills the draft; returning { divert } answers the request with that body
   * instead of publishing (a scheduled status, say). */
  prepare(draft: PublishDraft, core: Core): Promise<PublishOutcome>;
}

export type EventListener<T extends DomainEventType = DomainEventType> = (
  event: Extract<DomainEvent, { type: T }>,
  core: Core,
) => Promise<void>;

export interface Job {
  name: string;
  intervalMs: number;
  run(core: Core): Promise<void>;
}

export interface PluginHost {
  readonly core: Core;
  addEndpoint(endpoint: Endpoint): void;
  onPublish(hook: PublishHook): void;
  on<T extends DomainEventType>(type: T, listener: EventListener<T>): void;
  addJob(job: Job): void;
}

export interface RookeryPlugin {
  name: string;
  register(host: PluginHost): void | Promise<void>;
}

/** What the plugins registered, as the core reads it. */
export class HookRegistry {
  readonly endpoints: Endpoint[] = [];
  readonly publishHooks: PublishHook[] = [];
  readonly jobs: Job[] = [];
  readonly #listeners = new Map<DomainEventType, EventListener[]>();

  listenersOf(type: DomainEventType): readonly EventListener[] {
    return this.#listeners.get(type) ?? [];
  }

  addListener(type: DomainEventType, listener: EventListener): void {
    const list = this.#listeners.get(type) ?? [];
    list.push(listener);
    this.#listeners.set(type, list);
  }

  /** The hook that takes over a publish parameter, if any plugin does. */
  hookFor(param: string): PublishHook | undefined {
    return this.publishHooks.find((hook) => hook.params.includes(param));
  }

  hostFor(core: Core): PluginHost {
    return {
      core,
      addEndpoint: (endpoint) => void this.endpoints.push(endpoint),
      onPublish: (hook) => void this.publishHooks.push(hook),
      on: (type, listener) => this.addListener(type, listener as unknown as EventListener),
      addJob: (job) => void this.jobs.push(job),
    };
  }
}
