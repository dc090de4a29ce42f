// The four plugins' MongoDB repositories without a server: their documents (through BSON and
// back), ids, and the filters and updates their operations send; and that each extension offers
// the mongodb engine.

import { BSON, Long, ObjectId } from 'mongodb';
import t from 'tap';
import { mongoValues } from '../../../adapters/mongodb/storage.ts';
import type { Doc } from '../../../adapters/mongodb/values.ts';
import { T0, card, media, poll, scheduled } from '../../../adapters/testing/fixtures.ts';
import { cardStorage } from '../../../plugins/cards/storage/index.ts';
import { cardFields, cardFromDoc, cardUpsert, mongoCardRepository } from '../../../plugins/cards/storage/mongodb.ts';
import { mediaStorage } from '../../../plugins/media/storage/index.ts';
import { attachableFilter, mediaDoc, mediaFromDoc, mongoMediaRepository } from '../../../plugins/media/storage/mongodb.ts';
import { pollStorage } from '../../../plugins/polls/storage/index.ts';
import { mongoPollRepository, pollDoc, pollFields, pollFromDoc, voteCounts } from '../../../plugins/polls/storage/mongodb.ts';
import { scheduledStorage } from '../../../plugins/scheduled/storage/index.ts';
import { byAge, dueFilter, mongoScheduledRepository, scheduledDoc, scheduledFromDoc } from '../../../plugins/scheduled/storage/mongodb.ts';

const wire = (doc: Doc): Doc => BSON.deserialize(BSON.serialize(doc));
const num = mongoValues.num;
const L = (s: string) => Long.fromString(s);
const A = '113000000000000001';

t.test('each plugin offers the mongodb engine', async (t) => {
  t.equal(mediaStorage.engines['mongodb'], mongoMediaRepository);
  t.equal(pollStorage.engines['mongodb'], mongoPollRepository);
  t.equal(scheduledStorage.engines['mongodb'], mongoScheduledRepository);
  t.equal(cardStorage.engines['mongodb'], mongoCardRepository);
});

t.test('media: documents and the attach check', async (t) => {
  const m = media('9223372036854775807', A, { focus: { x: 0.5, y: -0.25 }, extra: { duration: 12.5, codec: 'h264' }, small: null, statusId: null });
  const read = wire(mediaDoc(m, num));
  t.strictSame(mediaFromDoc(read), m, 'through BSON and back');
  t.strictSame([read['_id'], read['_id'] instanceof ObjectId, read['num']], [m.id, false, L(m.id)]);
  t.strictSame(attachableFilter(['1', '2'], A, '50', ['40']), { _id: { $in: ['1', '2'] }, accountId: A, statusId: { $in: [null, '50', '40'] } }, "the account's, and unattached, on this status or on a released one: counted, all or refused");
});

t.test('polls: documents, a vote\'s counts', async (t) => {
  const p = poll('77', A, '5', { votes: [2, 0, 1], votesCount: 3, votersCount: 2, expiresAt: null });
  t.strictSame(pollFromDoc(wire(pollDoc(p, num))), p);
  t.strictSame(pollDoc(p, num), { _id: '77', num: L('77'), ...pollFields(p) });
  t.equal('_id' in pollFields(p), false, 'replacing sets every field but the id');
  t.strictSame(voteCounts([0, 2]), { $inc: { 'votes.0': 1, 'votes.2': 1, votesCount: 2, votersCount: 1 } }, 'each choice, the votes, one voter');
  t.strictSame(voteCounts([1, 1]), { $inc: { 'votes.1': 2, votesCount: 2, votersCount: 1 } }, 'a choice given twice counts twice, as SQLite does');
});

t.test('scheduled: documents, what is due, the order of a claim', async (t) => {
  const s = scheduled('88', A, T0 + 5, { claimedUntil: T0 + 9 });
  t.strictSame(scheduledFromDoc(wire(scheduledDoc(s, num))), s);
  t.strictSame(dueFilter(T0), { scheduledAt: { $lte: T0 }, $or: [{ claimedUntil: null }, { claimedUntil: { $lte: T0 } }] }, 'due and not under a live lease (a lease ends at its time)');
  const rows = [scheduled('100', A, T0 + 1), scheduled('99', A, T0 + 1), scheduled('5', A, T0 + 2)];
  t.strictSame(rows.sort(byAge).map((r) => r.id), ['99', '100', '5'], 'oldest first, then by id as a number');
});

t.test('cards: documents, one card per url', async (t) => {
  const c = card('66', 'https://a.example/', { width: 560.5, publishedAt: null, blurhash: null });
  t.strictSame(cardFromDoc(wire({ _id: '66', num: num('66'), url: c.url, ...cardFields(c) })), c);
  t.strictSame(cardUpsert(c, num), { filter: { url: 'https://a.example/' }, update: { $set: cardFields(c), $setOnInsert: { _id: '66', num: L('66') } } }, 'the fields replaced, the id set only when inserted');
  t.equal('url' in cardFields(c) || '_id' in cardFields(c), false);
});
