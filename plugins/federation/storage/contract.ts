// The federation plugin's storage contract, on every engine it supports (memory and SQLite in
// test/plugins/federation/storage.test.ts, MongoDB in the two mongodb test files beside it).

import { contractRunner, type ContractTest, type OpenStore, T0 } from 'rookery/testing';
import { federationStorage } from './index.ts';

async function errorOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'no error';
  } catch (error) {
    return `${(error as { status?: number }).status ?? (error as Error).name}: ${(error as Error).message}`;
  }
}

export function federationStorageContract(t: ContractTest, adapterName: string, open: OpenStore): void {
  const { it, shared, durable } = contractRunner(t, `${adapterName}: federation`, open);

  it('kv: get, set, overwrite, delete; values come back as JSON', async (t, w) => {
    const repo = w.s.extend(federationStorage);
    t.equal(await repo.kvGet(['a'], T0), undefined, 'absent: undefined');
    await repo.kvSet(['a'], { n: 1, list: [1, 'two', null], nested: { x: true } }, null);
    t.strictSame(await repo.kvGet(['a'], T0), { n: 1, list: [1, 'two', null], nested: { x: true } });
    await repo.kvSet(['a'], 'second', null);
    t.equal(await repo.kvGet(['a'], T0), 'second', 'overwritten');
    await repo.kvSet(['a', 'b'], 0, null);
    await repo.kvSet(['a', ''], false, null);
    t.equal(await repo.kvGet(['a', 'b'], T0), 0);
    t.equal(await repo.kvGet(['a', ''], T0), false, 'an empty key part is a part');
    await repo.kvDelete(['a']);
    t.equal(await repo.kvGet(['a'], T0), undefined, 'deleted');
    t.equal(await repo.kvGet(['a', 'b'], T0), 0, 'only that key');
    await repo.kvDelete(['nothing']);
    t.pass('deleting an absent key is no error');
    t.equal(await errorOf(repo.kvSet([], 1, null)), 'TypeError: a key is a non-empty array of strings');
    t.equal(await errorOf(repo.kvSet(['x'.repeat(9000)], 1, null)), 'RangeError: a key longer than 8192 characters encoded');
  });

  it('kv: getMany reads many keys at once, in their order, expired and absent ones undefined', async (t, w) => {
    const repo = w.s.extend(federationStorage);
    t.strictSame(await repo.kvGetMany([], T0), [], 'no keys: nothing');
    await repo.kvSet(['m', 'one'], { n: 1 }, null);
    await repo.kvSet(['m', 'two'], [2], null);
    await repo.kvSet(['m', 'old'], 'old', T0 + 10);
    await repo.kvSet(['m'], 'parent', null);
    t.strictSame(
      await repo.kvGetMany([['m', 'two'], ['m', 'absent'], ['m', 'one'], ['m', 'old'], ['m', 'two']], T0 + 10),
      [[2], undefined, { n: 1 }, undefined, [2]],
      'in the order asked, a key asked twice answered twice, the expired one absent, no prefix match',
    );
    t.strictSame(await repo.kvGetMany([['m', 'old']], T0 + 9), ['old'], 'before its time');
    t.equal(await errorOf(repo.kvGetMany([[]], T0)), 'TypeError: a key is a non-empty array of strings');
  });

  it('kv: expiry hides an entry at its time and the sweep removes it', async (t, w) => {
    const repo = w.s.extend(federationStorage);
    await repo.kvSet(['ttl', 'short'], 1, T0 + 1000);
    await repo.kvSet(['ttl', 'long'], 2, T0 + 5000);
    await repo.kvSet(['ttl', 'never'], 3, null);
    t.equal(await repo.kvGet(['ttl', 'short'], T0 + 999), 1, 'before its time');
    t.equal(await repo.kvGet(['ttl', 'short'], T0 + 1000), undefined, 'at its time: gone');
    t.strictSame((await repo.kvList(['ttl'], T0 + 1000)).map((e) => e.key), [['ttl', 'long'], ['ttl', 'never']], 'not listed');
    t.equal(await repo.kvSweep(T0 + 6000), 1, 'the sweep removes the other expired one (get removed the first)');
    t.strictSame((await repo.kvList(['ttl'], T0)).map((e) => e.key), [['ttl', 'never']], 'gone for good, even at an earlier time');
    await repo.kvSet(['ttl', 'never'], 4, T0 + 10);
    t.equal(await repo.kvGet(['ttl', 'never'], T0 + 10), undefined, 'a set replaces the expiry too');
    t.equal(await repo.kvSweep(T0 + 20), 0, 'nothing left to sweep (get removed it)');
  });

  it('kv: list matches whole key parts, in key order; no pattern characters', async (t, w) => {
    const repo = w.s.extend(federationStorage);
    const keys = [['a'], ['a', 'b'], ['a', 'b', 'c'], ['ab'], ['a,b'], ['a"', 'x'], ['a', '%'], ['a', '_'], ['%'], ['b', 'a'], ['a\\', 'y']];
    for (const [i, key] of keys.entries()) await repo.kvSet(key as [string, ...string[]], i, null);
    const listed = async (prefix: string[]) => (await repo.kvList(prefix, T0)).map((e) => JSON.stringify(e.key)).sort();
    t.strictSame(await listed(['a']), ['["a","%"]', '["a","_"]', '["a","b","c"]', '["a","b"]', '["a"]'], 'the key itself and its children only');
    t.strictSame(await listed(['a', 'b']), ['["a","b","c"]', '["a","b"]']);
    t.strictSame(await listed(['%']), ['["%"]'], '% is no wildcard');
    t.strictSame(await listed(['a', '_']), ['["a","_"]'], '_ is no wildcard');
    t.strictSame(await listed(['a"']), ['["a\\"","x"]'], 'a quote in a part');
    t.strictSame(await listed(['zzz']), []);
    t.equal((await repo.kvList([], T0)).length, keys.length, 'no prefix: every entry');
    t.strictSame((await repo.kvList(['a'], T0, 2)).map((e) => e.value), [6, 7], 'limit honoured: the first two in key order');
    t.strictSame((await repo.kvList(['a', 'b'], T0)).map((e) => e.value), [2, 1], "in key order: [\"a\",\"b\",… sorts before [\"a\",\"b\"]");
  });

  it('kv: cas compares deeply, treats expired as absent', async (t, w) => {
    const repo = w.s.extend(federationStorage);
    t.equal(await repo.kvCas(['c'], 'x', 1, null, T0), false, 'absent: only undefined matches');
    t.equal(await repo.kvCas(['c'], undefined, { a: 1, b: [1, 2] }, null, T0), true, 'absent → set');
    t.equal(await repo.kvCas(['c'], undefined, 2, null, T0), false, 'no longer absent');
    t.equal(await repo.kvCas(['c'], { b: [1, 2], a: 1 }, 'next', T0 + 100, T0), true, 'deep-equal with keys in another order');
    t.equal(await repo.kvCas(['c'], { a: 1, b: [1, 2] }, 'again', null, T0), false, 'the old value no longer matches');
    t.equal(await repo.kvGet(['c'], T0), 'next');
    t.equal(await repo.kvCas(['c'], 'next', 'late', null, T0 + 100), false, 'expired: the value does not match');
    t.equal(await repo.kvCas(['c'], undefined, 'fresh', null, T0 + 100), true, 'expired: counts as absent');
    t.equal(await repo.kvGet(['c'], T0 + 1_000_000), 'fresh', 'with no expiry now');
    t.equal(await repo.kvCas(['c'], 'fresh', null, null, T0), true, 'null is a value');
    t.equal(await repo.kvCas(['c'], undefined, 1, null, T0), false, 'null is not absent');
    const results = await Promise.all([1, 2, 3, 4].map((n) => repo.kvCas(['race'], undefined, n, null, T0)));
    t.equal(results.filter(Boolean).length, 1, 'concurrent cas from absent: one wins');
  });

  it('domain blocks: canonical form, subdomains, ports, reasons', async (t, w) => {
    const repo = w.s.extend(federationStorage);
    t.strictSame(await repo.block('Example.COM.', { reason: ' spam ', now: T0 }), { domain: 'example.com', reason: 'spam', createdAt: T0 });
    t.strictSame(await repo.block('Bücher.example', { now: T0 + 1 }), { domain: 'xn--bcher-kva.example', reason: null, createdAt: T0 + 1 }, 'IDN as punycode');
    t.strictSame(await repo.block('example.com', { reason: 'still spam', now: T0 + 5 }), { domain: 'example.com', reason: 'still spam', createdAt: T0 }, 'again: reason replaced, first time kept');
    t.strictSame(await repo.block('localhost:4323', { now: T0 + 2 }), { domain: 'localhost:4323', reason: null, createdAt: T0 + 2 });
    t.strictSame((await repo.listBlocks()).map((b) => b.domain), ['example.com', 'localhost:4323', 'xn--bcher-kva.example'], 'listed by domain');
    for (const [host, blocked] of [
      ['example.com', true], ['EXAMPLE.com', true], ['sub.example.com', true], ['a.b.example.com', true], ['example.com:8443', true],
      ['notexample.com', false], ['example.co', false], ['com', false], ['www.bücher.example', true], ['xn--bcher-kva.example', true],
      ['localhost:4323', true], ['localhost:4324', false], ['localhost', false], ['not a domain', false], ['', false],
    ] as const) {
      t.equal(await repo.isBlocked(host), blocked, `${host}: ${blocked ? 'blocked' : 'not blocked'}`);
    }
    t.equal(await repo.unblock('EXAMPLE.com'), true, 'unblock, any case');
    t.equal(await repo.unblock('example.com'), false, 'not blocked any more');
    t.equal(await repo.isBlocked('sub.example.com'), false);
    t.equal(await errorOf(repo.block('exa mple.com')), '422: Invalid domain: "exa mple.com"');
    t.equal(await errorOf(repo.block('https://example.com/')), '422: Invalid domain: "https://example.com/"');
    t.equal(await errorOf(repo.block('-bad.example')), '422: Invalid domain: "-bad.example"');
    t.equal(await errorOf(repo.unblock('a..b')), '422: Invalid domain: "a..b"');
    t.equal(await errorOf(repo.block('example.org', { reason: 'x'.repeat(1001) })), '422: The reason is longer than 1000 characters');
    t.equal((await repo.listBlocks()).length, 2, 'nothing written by refused blocks');
  });

  it('domain blocks with settings: kept beside the block, only suspensions stop federation', async (t, w) => {
    const repo = w.s.extend(federationStorage);
    const plain = { severity: 'suspend', rejectMedia: false, rejectReports: false, publicComment: null, obfuscate: false } as const;
    await repo.block('cli.example', { reason: 'by hand', now: T0 });
    const silenced = await repo.blockWithSettings('loud.example', { ...plain, severity: 'silence', rejectMedia: true, publicComment: 'noisy' }, { reason: 'staff only', now: T0 + 1 });
    t.strictSame(silenced, { domain: 'loud.example', reason: 'staff only', createdAt: T0 + 1, settings: { ...plain, severity: 'silence', rejectMedia: true, publicComment: 'noisy' } });
    await repo.blockWithSettings('noop.example', { ...plain, severity: 'noop' }, { now: T0 + 2 });
    t.strictSame(
      (await repo.listBlocksWithSettings()).map((b) => [b.domain, b.settings.severity]),
      [['cli.example', 'suspend'], ['loud.example', 'silence'], ['noop.example', 'noop']],
      'a block the CLI made is a suspension',
    );
    t.strictSame((await repo.listBlocks()).map((b) => Object.keys(b)), [['domain', 'reason', 'createdAt'], ['domain', 'reason', 'createdAt'], ['domain', 'reason', 'createdAt']], 'listBlocks as before');
    t.equal(await repo.isBlocked('www.cli.example'), true);
    t.equal(await repo.isBlocked('loud.example'), false, 'silence does not stop federation');
    t.equal(await repo.isBlocked('noop.example'), false);
    const raised = await repo.blockWithSettings('loud.example', { ...silenced.settings, severity: 'suspend' }, { reason: 'staff only', now: T0 + 9 });
    t.strictSame([raised.createdAt, raised.settings.severity, raised.settings.publicComment], [T0 + 1, 'suspend', 'noisy'], 'settings replaced, first time kept');
    t.equal(await repo.isBlocked('loud.example'), true);
    await repo.block('loud.example', { reason: 'again by hand', now: T0 + 10 });
    t.equal((await repo.listBlocksWithSettings()).find((b) => b.domain === 'loud.example')?.settings.publicComment, 'noisy', 'the CLI keeps the settings');
    await repo.block('noop.example', { now: T0 + 11 });
    t.equal(await repo.isBlocked('noop.example'), true, 'blocking a milder block suspends it');
    t.strictSame((await repo.listBlocksWithSettings()).find((b) => b.domain === 'noop.example')?.settings.severity, 'suspend');
  });

  durable('kv entries and blocks survive a reopen', async (t, w) => {
    await w.s.extend(federationStorage).kvSet(['keep'], { v: 1 }, null);
    await w.s.extend(federationStorage).block('kept.example', { now: T0 });
    await w.reopen();
    const repo = w.s.extend(federationStorage);
    t.strictSame(await repo.kvGet(['keep'], T0), { v: 1 });
    t.equal(await repo.isBlocked('www.kept.example'), true);
  });

  shared('kv: a list read again shows every change since, made here or elsewhere, and what expired meanwhile', async (t, w, other) => {
    const [a, b] = [w.s.extend(federationStorage), other.extend(federationStorage)];
    const listed = async (now: number) => (await a.kvList(['again'], now)).map((e) => [e.key[1], e.value]);
    await a.kvSet(['again', 'one'], 1, null);
    t.strictSame([await listed(T0), await listed(T0)], [[['one', 1]], [['one', 1]]], 'set here, listed twice');
    await b.kvSet(['again', 'two'], 2, T0 + 100);
    t.strictSame(await listed(T0), [['one', 1], ['two', 2]], 'set on another connection');
    t.strictSame(await listed(T0 + 100), [['one', 1]], 'expired at its time, with nothing written since');
    t.strictSame(await listed(T0), [['one', 1], ['two', 2]], 'and listed again for an earlier time');
    await b.kvSet(['again', 'one'], 'changed', null);
    t.strictSame(await listed(T0), [['one', 'changed'], ['two', 2]], 'changed on another connection');
    await a.kvDelete(['again', 'two']);
    t.strictSame(await listed(T0), [['one', 'changed']], 'deleted here');
    const first = await a.kvList(['again'], T0);
    (first[0] as { value: unknown }).value = 'changed by a caller';
    t.strictSame(await listed(T0), [['one', 'changed']], 'changing what a read returned changes no later read');
  });

  shared('cas raced across two connections: one wins', async (t, w, other) => {
    const [a, b] = [w.s.extend(federationStorage), other.extend(federationStorage)];
    await a.kvSet(['lock'], 0, null);
    const results = await Promise.all([a.kvCas(['lock'], 0, 'a', null, T0), b.kvCas(['lock'], 0, 'b', null, T0)]);
    t.equal(results.filter(Boolean).length, 1, 'exactly one swap');
    t.equal(await b.kvGet(['lock'], T0), results[0] ? 'a' : 'b', 'the winner’s value');
  });
}
