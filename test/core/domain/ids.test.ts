import t from 'tap';
import { compareIds, idAt, idTime, isId, smallIds, snowflakeIds } from '../../../core/domain/ids.ts';

t.test('snowflake ids: time in the high bits, increasing, decimal strings', async (t) => {
  let now = Date.UTC(2024, 5, 1);
  const ids = snowflakeIds({ now: () => now }, () => 0x1234);
  const a = ids.next();
  const b = ids.next();
  t.match(a, /^[1-9][0-9]{17}$/, 'about 18 decimal digits');
  t.equal(idTime(a), now, 'the time is recoverable');
  t.equal(compareIds(a, b), -1, 'same millisecond: still increasing');
  now -= 5000;
  const c = ids.next();
  t.equal(compareIds(b, c), -1, 'a clock stepping back does not make ids go back');
  now += 10_000;
  t.equal(compareIds(c, ids.next()), -1);
  t.ok(BigInt(a) > 2n ** 53n, 'beyond what a JS number holds exactly, which is why ids are strings');
});

t.test('65,536 ids in one millisecond borrow the next one and stay unique', async (t) => {
  const ids = snowflakeIds({ now: () => 1_700_000_000_000 }, () => 0x7fff);
  const seen = new Set<string>();
  let previous = '0';
  let ordered = true;
  for (let i = 0; i < 70_000; i++) {
    const id = ids.next();
    if (compareIds(previous, id) !== -1) ordered = false;
    previous = id;
    seen.add(id);
  }
  t.equal(seen.size, 70_000);
  t.ok(ordered);
});

t.test('compareIds is numeric, not lexicographic', async (t) => {
  t.equal(compareIds('9', '10'), -1);
  t.equal(compareIds('10', '9'), 1);
  t.equal(compareIds('123', '123'), 0);
  t.equal(compareIds('109404970108594430', '109404970108594431'), -1);
});

t.test('isId accepts positive 64-bit decimals only', async (t) => {
  t.ok(isId('1'));
  t.ok(isId('9223372036854775807'));
  t.notOk(isId('9223372036854775808'), 'beyond a signed 64-bit column');
  t.notOk(isId('0'));
  t.notOk(isId('012'));
  t.notOk(isId('abc'));
  t.notOk(isId('-5'));
  t.notOk(isId(''), 'empty');
  t.notOk(isId('12345678901234567890'), 'twenty digits');
  t.ok(isId('1000000000000000000'), 'nineteen digits below the largest');
  t.notOk(isId('9999999999999999999'), 'nineteen digits above it');
  t.notOk(isId('12a'));
  t.notOk(isId('1 2'));
  t.notOk(isId('١٢'), 'digits of another script');
  t.notOk(isId(12));
  t.notOk(isId(''));
});

t.test('idAt gives the smallest id of an instant', async (t) => {
  const ms = Date.UTC(2024, 0, 1);
  t.equal(idTime(idAt(ms)), ms);
  t.equal(compareIds(idAt(ms), snowflakeIds({ now: () => ms }, () => 0).next()), 0);
});

t.test('small ids stay safe JSON integers', async (t) => {
  const ids = smallIds({ now: () => Date.UTC(2100, 0, 1) }, () => 0x7fff);
  const id = Number(ids.next());
  t.ok(Number.isSafeInteger(id));
  t.equal(compareIds(String(id), ids.next()), -1);
});

t.test('processes with an id node each never collide, whatever the timing', async (t) => {
  const clock = { now: () => 1_700_000_000_000 };
  // The worst case without nodes: the same millisecond and the same random start.
  const plain = [snowflakeIds(clock, () => 5), snowflakeIds(clock, () => 5)];
  t.equal(plain[0]?.next(), plain[1]?.next(), 'without nodes two processes can make the same id');
  const seen = new Set<string>();
  const nodes = [0, 1, 63].map((node) => snowflakeIds(clock, () => 5, node));
  for (let i = 0; i < 3000; i++) for (const ids of nodes) seen.add(ids.next());
  t.equal(seen.size, 9000, '3,000 ids from each of three nodes in one millisecond (borrowing the next ones): all distinct');
  const first = snowflakeIds(clock, () => 0, 63).next();
  t.equal(BigInt(first) & 0xffffn, 63n << 10n, 'the node is in the six bits above a 10-bit sequence');
  t.equal(idTime(first), clock.now());
  const small = [smallIds(clock, () => 9, 2), smallIds(clock, () => 9, 3)];
  t.not(small[0]?.next(), small[1]?.next(), 'small ids too');
  for (const node of [-1, 64, 1.5, Number.NaN]) {
    t.throws(() => snowflakeIds(clock, () => 0, node), { message: `an id node is a whole number from 0 to 63, got ${node}` });
  }
});
