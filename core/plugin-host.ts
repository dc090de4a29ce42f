// The plugin host. Optional features (media, polls, scheduled statuses, preview cards, rate
// limits, federation …) register here instead of reaching into the core or each other:
// - endpoints, served by whichever HTTP transport mounts the core;
// - publish hooks, which take over publish parameters the core does not handle itself
//   (media_ids, poll[…], scheduled_at), prepare the draft, or divert it (schedule it);
// - listeners of domain events: each becomes a job per event, run after the write that caused
//   the event committed, at least once, with retries (so a listener must be idempotent);
// - queue jobs by name, and periodic jobs (publishing due scheduled statuses, closing polls).

import type { Endpoint } from './api/types.ts';
import type { Core } from './core.ts';
import type { DomainEvent, DomainEventType } from './events/events.ts';
import type { BoundJob, BoundPublishHook, Hooks, PublishDraft, PublishOutcome } from './hooks.ts';
import type { JobHandler, JobOptions } from './queue/registry.ts';

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
  /** Runs `listener` for every event of this type, as a job of its own (retried on failure). */
  on<T extends DomainEventType>(type: T, listener: EventListener<T>, options?: JobOptions): void;
  /** A queue job handler, under a name of the plugin's (`<plugin>:<name>`); returns that name
   * for core.enqueue. */
  handleJob(name: string, handler: JobHandler, options?: JobOptions): string;
  /** A periodic job, run on an interval in the processes that run jobs. */
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

  hookFor(param: string): BoundPublishHook | undefined {
    return this.publishHooks.find((hook) => hook.params.includes(param));
  }

  hostFor(core: Core, plugin: string): PluginHost {
    let listeners = 0;
    return {
      core,
      addEndpoint: (endpoint) => void this.endpoints.push(endpoint),
      onPublish: (hook) => void this.publishHooks.push({ params: hook.params, prepare: (draft) => hook.prepare(draft, core) }),
      on: (type, listener, options) => {
        listeners += 1;
        // The name is stable across processes: same plugins, same order, same names.
        const name = `${plugin}:${type}:${listeners}`;
        core.jobs.subscribe(name, [type], (recorded) => (listener as unknown as EventListener)(recorded.event, core), options);
      },
      handleJob: (name, handler, options) => {
        const full = `${plugin}:${name}`;
        core.jobs.register(full, handler, options);
        return full;
      },
      addJob: (job) => void this.jobs.push({ name: job.name, intervalMs: job.intervalMs, run: () => job.run(core) }),
    };
  }
}
