// The documents every repository of adapters/mongodb stores and sends, without a server:
// - each model → document → BSON (what the driver puts on the wire and reads back) → model is
//   the model exactly;
// - ids: the snowflake string is the `_id`, never an ObjectId, and `num` is the same id as Int64;
// - for each operation, the exact filter, update or pipeline for representative inputs.

import { BSON, Long, ObjectId } from 'mongodb';
import t from 'tap';
import {
  ACCOUNT_PROJECTION,
  LOCAL_USERS,
  accountDoc,
  accountFromDoc,
  accountUpdate,
  emailFilter,
  userFromDoc,
  userUpdate,
  usernameFilter,
} from '../../../adapters/mongodb/accounts.ts';
import { filterDoc, filterFromDoc, filterReplacement, markerFromDoc, markerSet } from '../../../adapters/mongodb/filters.ts';
import { liveMarksPipeline, markDoc, markFromDoc, markUpsert, pinRefusal, pinUpdate, unpinUpdate } from '../../../adapters/mongodb/interactions.ts';
import { addMembersUpdate, listDoc, listFromDoc, membersPipeline, removeMembersUpdate } from '../../../adapters/mongodb/lists.ts';
import { countSinceQuery, notificationDoc, notificationFromDoc, notificationListFilter } from '../../../adapters/mongodb/notifications.ts';
import {
  applicationDoc,
  applicationFromDoc,
  codeDoc,
  codeFromDoc,
  consumeCodeUpdate,
  purgeAt,
  revokeUpdate,
  sessionDoc,
  sessionFromDoc,
  tokenDoc,
  tokenFromDoc,
} from '../../../adapters/mongodb/oauth.ts';
import {
  blockDoc,
  blockFromDoc,
  domainBlockDoc,
  domainBlockFromDoc,
  followCounters,
  followDoc,
  followFromDoc,
  followOptions,
  followPageFilter,
  liveMute,
  localFollowersPipeline,
  muteDoc,
  muteFromDoc,
} from '../../../adapters/mongodb/relationships.ts';
import {
  allOf,
  boostRemoval,
  createEffects,
  deleteEffects,
  editDoc,
  editFromDoc,
  idempotencyUpsert,
  reblogEffects,
  reblogsFilter,
  repliesFilter,
  softDelete,
  statusDoc,
  statusFromDoc,
  statusPatch,
  statusQueryFilter,
  unpinEverywhere,
  updatesMany,
} from '../../../adapters/mongodb/statuses.ts';
import { pageQuery, type Doc } from '../../../adapters/mongodb/values.ts';
import {
  IdSeq,
  NO_EFFECTS,
  POST,
  T0,
  account,
  application,
  block,
  boost,
  code,
  edit,
  filter,
  follow,
  list,
  mark,
  mute,
  notification,
  replyTo,
  session,
  status,
  token,
  user,
} from '../../../adapters/testing/fixtures.ts';

const L = (s: string) => Long.fromString(s);
/** What the driver does to a document: serialize it, send it, read it back. */
const wire = (doc: Doc): Doc => BSON.deserialize(BSON.serialize(doc));
const seq = new IdSeq();
const id = () => seq.next();
const [A, B] = [id(), id()];

