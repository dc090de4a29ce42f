// Real clients, unchanged, against the uWebSockets.js streaming server on real ports: masto.js
// (its WebSocket client, at the streaming URL that /api/v2/instance advertises, the token as
// the WebSocket protocol) and megalodon (at /api/v1/instance's streaming_api, the token in the
// query) each receive update, notification and delete on the user stream.

import { createRestAPIClient, createStreamingAPIClient } from 'masto';
import generator from 'megalodon';
import t from 'tap';
import { follow, post } from '../helpers/api.ts';
import type { Harness, TestUser } from '../helpers/harness.ts';
import { harnessWithStreaming, watchSubscriptions, type Streaming } from '../helpers/uws.ts';

let h: Harness;
let s: Streaming;
let alice: TestUser;
let bob: TestUser;
let url: string;

t.beforeEach(async () => {
  // Where the instance endpoints send clients: the streaming server's real port, chosen first
  // (the configuration is frozen once the instance is built), and never shared with another
  // process's streaming server.
  ({ h, s } = await harnessWithStreaming());
  url = h.server.info.uri;
  alice = await h.user('alice');
  bob = await h.user('bob');
  await follow(h, bob, alice);
});
t.afterEach(async () => {
  await s.server.close();
  await h.close();
});

/** What the clients must see on bob's user stream, in this order: his own post, alice's post,
 * a notification of alice favouriting his post, and the delete of alice's post. */
async function act(): Promise<{ mine: string; hers: string }> {
  const mine = await post(h, bob, 'something to favourite');
  const hers = await post(h, alice, 'for my followers');
  await h.request('POST', `/api/v1/statuses/${mine.id}/favourite`, { token: alice.token });
  await h.request('DELETE', `/api/v1/statuses/${hers.id}`, { token: alice.token });
  return { mine: mine.id, hers: hers.id };
}

t.test('masto.js: streaming client at the URL of /api/v2/instance', async (t) => {
  const watch = watchSubscriptions(h.rookery.streaming);
  const rest = createRestAPIClient({ url, accessToken: bob.token });
  const instance = await rest.v2.instance.fetch();
  t.equal(instance.configuration.urls.streaming, s.ws, 'the instance advertises the streaming server');
  const masto = createStreamingAPIClient({ streamingApiUrl: instance.configuration.urls.streaming, accessToken: bob.token, retry: false });
  const events: string[] = [];
  const collected = (async () => {
    for await (const event of masto.user.subscribe()) {
      if (event.event === 'update') events.push(`update ${event.payload.id}`);
      else if (event.event === 'notification') events.push(`notification ${event.payload.type} of ${event.payload.status?.id} by ${event.payload.account.username}`);
      else if (event.event === 'delete') events.push(`delete ${event.payload}`);
      if (events.length === 4) break;
    }
  })();
  await watch.subscribed(bob.account.id, 'user');
  const { mine, hers } = await act();
  await collected;
  masto.close();
  t.strictSame(events, [`update ${mine}`, `update ${hers}`, `notification favourite of ${mine} by alice`, `delete ${hers}`], 'update, notification and delete, parsed by masto.js');
});

t.test('megalodon: userStreaming at /api/v1/instance streaming_api', async (t) => {
  const watch = watchSubscriptions(h.rookery.streaming);
  const client = generator('mastodon', url, bob.token);
  t.equal((await client.getInstance()).data.urls?.streaming_api, s.ws);
  const stream = await client.userStreaming();
  const events: string[] = [];
  const got = new Promise<void>((resolve, reject) => {
    const add = (name: string) => {
      events.push(name);
      if (events.length === 4) resolve();
    };
    stream.on('update', (status: { id: string }) => add(`update ${status.id}`));
    stream.on('notification', (n: { type: string; status?: { id: string }; account: { username: string } }) => add(`notification ${n.type} of ${n.status?.id} by ${n.account.username}`));
    stream.on('delete', (id: string) => add(`delete ${id}`));
    stream.on('error', (err: Error) => reject(err));
  });
  await watch.subscribed(bob.account.id, 'user');
  const { mine, hers } = await act();
  await got;
  stream.stop();
  t.strictSame(events, [`update ${mine}`, `update ${hers}`, `notification favourite of ${mine} by alice`, `delete ${hers}`], 'update, notification and delete, parsed by megalodon');
});
