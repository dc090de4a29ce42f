// The plugin host. Optional features (media, polls, scheduled statuses, preview cards, rate
// limits, federation …) register here instead of reaching into the core or each other:
// - endpoints, served by whichever HTTP adapter mounts the core;
// - publish hooks, which take over publish parameters the core does not handle itself
//   (media_ids, poll[…], scheduled_at), prepare the draft, or divert it (schedule it);
// - listeners of domain events, run after the write that caused them committed;
// - periodic jobs (publishing due scheduled statuses, closing polls), claimed through storage
//   so that one process runs each.

import type { Endpoint } from './api/types.ts';
import type { Core } from './core.ts';
import type { DomainEvent, DomainEventType } from './events/events.ts';
import type { BoundJob, BoundListener, BoundPublishHook, Hooks, PublishDraft, PublishOutcome } from './hooks.ts';

export type { PublishDraft, PublishOutcome } from './hooks.ts';

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

/** What the plugins registered, each entry bound to the core it was registered with. */
export class HookRegistry implements Hooks {
  readonly endpoints: Endpoint[] = [];
  readonly publishHooks: BoundPublishHook[] = [];
  readonly jobs: BoundJob[] = [];
  readonly #listeners = new Map<DomainEventType, BoundListener[]>();

  listenersOf(type: DomainEventType): readonly BoundListener[] {
    return this.#listeners.get(type) ?? [];
  }

  hookFor(param: string): BoundPublishHook | undefined {
    return this.publishHooks.find((hook) => hook.params.includes(param));
  }

  hostFor(core: Core): PluginHost {
    return {
      core,
      addEndpoint: (endpoint) => void this.endpoints.push(endpoint),
      onPublish: (hook) => void this.publishHooks.push({ params: hook.params, prepare: (draft) => hook.prepare(draft, core) }),
      on: (type, listener) => {
        const list = this.#listeners.get(type) ?? [];
        list.push((event) => (listener as unknown as EventListener)(event, core));
        this.#listeners.set(type, list);
      },
      addJob: (job) => void this.jobs.push({ name: job.name, intervalMs: job.intervalMs, run: () => job.run(core) }),
    };
  }
}