t.test('every model survives document → BSON → model exactly', async (t) => {
  const a = account(A, { domain: 'Remote.Example', fields: [{ name: 'x', value: 'y', verifiedAt: T0 }], lastStatusAt: T0 + 5, avatarUrl: 'https://a/b.png' });
  t.strictSame(accountFromDoc(wire(accountDoc(a))), a, 'account');
  const u = user(A, { createdByApplicationId: id(), settings: { defaultVisibility: 'unlisted', defaultSensitive: true, defaultLanguage: null, expandMedia: 'show_all', expandSpoilers: false, chosenLanguages: ['en', 'de'] } });
  t.strictSame(userFromDoc(A, wire(accountDoc(account(A), u))['user'] as Doc), u, 'user');
  const s = status(id(), A, { mentionIds: [B], tags: ['cats'], mediaIds: [id()], pollId: id(), inReplyToId: id(), inReplyToAccountId: B, language: null, editedAt: T0 + 9, applicationId: id() });
  t.strictSame(statusFromDoc(wire(statusDoc(s))), s, 'status');
  const deletedBoost = { ...boost(id(), B, s), deletedAt: T0 + 1 };
  t.strictSame(statusFromDoc(wire(statusDoc(deletedBoost))), deletedBoost, 'deleted boost');
  const e = edit(id(), s, { pollOptions: ['a', 'b'] });
  t.strictSame(editFromDoc(wire(editDoc(e))), e, 'edit');
  const m = mark(id(), A, s.id);
  t.strictSame(markFromDoc(wire(markDoc(m))), m, 'mark');
  const f = follow(id(), A, B, { languages: ['en'], notify: true });
  t.strictSame(followFromDoc(wire(followDoc(f, 'request'))), f, 'follow (or request)');
  const bl = block(id(), A, B);
  t.strictSame(blockFromDoc(wire(blockDoc(bl))), bl, 'block');
  const mu = mute(id(), A, B, { expiresAt: T0 + 3, notifications: false });
  t.strictSame(muteFromDoc(wire(muteDoc(mu))), mu, 'mute');
  const db = { id: id(), accountId: A, domain: 'far.example', createdAt: T0 };
  t.strictSame(domainBlockFromDoc(wire(domainBlockDoc(db))), db, 'domain block');
  const n = notification(id(), A, B, { type: 'favourite', statusId: s.id });
  t.strictSame(notificationFromDoc(wire(notificationDoc(n, 'k'))), n, 'notification');
  const l = list(id(), A, { exclusive: true, repliesPolicy: 'none' });
  t.strictSame(listFromDoc(wire(listDoc(l))), l, 'list');
  const fl = filter(id(), A, { expiresAt: T0 + 60, keywords: [{ id: id(), keyword: 'x', wholeWord: true }], statuses: [{ id: id(), statusId: s.id }] });
  t.strictSame(filterFromDoc(wire(filterDoc(fl))), fl, 'filter');
  const app = application(id(), { website: null });
  t.strictSame(applicationFromDoc(wire(applicationDoc(app))), app, 'application');
  const tok = token(id(), app.id, null, { refreshTokenHash: 'r', revokedAt: T0 + 2 });
  t.strictSame(tokenFromDoc(wire(tokenDoc(tok))), tok, 'token');
  const c = code(id(), app.id, A, { codeChallenge: null, usedAt: T0 + 1 });
  t.strictSame(codeFromDoc(wire(codeDoc(c, new Date(0)))), c, 'authorization code');
  const ws = session(id(), null);
  t.strictSame(sessionFromDoc(wire(sessionDoc(ws, new Date(0)))), ws, 'web session');
  const marker = { accountId: A, timeline: 'home', lastReadId: s.id, version: 3, updatedAt: T0 };
  t.strictSame(markerFromDoc(wire({ _id: `${A}:home`, ...marker, _v: 4 })), marker, 'marker');
});

