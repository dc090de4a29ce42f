import t from 'tap';
import { bool, int, obj, page, present, str, strArray } from '../../../core/domain/params.ts';

t.test('booleans as Rails casts them', async (t) => {
  for (const value of ['true', '1', 't', 'on', 'yes', true, 1]) t.equal(bool({ x: value }, 'x'), true, `${String(value)} → true`);
  for (const value of ['false', '0', 'f', 'F', 'FALSE', 'off', 'OFF', false, 0]) t.equal(bool({ x: value }, 'x'), false, `${String(value)} → false`);
  t.equal(bool({}, 'x'), undefined);
  t.equal(bool({ x: '' }, 'x'), undefined, 'an empty value means unset');
});

t.test('strings, integers, arrays, objects', async (t) => {
  t.equal(str({ x: 'a' }, 'x'), 'a');
  t.equal(str({ x: 5 }, 'x'), '5', 'JSON numbers read as text');
  t.equal(str({ x: ['a'] }, 'x'), undefined, 'an array is not a string');
  t.equal(int({ x: ' 42 ' }, 'x'), 42);
  t.equal(int({ x: '4.2' }, 'x'), undefined);
  t.equal(int({ x: -3 }, 'x'), -3);
  t.same(strArray({ x: ['1', '', '2'] }, 'x'), ['1', '2']);
  t.same(strArray({ x: 'solo' }, 'x'), ['solo']);
  t.same(strArray({ x: { 0: 'a', 1: 'b' } }, 'x'), ['a', 'b'], 'qs objects with index keys');
  t.same(obj({ poll: { options: ['a'] } }, 'poll'), { options: ['a'] });
  t.equal(obj({ poll: 'x' }, 'poll'), undefined);
  t.equal(present({ m: [] }, 'm'), false);
  t.equal(present({ m: [''] }, 'm'), false);
  t.equal(present({ m: ['1'] }, 'm'), true);
  t.equal(present({ m: '' }, 'm'), false);
});

t.test('paging parameters', async (t) => {
  t.same(page({}, 20, 40), { maxId: undefined, sinceId: undefined, minId: undefined, limit: 20 });
  t.equal(page({ limit: '100' }, 20, 40).limit, 40, 'clamped to the maximum');
  t.equal(page({ limit: '-5' }, 20, 40).limit, 5, 'abs()');
  t.equal(page({ limit: '0' }, 20, 40).limit, 0);
  t.equal(page({ limit: 'lots' }, 20, 40).limit, 20, 'not a number: the default');
  t.equal(page({ max_id: '123' }, 20, 40).maxId, '123');
  t.equal(page({ max_id: 'abc' }, 20, 40).maxId, undefined, 'a cursor that is not an id is ignored');
  t.equal(page({ min_id: '7', since_id: '8' }, 20, 40).minId, '7');
});
