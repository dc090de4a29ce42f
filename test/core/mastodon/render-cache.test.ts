// The render cache's parts: the bounded map its fragments live in, and the row comparison that
// decides whether a kept fragment may be served.

import t from 'tap';
import { Lru } from '../../../core/mastodon/present/cache/lru.ts';
import { sameData } from '../../../core/mastodon/present/cache/status-text.ts';

t.test('Lru: bounded in entries, the least recently used goes first', async (t) => {
  const lru = new Lru<string, number>(2);
  lru.set('a', 1);
  lru.set('b', 2);
  t.equal(lru.get('a'), 1, 'a used: b is now the oldest');
  lru.set('c', 3);
  t.same([lru.get('a'), lru.get('b'), lru.get('c'), lru.size], [1, undefined, 3, 2]);
  lru.set('c', 4);
  t.same([lru.get('c'), lru.size], [4, 2], 'set again: replaced, not added');
  lru.delete('c');
  t.same([lru.get('c'), lru.size], [undefined, 1]);
  lru.clear();
  t.equal(lru.size, 0);
  t.throws(() => new Lru(0), /at least one entry/);
  const big = new Lru<number, number>(1000);
  for (let i = 0; i < 5000; i++) big.set(i, i);
  t.ok(big.size <= 1000, 'never more than its bound');
  const full = new Lru<number, number>(16);
  for (let i = 0; i < 16; i++) full.set(i, i);
  full.get(0);
  full.set(16, 16);
  t.same([full.size, full.get(0), full.get(1), full.get(2), full.get(3)], [15, 0, undefined, undefined, 3], 'full, it forgets its oldest eighth at once (0 was used: 1 and 2 go)');
});

t.test('sameData: equal rows only, nested arrays and objects included', async (t) => {
  const row = { id: '1', n: 2, flag: false, none: null, list: ['a', 'b'], fields: [{ name: 'x', at: null }] };
  t.ok(sameData(row, structuredClone(row)), 'a copy is the same');
  t.notOk(sameData(row, { ...row, n: 3 }), 'a changed count');
  t.notOk(sameData(row, { ...row, list: ['a'] }), 'a shorter list');
  t.notOk(sameData(row, { ...row, fields: [{ name: 'y', at: null }] }), 'a changed nested field');
  t.notOk(sameData(row, { ...row, extra: 1 }), 'a field more');
  const { flag: _flag, ...fewer } = row;
  t.notOk(sameData(row, fewer), 'a field less');
  t.notOk(sameData(row, { ...row, none: undefined }), 'null is not undefined');
  t.ok(sameData(undefined, undefined), 'two missing rows');
  t.notOk(sameData(row, undefined), 'a row and a missing one');
  t.notOk(sameData([1], { 0: 1 }), 'an array is not an object');
});