t.test('ids: the snowflake string is the _id, num is the same id as Int64, never an ObjectId', async (t) => {
  const big = '9223372036854775807';
  const docs: [string, Doc][] = [
    ['account', accountDoc(account(big))],
    ['status', statusDoc(status(big, A))],
    ['edit', editDoc(edit(big, status(id(), A)))],
    ['mark', markDoc(mark(big, A, B))],
    ['follow', followDoc(follow(big, A, B), 'follow')],
    ['block', blockDoc(block(big, A, B))],
    ['mute', muteDoc(mute(big, A, B))],
    ['domain block', domainBlockDoc({ id: big, accountId: A, domain: 'x', createdAt: T0 })],
    ['notification', notificationDoc(notification(big, A, B), null)],
    ['list', listDoc(list(big, A))],
    ['filter', filterDoc(filter(big, A))],
    ['application', applicationDoc(application(big))],
    ['token', tokenDoc(token(big, A, A))],
    ['code', codeDoc(code(big, A, A), new Date(0))],
    ['session', sessionDoc(session(big, A), new Date(0))],
  ];
  for (const [what, doc] of docs) {
    const read = wire(doc);
    t.strictSame([read['_id'], read['_id'] instanceof ObjectId, read['num']], [big, false, L(big)], what);
  }
  const small = wire(statusDoc(status('5', A)));
  t.strictSame([small['_id'], small['num']], ['5', 5], 'a small num reads back as a number (promoteLongs); only ranges and sorts use it');
});

t.test('accounts: keys, lookups, updates', async (t) => {
  const a = account(A, { username: 'Alice', domain: 'Remote.Example' });
  const doc = accountDoc(a, user(A, { email: 'Alice@Example.ORG' }));
  t.strictSame([doc['usernameKey'], doc['domainKey'], (doc['user'] as Doc)['emailKey'], (doc['user'] as Doc)['email']], ['alice', 'remote.example', 'alice@example.org', 'Alice@Example.ORG'], 'ASCII lower-case keys beside the values as given');
  t.equal(accountDoc(account(A)).domainKey, '', 'local: the empty domain key (one unique index covers both)');
  t.equal('user' in accountDoc(account(A)), false, 'no user: no user field (the email index is partial)');
  t.strictSame(usernameFilter('ALICE', null), { usernameKey: 'alice', domainKey: '' });
  t.strictSame(usernameFilter('Alice', 'Remote.EXAMPLE'), { usernameKey: 'alice', domainKey: 'remote.example' });
  t.strictSame(emailFilter('ALICE@example.org'), { 'user.emailKey': 'alice@example.org' });
  t.strictSame(LOCAL_USERS, { domain: null, 'user.emailKey': { $type: 'string' }, deletedAt: { $not: { $type: 'number' } } }, 'countLocalUsers: live local accounts with a user');
  t.strictSame(ACCOUNT_PROJECTION, { user: 0, pins: 0, _jobs: 0 });
  // A JavaScript caller may pass undefined for a field it leaves alone: skipped, like SQLite's setClause.
  const settings = { defaultVisibility: 'private' as const, defaultSensitive: false, defaultLanguage: 'en', expandMedia: 'default' as const, expandSpoilers: false };
  t.strictSame(accountUpdate({ displayName: 'New', avatarUrl: null, note: undefined } as unknown as Parameters<typeof accountUpdate>[0], settings, true), { $set: { displayName: 'New', avatarUrl: null, 'user.settings': settings } }, 'profile and settings in one update');
  t.strictSame(accountUpdate({ locked: true }, settings, false), { $set: { locked: true } }, 'no user: no settings');
  t.equal(accountUpdate({}, undefined, true), null, 'nothing to change');
  t.strictSame(userUpdate({ disabled: true, confirmedAt: null, locale: undefined } as unknown as Parameters<typeof userUpdate>[0]), { $set: { 'user.disabled': true, 'user.confirmedAt': null } });
  t.equal(userUpdate({}), null);
});

