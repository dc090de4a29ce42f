// Only a status published quoting another sets off the federation plugin's quote request
// (plugins/federation/quotes.ts): the others queue no job for it. Counted in the queue, with
// no worker to take the jobs first.

import t from 'tap';
import { federationPlugin } from '../../../plugins/index.ts';
import { harness } from '../../helpers/harness.ts';

t.test('a plain status queues one federation job for its creation, a quote two', async (t) => {
  const h = await harness({ plugins: [federationPlugin({ allowPrivateAddress: true })], worker: false });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  /** The federation plugin's jobs for status.created queued since the last call (claimed, so
   * counted once). */
  const created = async (): Promise<number> => (await h.core.storage.jobs.claim(Number.MAX_SAFE_INTEGER, 1000, 60_000)).filter((job) => job.name.startsWith('event:federation:status.created:')).length;
  await created();
  const plain = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'plain' }, drain: false });
  t.equal(plain.statusCode, 200);
  t.equal(await created(), 1, 'a plain status: its delivery only');
  const quote = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'quoting', quoted_status_id: plain.json.id }, drain: false });
  t.equal(quote.statusCode, 200);
  t.equal(quote.json.quote?.quoted_status?.id, plain.json.id, 'it quotes the plain one');
  t.equal(await created(), 2, 'a quote: its delivery and its quote request');
});
