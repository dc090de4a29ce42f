// Once a subscribe has resolved, nothing published after it is missed: not on its channels, and
// not on the control channel, which carries what ends a connection (a revoked token) and what
// changes how its statuses are screened (a block); and the account's state is read only once
// that channel listens. On Redis a subscription takes a round trip; here the in-process bus
// stands in for it, with the control channel's subscription held back until the test lets it
// through, so that the window a subscribe could be answered in is as wide as the test wants.

import t from 'tap';
import { createInProcessBus } from '../../../../core/domain/bus.ts';
import type { EventBus } from '../../../../core/domain/ports/bus.ts';
import { channels } from '../../../../core/domain/routing/channels.ts';
import { post } from '../../../helpers/api.ts';
import { eventually } from '../../../helpers/eventually.ts';
import { harness, type Harness, type TestUser } from '../../../helpers/harness.ts';
import { PASSWORD, registerApp, tokenRequest } from '../../../helpers/oauth.ts';
import { sink } from '../../../helpers/streams.ts';

/** The in-process bus, whose subscriptions to `held` wait until open() is called. */
function heldBack(held: string): { bus: EventBus; open(): void; asked(): boolean } {
  const inner = createInProcessBus();
  let open = () => {};
  const gate = new Promise<void>((resolve) => (open = resolve));
  let asked = false;
  const bus: EventBus = {
    publish: (channel, message) => inner.publish(channel, message),
    async subscribe(channel, handler) {
      if (channel === held) {
        asked = true;
        await gate;
      }
      return inner.subscribe(channel, handler);
    },
    hasSubscribers: (channel) => inner.hasSubscribers(channel),
    listening: (names) => inner.listening(names),
    close: () => inner.close(),
  };
  return { bus, open: () => open(), asked: () => asked };
}

/** Every step a subscribe can take without waiting on the bus: the microtasks of this turn. */
const endOfTurn = () => new Promise((next) => setImmediate(next));

async function connect(h: Harness, token: string) {
  const identity = await h.rookery.streaming.authenticate({ authorization: `Bearer ${token}` });
  if ('error' in identity) throw new Error(identity.error);
  const s = sink();
  return { connection: h.rookery.streaming.connect(identity, s.output), sink: s };
}

/** A subscribe, and whether it has resolved yet. */
function subscribing(connection: Awaited<ReturnType<typeof connect>>['connection'], stream: string) {
  const state = { acknowledged: false, done: connection.subscribe(stream, {}) };
  void state.done.then(() => (state.acknowledged = true));
  return state;
}

t.test('a subscribe resolves only once the control channel listens: a kill right after it is heard', async (t) => {
  const held = heldBack(channels.control);
  const h = await harness({ bus: held.bus });
  t.teardown(() => h.close());
  await h.user('carol');
  const app = await registerApp(h);
  const creds = { client_id: app.client_id, client_secret: app.client_secret };
  const token = (await tokenRequest(h, { grant_type: 'password', username: 'carol', password: PASSWORD, scope: 'read', ...creds })).json.access_token as string;
  const { connection, sink: s } = await connect(h, token);
  const asked = subscribing(connection, 'public');
  await endOfTurn();
  t.ok(held.asked(), 'the control channel was asked for');
  t.notOk(asked.acknowledged, 'not answered while the control channel does not listen');
  // The token is revoked as soon as the subscribe is answered, and the control channel's
  // subscription goes through only after that (an answer that came too early: the revocation
  // is published while nobody listens).
  if (!asked.acknowledged) held.open();
  t.equal(await asked.done, null);
  t.equal((await h.request('POST', '/oauth/revoke', { payload: { token, ...creds } })).statusCode, 200);
  held.open();
  t.equal(s.killed, 1, 'the revocation right after the answer ends the stream');
});

t.test("the state a stream screens with is read once the control channel listens: a block made meanwhile holds", async (t) => {
  const held = heldBack(channels.control);
  const h = await harness({ bus: held.bus });
  t.teardown(() => h.close());
  const alice: TestUser = await h.user('alice');
  const bob: TestUser = await h.user('bob');
  const { connection, sink: s } = await connect(h, bob.token);
  const asked = subscribing(connection, 'public');
  await endOfTurn();
  const blocked = await h.request('POST', `/api/v1/accounts/${alice.account.id}/block`, { token: bob.token, drain: false });
  t.equal(blocked.statusCode, 200);
  // Its jobs run, and the change they announce goes by unheard (the control channel does not
  // listen yet): only what the state is read from can show the block.
  const draining = h.rookery.drain();
  await eventually(() => h.core.queue.size(), (queued) => queued === 0, 'the block\'s jobs done');
  held.open();
  t.equal(await asked.done, null);
  await draining;
  await post(h, alice, 'bob blocked me');
  t.strictSame(s.events(), [], "the blocked account's post is not on bob's stream");
  const other = await post(h, bob, 'mine');
  t.strictSame(s.events(), [`update ${other.id}`], 'the stream works');
});

t.test('a subscription the bus could not make is not kept: asking again subscribes for real', async (t) => {
  const inner = createInProcessBus();
  let failures = 1;
  const bus: EventBus = {
    ...inner,
    async subscribe(channel, handler) {
      if (channel === channels.public && failures > 0) {
        failures -= 1;
        throw new Error('the bus is away');
      }
      return inner.subscribe(channel, handler);
    },
  };
  const h = await harness({ bus });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const bob = await h.user('bob');
  const { connection, sink: s } = await connect(h, bob.token);
  await t.rejects(connection.subscribe('public', {}), { message: 'the bus is away' });
  t.equal(connection.subscriptionCount, 0, 'nothing kept of it');
  t.equal(await connection.subscribe('public', {}), null);
  const status = await post(h, alice, 'heard');
  t.strictSame(s.events(), [`update ${status.id}`], 'the second subscribe listens');
  t.strictSame(h.rookery.streaming.stats(), { connections: 1, subscriptions: 1, channels: 1 });
});
