// How a delivery to many followers is queued: one recipient per inbox (a server's shared inbox
// stands for all its followers there), and at most INBOXES_PER_FANOUT inboxes per queued
// fan-out. Fedify's fan-out message lists its inboxes, and the queue refuses one over 1 MiB:
// an author with 100,000 followers once had every delivery buried at once.

import t from 'tap';
import { INBOXES_PER_FANOUT, oneRecipientPerInbox } from '../../../plugins/federation/outgoing.ts';
import { MAX_MESSAGE_LENGTH } from '../../../plugins/federation/queue.ts';

const follower = (server: number, user: number, shared: boolean) => ({
  id: new URL(`https://s${server}.example/users/u${user}`),
  inboxId: new URL(`https://s${server}.example/users/u${user}/inbox`),
  endpoints: shared ? { sharedInbox: new URL(`https://s${server}.example/inbox`) } : null,
});

t.test('one recipient per inbox: the shared inbox where there is one, else the personal inbox', async (t) => {
  const list = [follower(1, 1, true), follower(1, 2, true), follower(2, 1, false), follower(2, 2, false), follower(2, 1, false), { id: null, inboxId: null }];
  const out = oneRecipientPerInbox(list);
  t.strictSame(
    out.map((r) => [r.id?.href, r.inboxId?.href]),
    [
      ['https://s1.example/users/u1', 'https://s1.example/inbox'],
      ['https://s2.example/users/u1', 'https://s2.example/users/u1/inbox'],
      ['https://s2.example/users/u2', 'https://s2.example/users/u2/inbox'],
    ],
  );
});

t.test('100,000 followers: fan-outs of INBOXES_PER_FANOUT inboxes each fit the queue', async (t) => {
  // 50 followers per shared inbox on 1,000 servers, and 50,000 with inboxes of their own.
  const list = [];
  for (let i = 0; i < 50_000; i++) list.push(follower(i % 1000, i, true));
  for (let i = 0; i < 50_000; i++) list.push(follower(1000 + i, i, false));
  const inboxes = oneRecipientPerInbox(list);
  t.equal(inboxes.length, 51_000, 'one per inbox');
  // What Fedify's fan-out message carries per inbox: its URL and the actor ids behind it.
  const message = (chunk: typeof inboxes) => ({
    type: 'fanout',
    inboxes: Object.fromEntries(chunk.map((r) => [r.inboxId?.href, { actorIds: [r.id?.href], sharedInbox: false }])),
    activity: { type: 'Create', object: { content: 'x'.repeat(5000) } },
  });
  const length = (chunk: typeof inboxes) => JSON.stringify(message(chunk)).length;
  t.ok(length(inboxes) > MAX_MESSAGE_LENGTH, 'all at once: too large for the queue');
  t.ok(length(inboxes.slice(-INBOXES_PER_FANOUT)) < MAX_MESSAGE_LENGTH / 2, 'a fan-out of INBOXES_PER_FANOUT inboxes fits with room to spare');
});