t.test('statuses: the live boost field, effects, the edit', async (t) => {
  const orig = status(id(), A);
  t.equal('liveBoostOf' in statusDoc(orig), false, 'not a boost: no liveBoostOf');
  t.equal(statusDoc(boost(id(), B, orig)).liveBoostOf, orig.id, 'a live boost carries its original (the unique index)');
  t.equal('liveBoostOf' in statusDoc({ ...boost(id(), B, orig), deletedAt: T0 }), false, 'a deleted boost does not');
  const s = status(id(), A, { createdAt: T0 + 7 });
  t.strictSame(createEffects(s, POST), [{ collection: 'accounts', filter: { _id: A }, update: { $inc: { statusesCount: 1 }, $set: { lastStatusAt: T0 + 7 } } }]);
  t.strictSame(createEffects(s, replyTo(orig.id)), [
    { collection: 'accounts', filter: { _id: A }, update: { $inc: { statusesCount: 1 }, $set: { lastStatusAt: T0 + 7 } } },
    { collection: 'statuses', filter: { _id: orig.id }, update: { $inc: { repliesCount: 1 } } },
  ]);
  t.strictSame(createEffects(s, NO_EFFECTS), []);
  const b = boost(id(), B, orig);
  t.strictSame(reblogEffects(b, orig.id), [
    { collection: 'statuses', filter: { _id: orig.id }, update: { $inc: { reblogsCount: 1 } } },
    { collection: 'accounts', filter: { _id: B }, update: { $inc: { statusesCount: 1 } } },
  ], "the original's count and the booster's; lastStatusAt left alone");
  t.strictSame(deleteEffects(s, replyTo(orig.id)), [
    { collection: 'accounts', filter: { _id: A, statusesCount: { $gt: 0 } }, update: { $inc: { statusesCount: -1 } } },
    { collection: 'statuses', filter: { _id: orig.id, repliesCount: { $gt: 0 } }, update: { $inc: { repliesCount: -1 } } },
  ], 'reversed, never below zero');
  t.strictSame(deleteEffects(b, NO_EFFECTS), [{ collection: 'statuses', filter: { _id: orig.id, reblogsCount: { $gt: 0 } }, update: { $inc: { reblogsCount: -1 } } }], 'a deleted boost: its original');
  t.strictSame(softDelete(T0 + 1), { $set: { deletedAt: T0 + 1 }, $unset: { liveBoostOf: '' } });
  const [b1, b2] = [boost('11', B, orig), boost('12', A, orig)];
  t.strictSame(boostRemoval([b1, b2], T0 + 1), [
    { collection: 'statuses', filter: { _id: { $in: ['11', '12'] } }, update: { $set: { deletedAt: T0 + 1 }, $unset: { liveBoostOf: '' } } },
    { collection: 'accounts', filter: { _id: { $in: [B, A] }, statusesCount: { $gt: 0 } }, update: { $inc: { statusesCount: -1 } } },
  ], 'one update for all boosters: one live boost each');
  t.strictSame(boostRemoval([], T0), []);
  t.strictSame(
    [...createEffects(s, replyTo(orig.id)), ...boostRemoval([b1, b2], T0), unpinEverywhere(orig.id)].map(updatesMany),
    [false, false, true, true, true],
    'one document by its _id, or many: an $in of ids, or no _id at all',
  );
  t.strictSame(unpinEverywhere(orig.id), { collection: 'accounts', filter: { 'pins.statusId': orig.id }, update: { $pull: { pins: { statusId: orig.id } } } });
  const patch = { text: 't', content: '<p>t</p>', spoilerText: '', sensitive: true, language: 'fr', mentionIds: [B], tags: ['x'], mediaIds: [], pollId: null, editedAt: T0 + 3 };
  t.strictSame(statusPatch(patch), { $set: patch });
  t.strictSame(idempotencyUpsert(A, 'key:1', s.id, T0 + 7, new Date(5)), {
    filter: { _id: `${A}:key:1` },
    update: { $set: { accountId: A, key: 'key:1', statusId: s.id, usedAt: T0 + 7, expireAt: new Date(5) } },
  }, 'the key points at the new status; the TTL date is the wall clock');
});

