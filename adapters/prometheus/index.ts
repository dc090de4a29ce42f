// `rookery/prometheus`: an instance's metrics in a prom-client registry, for Prometheus to
// scrape. Requests are counted by whoever serves them (observeRequest: the standalone's web
// server does it; an embedding app calls it from its own middleware); the job queue's depth,
// its dead jobs and the live stream connections are read when the registry is scraped, so
// that they cost nothing between scrapes and are right in every process.

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Rookery } from '../../core/mastodon/rookery.ts';

/** Dead jobs are counted up to this many: past it the gauge says "at least". */
const DEAD_JOBS_CAP = 10_000;

export interface RookeryMetrics {
  /** Serve `await registry.metrics()` with `registry.contentType`; add your own metrics to it. */
  readonly registry: Registry;
  /** One answered HTTP request: its method, status code and duration in seconds. */
  observeRequest(method: string, status: number, seconds: number): void;
}

export interface MetricsOptions {
  /** A registry of the app's own to add Rookery's metrics to (default: a new one). */
  registry?: Registry;
  /** Also the process's own metrics (CPU, memory, event loop lag …); default true. */
  processMetrics?: boolean;
  /** Prefix of every metric name; default 'rookery_'. */
  prefix?: string;
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export function createRookeryMetrics(rookery: Rookery, options: MetricsOptions = {}): RookeryMetrics {
  const registry = options.registry ?? new Registry();
  const prefix = options.prefix ?? 'rookery_';
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix });
  const requests = new Counter({
    name: `${prefix}http_requests_total`,
    help: 'HTTP requests answered, by method and status code.',
    labelNames: ['method', 'status'] as const,
    registers: [registry],
  });
  const durations = new Histogram({
    name: `${prefix}http_request_duration_seconds`,
    help: 'Time to answer an HTTP request, by method.',
    labelNames: ['method'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const { core, streaming } = rookery;
  new Gauge({
    name: `${prefix}jobs_queued`,
    help: 'Jobs waiting in the queue or running (the queue depth).',
    registers: [registry],
    async collect() {
      this.set(await core.queue.size());
    },
  });
  new Gauge({
    name: `${prefix}jobs_dead`,
    help: `Jobs that failed for the last time and wait for an operator (counted up to ${DEAD_JOBS_CAP}).`,
    registers: [registry],
    async collect() {
      this.set((await core.queue.deadLetters(DEAD_JOBS_CAP)).length);
    },
  });
  new Gauge({
    name: `${prefix}stream_connections`,
    help: 'Live streaming connections (SSE and WebSocket) of this process.',
    registers: [registry],
    collect() {
      this.set(streaming.stats().connections);
    },
  });
  return {
    registry,
    observeRequest(method, status, seconds) {
      // Whatever a client sends as a method must not become a label of its own.
      const known = KNOWN_METHODS.has(method) ? method : 'OTHER';
      requests.inc({ method: known, status: String(status) });
      durations.observe({ method: known }, seconds);
    },
  };
}
