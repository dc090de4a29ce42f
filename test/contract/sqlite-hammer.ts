// Cross-process atomicity for the SQLite adapter. sqlite.test.ts prepares a store file, starts
// this script as a child process on the same file, and both processes run hammer() from the same
// instant: they flip the same favourites, follows, boosts and pins back and forth in their own
// random order, bump one marker, and race for the same once-only resources (votes, codes,
// scheduled claims, idempotency keys). The parent then checks the invariants: every counter
// equals adds minus removes equals the rows that exist, and every once-only thing happened once.
//
// Child usage: node sqlite-hammer.ts <db path> <setup JSON>; prints "ready", waits for a line
// "go <epoch ms>" on stdin, starts at that instant, prints "result <JSON>" and exits.
//
// Second mode, for deterministic checks: node sqlite-hammer.ts hold <db path> <ms> <sql> opens
// the file directly, runs `sql` inside BEGIN IMMEDIATE, prints "holding", keeps the write
// transaction open for <ms>, commits, prints "committed" and exits. While it holds, the parent
// calls an adapter method whose decision depends on what `sql` writes: a correct adapter waits
// for the commit and then decides on the new state.

import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import type { Id } from '../../core/domain/model.ts';
import type { Storage } from '../../core/domain/ports/storage.ts';
import { openSqliteStorage } from '../../adapters/sqlite/index.ts';
import { IdSeq, POST, T0, boost, follow, mark, status } from '../../adapters/testing/fixtures.ts';
import { pollStorage } from '../../plugins/polls/storage/index.ts';
import { scheduledStorage } from '../../plugins/scheduled/storage/index.ts';

export interface HammerSetup {
  authorId: Id;
  statusId: Id;
  pollId: Id;
  /** Few accounts, flipped many times by both processes: favourite, follow and boost cycles. */
  cyclingFanIds: Id[];
  /** Statuses of the author pinned and unpinned by both processes, with at most PIN_MAX pinned. */
  pinTargetIds: Id[];
  /** Once-only resources, each tried by both processes in their own random order. */
  voterIds: Id[];
  codeHashes: string[];
  idempotencyKeys: string[];
  rounds: number;
  /** Each process draws its new ids from its own range above this. */
  idBase: string;
}

export const PIN_MAX = 2;

export interface HammerResult {
  favouriteAdded: number;
  favouriteRemoved: number;
  followAdded: number;
  followRemoved: number;
  boostAdded: number;
  boostRemoved: number;
  pinAdded: number;
  pinRemoved: number;
  voted: number;
  created: number;
  codes: Id[];
  claimed: Id[];
  markerVersions: number[];
  startedAt: number;
  endedAt: number;
}

