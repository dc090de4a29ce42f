// adapters/mongodb/values.ts without a server: ids, pages, patches.

import { Long } from 'mongodb';
import t from 'tap';
import {
  applyPatch,
  asciiLower,
  counterUpdate,
  inOrder,
  inPageOrder,
  lookupId,
  newestFirst,
  num,
  pageQuery,
  pairKey,
  setFields,
  validIds,
  withRange,
} from '../../../adapters/mongodb/values.ts';

const L = (s: string) => Long.fromString(s);

t.test('num: the id as a signed Int64, exactly, for every id up to 2^63-1', async (t) => {
  t.strictSame(num('1'), L('1'));
  t.strictSame(num('9007199254740993'), L('9007199254740993'), 'above 2^53, not rounded');
  t.equal(num('9007199254740993').toString(), '9007199254740993');
  t.equal(num('9223372036854775807').toString(), '9223372036854775807', 'the largest id');
  t.equal(num('9223372036854775807').unsigned, false, 'signed, as MongoDB compares Int64');
  t.equal(num('113401971834519552').compare(num('99999999999999999')), 1, 'numeric order where string order is the other way');
  for (const bad of ['', '0', '-1', '01', '9223372036854775808', '1.5', 'abc', ' 1']) {
    t.throws(() => num(bad), { name: 'TypeError', message: `not an id: ${JSON.stringify(bad)}` }, `refuses ${JSON.stringify(bad)}`);
  }
});

t.test('lookupId and validIds: what cannot be an id misses', async (t) => {
  t.equal(lookupId('123'), '123');
  t.equal(lookupId('not-an-id'), null);
  t.equal(lookupId('0'), null);
  t.strictSame(validIds(['5', 'x', '3', '5', '', '9223372036854775808', '7']), ['5', '3', '7'], 'valid ones, each once, in order');
});

t.test('asciiLower folds A-Z only, like SQLite lower()', async (t) => {
  t.equal(asciiLower('AlIcE@Example.ORG'), 'alice@example.org');
  t.equal(asciiLower('ÉCOLE'), 'École', 'non-ASCII letters are kept');
  t.equal(asciiLower('İstanbul'), 'İstanbul');
});

t.test('pairKey: an id, a colon, the rest', async (t) => {
  t.equal(pairKey('123', 'home'), '123:home');
  t.equal(pairKey('123', 'a:b'), '123:a:b');
});

t.test('pageQuery: the port\'s cursors as a range on num, a sort and a limit', async (t) => {
  t.strictSame(pageQuery({ limit: 20 }), { range: null, sort: -1, limit: 20, empty: false, reverse: false }, 'no cursor: newest first');
  t.strictSame(pageQuery({ limit: 5, maxId: '100' }), { range: { $lt: L('100') }, sort: -1, limit: 5, empty: false, reverse: false }, 'maxId: strictly older');
  t.strictSame(pageQuery({ limit: 5, sinceId: '100' }), { range: { $gt: L('100') }, sort: -1, limit: 5, empty: false, reverse: false }, 'sinceId: strictly newer, newest first');
  t.strictSame(pageQuery({ limit: 5, minId: '100' }), { range: { $gt: L('100') }, sort: 1, limit: 5, empty: false, reverse: true }, 'minId: the rows right above, read oldest first, reversed');
  t.strictSame(pageQuery({ limit: 5, minId: '100', maxId: '200' }), { range: { $lt: L('200'), $gt: L('100') }, sort: 1, limit: 5, empty: false, reverse: true }, 'minId + maxId');
  t.strictSame(pageQuery({ limit: 5, sinceId: '150', minId: '100' }).range, { $gt: L('150') }, 'sinceId and minId: the larger bound');
  t.strictSame(pageQuery({ limit: 5, sinceId: '99', minId: '100' }).range, { $gt: L('100') }, 'compared as numbers, not strings');
  t.strictSame(pageQuery({ limit: 0 }), { range: null, sort: -1, limit: 0, empty: true, reverse: false }, 'limit 0: empty, no query (the driver reads 0 as no limit)');
  t.strictSame(pageQuery({ limit: 0 }, true), { range: null, sort: -1, limit: 0, empty: false, reverse: false }, 'limit 0 with zeroIsAll: every row');
  t.equal(pageQuery({ limit: 7.9 }).limit, 7, 'truncated');
  t.strictSame([pageQuery({ limit: -3 }).limit, pageQuery({ limit: -3 }).empty], [0, true], 'negative: nothing');
  t.throws(() => pageQuery({ limit: 5, maxId: 'x' }), { name: 'TypeError' }, 'a cursor that is not an id');
  t.throws(() => pageQuery({ limit: 5, sinceId: '5', minId: 'x' }), { name: 'TypeError' }, 'both bounds are checked');
});

t.test('withRange and inPageOrder', async (t) => {
  t.strictSame(withRange({ accountId: '1' }, pageQuery({ limit: 1 })), { accountId: '1' }, 'no cursor: the filter as is');
  t.strictSame(withRange({ accountId: '1' }, pageQuery({ limit: 1, maxId: '9' })), { accountId: '1', num: { $lt: L('9') } });
  t.strictSame(inPageOrder([1, 2, 3], pageQuery({ limit: 3, minId: '1' })), [3, 2, 1], 'minId pages come back newest first');
  t.strictSame(inPageOrder([3, 2, 1], pageQuery({ limit: 3 })), [3, 2, 1]);
});

t.test('setFields and applyPatch: defined values of allowed keys only', async (t) => {
  const patch: { a?: number; b?: number | undefined; c?: number | null; d?: string } = { a: 1, b: undefined, c: null, d: 'not allowed' };
  t.strictSame(setFields(patch, ['a', 'b', 'c']), { a: 1, c: null }, 'undefined skipped, null kept');
  t.strictSame(setFields(patch, ['a', 'c'], 'user.'), { 'user.a': 1, 'user.c': null }, 'prefixed');
  t.strictSame(setFields({} as { a?: number }, ['a']), {});
  const target: { a: number; b: number | undefined; c: number | null; list: number[] } = { a: 0, b: 2, c: 3, list: [1] };
  const out = applyPatch(target, { a: 5, b: undefined, list: [9] }, ['a', 'b', 'list']);
  t.strictSame(out, { a: 5, b: 2, c: 3, list: [9] });
  t.strictSame(target, { a: 0, b: 2, c: 3, list: [1] }, 'the target is not changed');
});

t.test('counterUpdate: +1 always, -1 only while positive', async (t) => {
  t.strictSame(counterUpdate('5', 'favouritesCount', 1), { filter: { _id: '5' }, update: { $inc: { favouritesCount: 1 } } });
  t.strictSame(counterUpdate('5', 'favouritesCount', -1), { filter: { _id: '5', favouritesCount: { $gt: 0 } }, update: { $inc: { favouritesCount: -1 } } });
});

t.test('inOrder and newestFirst', async (t) => {
  const items = [{ id: '3' }, { id: '10' }, { id: '2' }];
  t.strictSame(inOrder(['2', '9', '3', '2'], items, (i) => i.id), [{ id: '2' }, { id: '3' }], 'in the order asked, misses and repeats skipped');
  t.strictSame(newestFirst([...items]).map((i) => i.id), ['10', '3', '2'], 'numeric order');
});