t.test('statuses.query: every field alone, combined, and paged', async (t) => {
  const page = pageQuery({ limit: 20 });
  const pub = { visibility: { $in: ['public'] } };
  const q = (query: Parameters<typeof statusQueryFilter>[0], scope = {}, p = page) => statusQueryFilter(query, scope, p);
  t.strictSame(q({ visibilities: ['public'] }), { deletedAt: null, visibility: { $in: ['public'] } }, 'live statuses of these visibilities');
  t.strictSame(q({ visibilities: ['public'], orMentioning: B }), { deletedAt: null, $or: [pub, { mentionIds: B }] }, 'orMentioning');
  t.strictSame(q({ visibilities: [], authorId: A }), { deletedAt: null, visibility: { $in: [] }, accountId: A }, 'authorId (no visibility: matches nothing)');
  t.strictSame(q({ visibilities: ['public'], homeOf: A }, { homeAccounts: [A, B] }), { deletedAt: null, ...pub, accountId: { $in: [A, B] } }, 'homeOf: the accounts read beforehand');
  t.strictSame(q({ visibilities: ['public'], homeOf: A }), { deletedAt: null, ...pub, accountId: { $in: [A] } }, 'homeOf without its list: its own');
  t.strictSame(q({ visibilities: ['public'], listId: '9' }, { listAccounts: [B] }), { deletedAt: null, ...pub, accountId: { $in: [B] } }, 'listId: its members');
  t.strictSame(q({ visibilities: ['public'], listId: '9' }), { deletedAt: null, ...pub, accountId: { $in: [] } }, 'a list without members: nothing');
  t.strictSame(q({ visibilities: ['public'], tag: 'cats' }), { deletedAt: null, ...pub, tags: 'cats' }, 'tag: exact');
  t.strictSame(q({ visibilities: ['public'], local: false }), { deletedAt: null, ...pub, local: false });
  t.strictSame(q({ visibilities: ['public'], onlyMedia: true }), { deletedAt: null, ...pub, 'mediaIds.0': { $exists: true } });
  t.strictSame(q({ visibilities: ['public'], onlyMedia: false, excludeReblogs: false, excludeRepliesToOthers: false }), { deletedAt: null, ...pub }, 'false filters nothing');
  t.strictSame(q({ visibilities: ['public'], excludeReblogs: true }), { deletedAt: null, ...pub, reblogOfId: null });
  t.strictSame(q({ visibilities: ['public'], excludeRepliesToOthers: true }), {
    deletedAt: null,
    ...pub,
    $or: [{ inReplyToId: null }, { $expr: { $eq: ['$inReplyToAccountId', '$accountId'] } }],
  }, 'replies only by their own author');
  t.strictSame(
    q({ visibilities: ['public'], orMentioning: B, authorId: A, homeOf: A, excludeRepliesToOthers: true }, { homeAccounts: [A] }, pageQuery({ limit: 5, maxId: '100', sinceId: '50' })),
    {
      deletedAt: null,
      $or: [pub, { mentionIds: B }],
      accountId: A,
      $and: [{ accountId: { $in: [A] } }, { $or: [{ inReplyToId: null }, { $expr: { $eq: ['$inReplyToAccountId', '$accountId'] } }] }],
      num: { $lt: L('100'), $gt: L('50') },
    },
    'combined: a field constrained twice goes to $and; the page on num',
  );
  t.strictSame(allOf([{ a: 1 }, { b: 2 }, { a: 3 }]), { a: 1, b: 2, $and: [{ a: 3 }] });
  t.strictSame(reblogsFilter(A, ['public', 'private'], pageQuery({ limit: 2, minId: '7' })), { deletedAt: null, reblogOfId: A, visibility: { $in: ['public', 'private'] }, num: { $gt: L('7') } });
  t.strictSame(repliesFilter([A, B]), { deletedAt: null, inReplyToId: { $in: [A, B] } });
});

