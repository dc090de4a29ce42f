// Fedify's KvStore on the federation repository (plugins/federation/kv.ts), on memory and
// SQLite, with a clock the test moves: TTLs given as Temporal Durations, whole-part prefix
// listing through the async iterable, compare-and-set, and the sweep of expired rows. The same
// non-TTL steps run on Fedify's own MemoryKvStore, which ours must agree with.

import { MemoryKvStore, type KvKey, type KvStore } from '@fedify/fedify';
import { Temporal } from '@js-temporal/polyfill';
import t from 'tap';
import { createMemoryStorage } from '../../../adapters/memory/index.ts';
import { openSqliteStorage } from '../../../adapters/sqlite/index.ts';
import type { Storage } from '../../../core/domain/ports/storage.ts';
import { durationMs, rookeryKvStore } from '../../../plugins/federation/kv.ts';
import { federationStorage } from '../../../plugins/federation/storage/index.ts';
import type { Clock } from '../../../core/domain/ports/clock.ts';

/** Time that moves only when the test moves it. */
class ManualClock implements Clock {
  at = Date.UTC(2026, 0, 1);
  now(): number {
    return this.at;
  }
  advance(ms: number): void {
    this.at += ms;
  }
}

const duration = (like: Record<string, number>) => Temporal.Duration.from(like) as unknown as globalThis.Temporal.Duration;

async function entries(store: KvStore, prefix?: KvKey): Promise<[readonly string[], unknown][]> {
  const out: [readonly string[], unknown][] = [];
  for await (const entry of store.list(prefix)) out.push([entry.key, entry.value]);
  return out.sort(([a], [b]) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
}

const stores: Record<string, () => Storage> = {
  memory: () => createMemoryStorage(),
  sqlite: () => openSqliteStorage({ path: ':memory:' }),
};

t.test('durations in ms', async (t) => {
  t.equal(durationMs(duration({ minutes: 5 })), 300_000);
  t.equal(durationMs(duration({ hours: 1, seconds: 1, milliseconds: 500 })), 3_601_500);
  t.equal(durationMs(duration({ days: 2 })), 172_800_000);
  t.equal(durationMs(duration({ microseconds: 1500 })), 2, 'rounded to the ms');
  t.equal(durationMs(duration({ seconds: -5 })), 0, 'a negative duration is none');
});

for (const [engine, open] of Object.entries(stores)) {
  t.test(`${engine}: get/set/delete/list/cas agree with Fedify's MemoryKvStore`, async (t) => {
    const storage = open();
    t.teardown(() => storage.close());
    const ours = rookeryKvStore(storage.extend(federationStorage));
    const theirs = new MemoryKvStore();
    for (const store of [ours, theirs]) {
      await store.set(['_fedify', 'remoteDocument', 'https://a.example/u/1'], { '@context': 'x', id: 1 });
      await store.set(['_fedify', 'remoteDocument', 'https://a.example/u/2'], [1, 2]);
      await store.set(['_fedify', 'remoteDocumentX'], 'not under the prefix');
      await store.set(['other'], null);
      await store.delete(['_fedify', 'remoteDocument', 'https://a.example/u/2']);
      await store.delete(['never', 'set']);
    }
    for (const key of [['_fedify', 'remoteDocument', 'https://a.example/u/1'], ['_fedify', 'remoteDocument', 'https://a.example/u/2'], ['other'], ['missing']] as KvKey[]) {
      t.strictSame(await ours.get(key), await theirs.get(key), `get ${JSON.stringify(key)}`);
    }
    t.strictSame(await entries(ours, ['_fedify', 'remoteDocument']), await entries(theirs, ['_fedify', 'remoteDocument']), 'list(prefix)');
    t.strictSame(await entries(ours, ['_fedify', 'remoteDocument']), [[['_fedify', 'remoteDocument', 'https://a.example/u/1'], { '@context': 'x', id: 1 }]]);
    t.strictSame(await entries(ours), await entries(theirs), 'list()');
    for (const store of [ours, theirs]) {
      t.equal(await store.cas?.(['n'], undefined, { count: 1, at: 'x' }), true, 'cas from absent');
      t.equal(await store.cas?.(['n'], undefined, { count: 9 }), false, 'cas from absent, no longer absent');
      t.equal(await store.cas?.(['n'], { at: 'x', count: 1 }, { count: 2 }), true, 'cas, deep equal');
      t.equal(await store.cas?.(['n'], { count: 1 }, { count: 3 }), false, 'cas, stale');
      t.strictSame(await store.get(['n']), { count: 2 });
    }
  });

  t.test(`${engine}: a TTL ends the entry when the clock passes it; the sweep removes it`, async (t) => {
    const storage = open();
    t.teardown(() => storage.close());
    const clock = new ManualClock();
    const repo = storage.extend(federationStorage);
    const kv = rookeryKvStore(repo, { clock });
    await kv.set(['cache', 'a'], 'short', { ttl: duration({ minutes: 5 }) });
    await kv.set(['cache', 'b'], 'long', { ttl: duration({ hours: 1 }) });
    await kv.set(['cache', 'c'], 'kept');
    clock.advance(5 * 60_000 - 1);
    t.equal(await kv.get(['cache', 'a']), 'short', 'just before its end');
    clock.advance(1);
    t.equal(await kv.get(['cache', 'a']), undefined, 'at its end: gone');
    t.strictSame((await entries(kv, ['cache'])).map(([k]) => k[1]), ['b', 'c'], 'not listed');
    t.equal(await kv.cas?.(['cache', 'a'], 'short', 'x'), false, 'cas sees it gone');
    clock.advance(3_600_000);
    t.strictSame((await entries(kv, ['cache'])).map(([k]) => k[1]), ['c'], 'the hour-long one too');
    t.equal(await kv.cas?.(['cache', 'b'], undefined, 'again', { ttl: duration({ seconds: 30 }) }), true, 'an expired key counts as absent for cas');
    t.equal(await kv.get(['cache', 'b']), 'again');
    clock.advance(30_000);
    await kv.set(['cache', 'd'], 'a write more than a minute after the last sweep sweeps');
    t.strictSame((await repo.kvList(['cache'], 0)).map((e) => e.key[1]), ['c', 'd'], 'expired rows are gone from the store, not only hidden');
  });
}
