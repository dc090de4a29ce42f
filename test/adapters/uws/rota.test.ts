// Heartbeats and pings go out a turn at a time (adapters/uws/rota.ts): every member once per
// rotation, a burst of members spread over all turns, and a member's turn kept while others
// come and go.

import t from 'tap';
import { everyInTurn, Rota, turnsFor } from '../../../adapters/uws/rota.ts';

const rotation = <T>(rota: Rota<T>): T[][] => Array.from({ length: rota.turns }, () => rota.next());

t.test('a burst of members spreads evenly over the turns, each visited once per rotation', async (t) => {
  const rota = new Rota<number>(4);
  for (let i = 0; i < 10; i++) rota.add(i);
  rota.add(3);
  t.equal(rota.size, 10, 'adding a member again adds nothing');
  const turns = rotation(rota);
  t.strictSame(turns, [[0, 4, 8], [1, 5, 9], [2, 6], [3, 7]]);
  t.strictSame(rotation(rota), turns, 'the next rotation visits the same members in the same turns');
  t.strictSame([...rota].sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 'iterates every member');
});

t.test('a member keeps its turn while others leave and join', async (t) => {
  const rota = new Rota<string>(3);
  for (const m of ['a', 'b', 'c', 'd']) rota.add(m);
  t.strictSame(rotation(rota), [['a', 'd'], ['b'], ['c']]);
  t.equal(rota.delete('a'), true);
  t.equal(rota.delete('a'), false, 'a member removed twice');
  t.equal(rota.has('a'), false);
  rota.add('e');
  t.strictSame(rotation(rota), [['d'], ['b', 'e'], ['c']], 'd stays in the first turn; e joins the next one due for a newcomer');
});

t.test('a member removed during its turn is still handed out once, never again', async (t) => {
  const rota = new Rota<string>(2);
  rota.add('a');
  rota.add('b');
  const turn = rota.next();
  for (const m of turn) rota.delete(m);
  t.strictSame(turn, ['a'], 'the turn is a copy: removing from it while visiting is safe');
  t.strictSame(rotation(rota), [['b'], []]);
});

t.test('turns come at least a millisecond apart', async (t) => {
  t.equal(turnsFor(15_000), 32);
  t.equal(turnsFor(25), 25);
  t.equal(turnsFor(0.5), 1);
});

t.test('everyInTurn visits every member once per interval', async (t) => {
  const rota = new Rota<number>(turnsFor(20));
  for (let i = 0; i < 40; i++) rota.add(i);
  const visits = new Map<number, number>();
  let everyone: () => void = () => undefined;
  const rotationDone = new Promise<void>((done) => (everyone = done));
  const timer = everyInTurn(rota, 20, (m) => {
    visits.set(m, (visits.get(m) ?? 0) + 1);
    if (visits.size === 40) everyone();
  });
  // The timer never holds a process open on its own: here the test waits on it.
  timer.ref();
  await rotationDone;
  clearInterval(timer);
  t.strictSame([...visits.values()].every((n) => n === 1), true, 'each member once before every member was visited');
});