t.test('interactions: marks, pins', async (t) => {
  const m = mark('42', A, B);
  t.strictSame(markUpsert(m), { filter: { accountId: A, statusId: B }, update: { $setOnInsert: { _id: '42', num: L('42'), createdAt: m.createdAt } } }, 'a bookmark unless the pair has one');
  t.strictSame(liveMarksPipeline(A, pageQuery({ limit: 3, maxId: '90' })), [
    { $match: { accountId: A, num: { $lt: L('90') } } },
    { $sort: { num: -1 } },
    { $lookup: { from: 'statuses', localField: 'statusId', foreignField: '_id', pipeline: [{ $match: { deletedAt: null } }, { $project: { _id: 1 } }], as: 'live' } },
    { $match: { 'live.0': { $exists: true } } },
    { $limit: 3 },
    { $project: { live: 0 } },
  ], 'marks of live statuses, paged by the mark; the limit after the live filter');
  t.strictSame(pinUpdate(m, 5), {
    filter: { _id: A, 'pins.statusId': { $ne: B }, 'pins.4': { $exists: false } },
    update: { $push: { pins: { id: '42', num: L('42'), statusId: B, createdAt: m.createdAt } } },
  }, 'pushed only while fewer than five and not already there: the limit in one document');
  t.strictSame(pinUpdate(m, 1)?.filter, { _id: A, 'pins.statusId': { $ne: B }, 'pins.0': { $exists: false } });
  t.equal(pinUpdate(m, 0), null, 'a limit of 0: no pin can be added');
  t.strictSame(unpinUpdate(A, B), { filter: { _id: A, 'pins.statusId': B }, update: { $pull: { pins: { statusId: B } } } });
  const pin = (statusId: string) => ({ id: id(), num: 0, statusId, createdAt: T0 });
  t.equal(pinRefusal([pin('1'), pin(B)], B, 5), 'exists');
  t.equal(pinRefusal([pin('1'), pin('2')], B, 2), 'limit');
  t.equal(pinRefusal([pin('1')], B, 2), null, 'neither: it changed meanwhile, try again');
});

t.test('relationships: kinds, counters, pages, local followers', async (t) => {
  const f = follow('77', A, B, { showReblogs: false, notify: true, languages: null });
  t.strictSame(followDoc(f, 'request'), { _id: '77', num: L('77'), kind: 'request', accountId: A, targetAccountId: B, showReblogs: false, notify: true, languages: null, createdAt: f.createdAt });
  t.strictSame(followOptions(f), { $set: { showReblogs: false, notify: true, languages: null } });
  t.strictSame(followCounters(A, B, -1), [
    { collection: 'accounts', filter: { _id: A, followingCount: { $gt: 0 } }, update: { $inc: { followingCount: -1 } } },
    { collection: 'accounts', filter: { _id: B, followersCount: { $gt: 0 } }, update: { $inc: { followersCount: -1 } } },
  ]);
  t.strictSame(followPageFilter('targetAccountId', B, 'request', pageQuery({ limit: 1, sinceId: '5' })), { targetAccountId: B, kind: 'request', num: { $gt: L('5') } });
  t.strictSame(localFollowersPipeline(B), [
    { $match: { targetAccountId: B, kind: 'follow' } },
    { $lookup: { from: 'accounts', localField: 'accountId', foreignField: '_id', pipeline: [{ $match: { domain: null } }, { $project: { _id: 1 } }], as: 'local' } },
    { $match: { 'local.0': { $exists: true } } },
    { $sort: { num: -1 } },
    { $project: { local: 0 } },
  ]);
  t.strictSame(localFollowersPipeline(B, true)[0], { $match: { targetAccountId: B, kind: 'follow', notify: true } }, 'the notified ones: the partial index\'s filter');
  t.strictSame(localFollowersPipeline(B, true).slice(1), localFollowersPipeline(B).slice(1));
  t.equal(domainBlockDoc({ id: '1', accountId: A, domain: 'Far.EXAMPLE', createdAt: T0 }).domain, 'far.example', 'stored lower case');
  t.strictSame(liveMute(T0), { $or: [{ expiresAt: null }, { expiresAt: { $gt: T0 } }] }, 'a mute has ended at its expiresAt');
});

