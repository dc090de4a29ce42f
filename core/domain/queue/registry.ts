// Job handlers by name, and which event handlers subscribe to which domain events. Every
// process of one instance registers the same handlers (they come from the same code and
// plugins), so a job recorded by one process can be run by any other.

import type { DomainEvent, DomainEventType, RecordedEvent } from '../events/events.ts';
import { orderingKeyOf } from '../events/events.ts';
import type { Job, NewJob } from '../ports/queue.ts';
import { checkOptions, option, type OptionSpec } from '../options.ts';

/** `payload` is read-only: the jobs of one event may share it (and a queue may freeze it). */
export type JobHandler = (payload: unknown, job: Job) => Promise<void>;

export interface JobOptions {
  /** Runs before the job goes to the dead letters (default 8). */
  maxAttempts?: number;
  /** Delay before retry n (1-based), in ms; default: exponential from 1 s, capped at an hour. */
  backoff?: (attempt: number) => number;
  /** How long a run may take before it counts as failed (default: the worker's jobTimeoutMs). */
  timeoutMs?: number;
}

export interface RegisteredJob {
  handler: JobHandler;
  maxAttempts: number;
  backoff: (attempt: number) => number;
  timeoutMs: number | null;
}

export type EventHandler = (recorded: RecordedEvent) => Promise<void>;

const EVENT_JOB = 'event:';

export function defaultBackoff(attempt: number): number {
  return Math.min(3_600_000, 1000 * 2 ** (attempt - 1));
}

const JOB_OPTIONS: OptionSpec = {
  maxAttempts: option.integer(1, 1000),
  backoff: option.function(),
  timeoutMs: option.integer(1, 86_400_000),
};

export class JobRegistry {
  readonly #jobs = new Map<string, RegisteredJob>();
  readonly #subscribers = new Map<DomainEventType, { name: string; wants: ((event: DomainEvent) => boolean) | null }[]>();

  register(name: string, handler: JobHandler, options: JobOptions = {}): void {
    if (this.#jobs.has(name)) throw new Error(`a job handler named "${name}" is already registered`);
    checkOptions(`job "${name}"`, options, JOB_OPTIONS);
    this.#jobs.set(name, { handler, maxAttempts: options.maxAttempts ?? 8, backoff: options.backoff ?? defaultBackoff, timeoutMs: options.timeoutMs ?? null });
  }

  get(name: string): RegisteredJob | undefined {
    return this.#jobs.get(name);
  }

  /** An event handler: each recorded event of these types becomes one job for it; with
   * `wants`, only the events it answers true for (decided when the event is recorded, from the
   * event alone: a handler that acts on few events costs the others no job at all). */
  subscribe(name: string, types: readonly DomainEventType[], handle: EventHandler, options: JobOptions = {}, wants?: (event: DomainEvent) => boolean): void {
    this.register(EVENT_JOB + name, (payload) => handle(payload as RecordedEvent), options);
    for (const type of types) {
      const subscribers = this.#subscribers.get(type) ?? [];
      subscribers.push({ name: EVENT_JOB + name, wants: wants ?? null });
      this.#subscribers.set(type, subscribers);
    }
  }

  /** The jobs that handle one recorded event: one per subscribed handler, each in order with
   * the other events of the same subject for that handler. */
  jobsFor(recorded: RecordedEvent): NewJob[] {
    const key = orderingKeyOf(recorded.event);
    const jobs: NewJob[] = [];
    for (const { name, wants } of this.#subscribers.get(recorded.event.type) ?? []) {
      if (wants === null || wants(recorded.event)) jobs.push({ name, payload: recorded, orderingKey: `${name}|${key}` });
    }
    return jobs;
  }
}
