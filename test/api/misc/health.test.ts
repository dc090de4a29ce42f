// GET /health: "OK" as text/plain while the store answers, 503 when it does not.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';

t.test('OK while the store answers, 503 when it fails', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const ok = await h.request('GET', '/health');
  t.strictSame([ok.statusCode, ok.body], [200, 'OK']);
  t.match(ok.headers['content-type'], /^text\/plain/);
  const get = h.core.storage.accounts.get;
  h.core.storage.accounts.get = async () => {
    throw new Error('connection refused');
  };
  t.teardown(() => {
    h.core.storage.accounts.get = get;
  });
  const down = await h.request('GET', '/health');
  t.strictSame([down.statusCode, down.body], [503, 'Service Unavailable']);
});

t.test('503 when the job queue (Redis, when configured) does not answer', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const queue = h.core.queue as { deadLetters: (limit: number) => Promise<unknown> };
  const deadLetters = queue.deadLetters;
  queue.deadLetters = async () => {
    throw new Error('ECONNREFUSED 127.0.0.1:6379');
  };
  t.teardown(() => {
    queue.deadLetters = deadLetters;
  });
  const down = await h.request('GET', '/health');
  t.strictSame([down.statusCode, down.body], [503, 'Service Unavailable']);
});

t.test('answered in limited-federation mode too', async (t) => {
  const h = await harness({ config: { limitedFederation: true } });
  t.teardown(() => h.close());
  const ok = await h.request('GET', '/health');
  t.strictSame([ok.statusCode, ok.body], [200, 'OK']);
  t.equal((await h.request('GET', '/api/v1/timelines/public')).statusCode, 401, 'while the API asks for a user');
});
