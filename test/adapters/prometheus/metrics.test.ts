// rookery/prometheus: requests as observed, and the queue's depth, its dead jobs and the live
// stream connections read at scrape time.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { createRookeryMetrics } from '../../../adapters/prometheus/index.ts';

function value(text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

t.test('requests, queue depth, dead jobs and stream connections', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const metrics = createRookeryMetrics(h.rookery, { processMetrics: false });
  metrics.observeRequest('GET', 200, 0.012);
  metrics.observeRequest('GET', 200, 0.3);
  metrics.observeRequest('POST', 422, 0.02);
  metrics.observeRequest('BREW', 405, 0.001);
  await h.core.queue.enqueue([{ name: 'nobody.handles.this', payload: {}, orderingKey: null }], h.core.clock.now() + 3_600_000);
  const text = await metrics.registry.metrics();
  t.equal(value(text, 'rookery_http_requests_total{method="GET",status="200"}'), 2);
  t.equal(value(text, 'rookery_http_requests_total{method="POST",status="422"}'), 1);
  t.equal(value(text, 'rookery_http_requests_total{method="OTHER",status="405"}'), 1, 'an unknown method is no label of its own');
  t.equal(value(text, 'rookery_http_request_duration_seconds_count{method="GET"}'), 2);
  t.equal(value(text, 'rookery_http_request_duration_seconds_bucket{le="0.025",method="GET"}'), 1);
  t.equal(value(text, 'rookery_jobs_queued'), 1, 'the job waiting for its time');
  t.equal(value(text, 'rookery_jobs_dead'), 0);
  t.equal(value(text, 'rookery_stream_connections'), 0);
  t.notOk(text.includes('process_cpu'), 'no process metrics when turned off');
  t.match(metrics.registry.contentType, /^text\/plain/);
});

t.test('the process metrics and a registry of the app\'s own', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const { Registry } = await import('prom-client');
  const registry = new Registry();
  const metrics = createRookeryMetrics(h.rookery, { registry });
  t.equal(metrics.registry, registry);
  const text = await registry.metrics();
  t.match(text, /^rookery_process_cpu_user_seconds_total /m);
  t.match(text, /^rookery_jobs_queued 0$/m);
});