/** A small seeded generator, so a failing run can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(items: readonly T[], rnd: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

export async function hammer(storage: Storage, setup: HammerSetup, role: 'parent' | 'child', startAt: number): Promise<HammerResult> {
  const seq = new IdSeq(BigInt(setup.idBase) + (role === 'parent' ? 1_000_000n : 2_000_000n));
  const rnd = random(role === 'parent' ? 1 : 2);
  const r: HammerResult = {
    favouriteAdded: 0,
    favouriteRemoved: 0,
    followAdded: 0,
    followRemoved: 0,
    boostAdded: 0,
    boostRemoved: 0,
    pinAdded: 0,
    pinRemoved: 0,
    voted: 0,
    created: 0,
    codes: [],
    claimed: [],
    markerVersions: [],
    startedAt: 0,
    endedAt: 0,
  };
  const original = status(setup.statusId, setup.authorId);
  const once = {
    voters: shuffled(setup.voterIds, rnd),
    codes: shuffled(setup.codeHashes, rnd),
    keys: shuffled(setup.idempotencyKeys, rnd),
  };
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
  r.startedAt = Date.now();
  for (let round = 0; round < setup.rounds; round += 1) {
    // SQLite's busy handler is not fair: a process waiting for the lock sleeps while the other
    // takes it again and again. A pause per round lets both take turns, so they really race.
    await new Promise((resolve) => setTimeout(resolve, 1));
    for (const fan of shuffled(setup.cyclingFanIds, rnd)) {
      if (rnd() < 0.5) {
        if (await storage.interactions.favourite(mark(seq.next(), fan, setup.statusId))) r.favouriteAdded += 1;
      } else if (await storage.interactions.unfavourite(fan, setup.statusId)) r.favouriteRemoved += 1;
      if (rnd() < 0.5) {
        if ((await storage.relationships.follow(follow(seq.next(), fan, setup.authorId))) === 'created') r.followAdded += 1;
      } else if (await storage.relationships.unfollow(fan, setup.authorId)) r.followRemoved += 1;
      if (rnd() < 0.5) {
        if ((await storage.statuses.reblog(boost(seq.next(), fan, original))).created) r.boostAdded += 1;
      } else {
        const b = await storage.statuses.findReblog(fan, setup.statusId);
        // The other process may delete it first: then delete answers null and nothing is counted.
        if (b && (await storage.statuses.delete(b.id, T0 + round, POST))) r.boostRemoved += 1;
      }
    }
    const target = setup.pinTargetIds[Math.floor(rnd() * setup.pinTargetIds.length)] as Id;
    if (rnd() < 0.6) {
      if ((await storage.interactions.pin(mark(seq.next(), setup.authorId, target), PIN_MAX)) === 'added') r.pinAdded += 1;
    } else if (await storage.interactions.unpin(setup.authorId, target)) r.pinRemoved += 1;
    r.markerVersions.push((await storage.markers.set(setup.authorId, 'home', setup.statusId, Date.now())).version);
    for (const s of await storage.extend(scheduledStorage).claimDue(T0 + 3_600_000, 600_000, 1)) r.claimed.push(s.id);
    const voter = once.voters[round];
    if (voter !== undefined && (await storage.extend(pollStorage).vote(setup.pollId, voter, [round % 3])) === 'voted') r.voted += 1;
    const codeHash = once.codes[round];
    if (codeHash !== undefined) {
      const c = await storage.oauth.consumeCode(codeHash, T0 + 1);
      if (c) r.codes.push(c.id);
    }
    const key = once.keys[round];
    if (key !== undefined) {
      const c = await storage.statuses.create(status(seq.next(), setup.authorId), POST, { idempotency: { key, notBefore: T0 } });
      if (c.created) r.created += 1;
    }
  }
  r.endedAt = Date.now();
  return r;
}

async function child(path: string, setup: HammerSetup): Promise<void> {
  const storage = openSqliteStorage({ path });
  const lines = createInterface({ input: process.stdin });
  const go = new Promise<number>((resolve) => lines.once('line', (line) => resolve(Number(line.replace(/^go /, '')))));
  process.stdout.write('ready\n');
  const startAt = await go;
  lines.close();
  const result = await hammer(storage, setup, 'child', startAt);
  await storage.close();
  process.stdout.write(`result ${JSON.stringify(result)}\n`);
}

async function hold(path: string, ms: number, sql: string): Promise<void> {
  const db = new DatabaseSync(path, { timeout: 5000 });
  db.exec('BEGIN IMMEDIATE');
  db.exec(sql);
  process.stdout.write('holding\n');
  await new Promise((resolve) => setTimeout(resolve, ms));
  db.exec('COMMIT');
  db.close();
  process.stdout.write('committed\n');
}

const isMain = process.argv[1] === fileURLToPath(import.meta.url);
if (isMain && process.argv.length <= 2) {
  // Run without arguments (tap does so when given the whole directory): not a test by itself.
  process.stdout.write('1..0 # helper process of sqlite.test.ts, not a test file\n');
} else if (isMain && process.argv[2] === 'hold') {
  const [, path, ms, sql] = process.argv.slice(2);
  if (path === undefined || ms === undefined || sql === undefined) {
    process.stderr.write('usage: sqlite-hammer.ts hold <db path> <ms> <sql>\n');
    process.exit(2);
  }
  hold(path, Number(ms), sql).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
} else if (isMain) {
  const [path, setup] = process.argv.slice(2);
  if (path === undefined || setup === undefined) {
    process.stderr.write('usage: sqlite-hammer.ts <db path> <setup JSON>\n');
    process.exit(2);
  }
  child(path, JSON.parse(setup) as HammerSetup).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