t.test('notifications, lists, filters, markers', async (t) => {
  t.equal('dedupeKey' in notificationDoc(notification('1', A, B), null), false, 'no key: no field (the once-per-key index is partial)');
  t.equal(notificationDoc(notification('1', A, B), 'e1:mention').dedupeKey, 'e1:mention');
  const p = pageQuery({ limit: 2, maxId: '9' });
  t.strictSame(notificationListFilter(A, {}, p), { accountId: A, num: { $lt: L('9') } });
  t.strictSame(notificationListFilter(A, { types: ['mention'], excludeTypes: ['follow'], fromAccountId: B }, p), {
    accountId: A,
    type: { $in: ['mention'], $nin: ['follow'] },
    fromAccountId: B,
    num: { $lt: L('9') },
  });
  t.strictSame(countSinceQuery(A, null, 100), { filter: { accountId: A }, limit: 100 });
  t.strictSame(countSinceQuery(A, '50', 2.5), { filter: { accountId: A, num: { $gt: L('50') } }, limit: 2 });
  t.equal(countSinceQuery(A, null, 0).limit, 0, 'limit 0 is answered without counting');

  t.strictSame(listDoc(list('3', A)).members, [], 'members live in the list');
  t.strictSame(addMembersUpdate('3', [A, B], ['10', '11']), {
    filter: { _id: '3', 'members.accountId': { $nin: [A, B] } },
    update: { $push: { members: { $each: [{ id: '10', num: L('10'), accountId: A }, { id: '11', num: L('11'), accountId: B }] } } },
  }, 'every member or none: the push matches only while none is a member');
  t.strictSame(removeMembersUpdate('3', [A]), { filter: { _id: '3' }, update: { $pull: { members: { accountId: { $in: [A] } } } } });
  t.strictSame(membersPipeline('3', { limit: 0 }), [{ $match: { _id: '3' } }, { $unwind: '$members' }, { $replaceWith: '$members' }, { $sort: { num: -1 } }], 'limit 0: all of them');
  t.strictSame(membersPipeline('3', { limit: 1, minId: '10' }), [
    { $match: { _id: '3' } },
    { $unwind: '$members' },
    { $replaceWith: '$members' },
    { $match: { num: { $gt: L('10') } } },
    { $sort: { num: 1 } },
    { $limit: 1 },
  ]);

  const f = filter('8', A);
  const { _id: _i, num: _n, ...fields } = filterDoc(f);
  t.strictSame(filterReplacement(f), { $set: fields }, 'replace: every field but the id');
  t.equal('_id' in (filterReplacement(f)['$set'] as Doc), false);

  t.strictSame(markerSet(A, 'home', B, T0), {
    filter: { _id: `${A}:home` },
    pipeline: [
      {
        $set: {
          accountId: { $literal: A },
          timeline: { $literal: 'home' },
          lastReadId: { $literal: B },
          updatedAt: { $literal: T0 },
          version: { $cond: [{ $eq: [{ $type: '$version' }, 'missing'] }, 0, { $add: ['$version', 1] }] },
        },
      },
    ],
  }, 'one upsert: version 0 when new, else +1');
});

t.test('oauth: the code used once, revocations, TTL dates', async (t) => {
  t.strictSame(consumeCodeUpdate('h', T0), { filter: { codeHash: 'h', usedAt: null, expiresAt: { $gt: T0 } }, update: { $set: { usedAt: T0 } } }, 'unused and not expired at now');
  t.strictSame(revokeUpdate(T0), { $set: { revokedAt: T0 } });
  const wall = Date.UTC(2030, 0, 1);
  t.strictSame(purgeAt(wall, T0, T0 + 600_000), new Date(wall + 600_000 + 86_400_000), 'the wall clock now + lifetime + a day: never before it expired');
  t.strictSame(purgeAt(wall, T0, T0 - 5), new Date(wall + 86_400_000), 'a negative lifetime counts as 0');
  t.strictSame(codeDoc(code('1', A, A), new Date(9)).purgeAt, new Date(9));
});
