// rookery/memory, for tests and demos: the SQLite engine on a private in-memory database (the
// storage contract runs on that in sqlite.test.ts), so every plugin with SQLite storage works on
// it, and each store is its own.

import t from 'tap';
import { createInProcessBus, createMemoryStorage } from '../../adapters/memory/index.ts';
import { account, status, POST } from '../../adapters/testing/index.ts';
import { pollStorage } from '../../plugins/polls/storage/index.ts';

t.test('a store in memory is SQLite, private to itself', async (t) => {
  const one = createMemoryStorage();
  const two = createMemoryStorage();
  t.teardown(async () => {
    await one.close();
    await two.close();
  });
  t.equal(one.engine, 'sqlite');
  await one.accounts.create(account('1'));
  const created = await one.statuses.create(status('2', '1', { text: 'hello' }), POST);
  t.equal(created.created, true);
  t.equal((await one.statuses.get('2'))?.text, 'hello');
  t.equal((await one.accounts.get('1'))?.statusesCount, 1, 'with its counters');
  t.equal(await two.statuses.get('2'), null, 'another store sees none of it');
  t.same(await one.extend(pollStorage).getMany(['3']), [], "a plugin's SQLite storage works on it");
});

t.test('the in-process bus comes with it', async (t) => {
  const bus = createInProcessBus();
  const seen: unknown[] = [];
  await bus.subscribe('timeline:public', (message) => void seen.push(message));
  await bus.publish('timeline:public', { event: 'delete', payload: '2' });
  t.same(seen, [{ event: 'delete', payload: '2' }]);
  await bus.close();
});
