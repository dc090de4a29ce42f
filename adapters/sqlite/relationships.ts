import type { RelationshipFacts, RelationshipRepository } from '../../core/domain/ports/storage.ts';
import type { Block, Follow, FollowRequest, Id, Mute } from '../../core/domain/model.ts';
import { bumpAccount } from './accounts.ts';
import { bool, flag, id, int, intOrNull, jsonOrNull, jsonText, key, keyList, paged, text, type Db, type Row } from './db.ts';
import { writeWithOutbox } from './jobs.ts';
import { RowCache } from './cache.ts';

type FollowTable = 'follows' | 'follow_requests';

const FOLLOW_COLUMNS = 'id, account_id, target_account_id, show_reblogs, notify, languages, created_at';
/** The same columns of `follows f`, for a join. */
const FOLLOWS_F = FOLLOW_COLUMNS.split(', ').map((c) => `f.${c}`).join(', ');

function followFromRow(r: Row): Follow {
  return {
    id: id(r.id),
    accountId: id(r.account_id),
    targetAccountId: id(r.target_account_id),
    showReblogs: bool(r.show_reblogs),
    notify: bool(r.notify),
    languages: jsonOrNull(r.languages),
    createdAt: int(r.created_at),
  };
}

function blockFromRow(r: Row): Block {
  return { id: id(r.id), accountId: id(r.account_id), targetAccountId: id(r.target_account_id), createdAt: int(r.created_at) };
}

function muteFromRow(r: Row): Mute {
  return {
    id: id(r.id),
    accountId: id(r.account_id),
    targetAccountId: id(r.target_account_id),
    notifications: bool(r.notifications),
    expiresAt: intOrNull(r.expires_at),
    createdAt: int(r.created_at),
  };
}

/** Authors whose local followers are kept, and the longest list kept: at most a few hundred
 * thousand follows in memory. */
const LOCAL_FOLLOWER_LISTS = 256;
const LONGEST_KEPT_FOLLOWER_LIST = 1_000;

const languagesText = (languages: string[] | null) => (languages === null ? null : jsonText(languages));

function getFollowRow(db: Db, table: FollowTable, accountId: Id, targetId: Id): Follow | null {
  const r = db.get(`SELECT ${FOLLOW_COLUMNS} FROM ${table} WHERE account_id = ? AND target_account_id = ?`, key(accountId), key(targetId));
  return r ? followFromRow(r) : null;
}

function insertFollowRow(db: Db, table: FollowTable, f: Follow): void {
  db.run(
    `INSERT INTO ${table} (${FOLLOW_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    key(f.id), key(f.accountId), key(f.targetAccountId), flag(f.showReblogs), flag(f.notify), languagesText(f.languages), f.createdAt,
  );
}

function updateFollowOptions(db: Db, table: FollowTable, f: Follow): void {
  db.run(
    `UPDATE ${table} SET show_reblogs = ?, notify = ?, languages = ? WHERE account_id = ? AND target_account_id = ?`,
    flag(f.showReblogs), flag(f.notify), languagesText(f.languages), key(f.accountId), key(f.targetAccountId),
  );
}

/** Removes the follow and takes one from both counters; true when there was one. */
function removeFollow(db: Db, accountId: Id, targetId: Id): boolean {
  if (db.run('DELETE FROM follows WHERE account_id = ? AND target_account_id = ?', key(accountId), key(targetId)) === 0) return false;
  bumpAccount(db, accountId, 'following_count', -1);
  bumpAccount(db, targetId, 'followers_count', -1);
  return true;
}

function removeRequest(db: Db, accountId: Id, targetId: Id): boolean {
  return db.run('DELETE FROM follow_requests WHERE account_id = ? AND target_account_id = ?', key(accountId), key(targetId)) > 0;
}

function copyFollow<F extends Follow | null>(follow: F): F {
  return (follow === null ? null : { ...follow, languages: follow.languages === null ? null : [...follow.languages] }) as F;
}

/** A copy the caller may change without changing what is kept. */
function copyFacts(facts: RelationshipFacts): RelationshipFacts {
  return { ...facts, following: copyFollow(facts.following), requested: copyFollow(facts.requested), muting: facts.muting === null ? null : { ...facts.muting } };
}

export function relationshipRepository(db: Db): RelationshipRepository {
  // What one account is to another (follows, requests, blocks, mutes, domain blocks): read by
  // every signed-in view of another's status, kept until one of those tables changes (here or,
  // through data_version, in another process), so a block or a mute counts at once. Kept per
  // pair, not per list asked for: a home timeline asks about a different set of authors in each
  // round of its page, mostly the same accounts, and each set read again cost it a fifth of its
  // time.
  const facts = new RowCache<string, RelationshipFacts>(db, ['follows', 'follow_requests', 'mutes', 'blocks', 'domain_blocks', 'accounts'], 50_000, copyFacts);
  // An author's local followers: read by two jobs of every publish (who is told, whose home
  // it reaches), each time the same list, and at 100 followers those two reads were nearly half
  // of a publish's time. Kept until `follows` changes: the join's other side, an account being
  // local, never changes, and a removed account takes its follows with it (accounts.ts). Long
  // lists are not kept: they would hold memory a large instance needs more elsewhere.
  const localFollowerLists = new RowCache<Id, Follow[]>(db, 'follows', LOCAL_FOLLOWER_LISTS, (list) => list.map(copyFollow));
  // The few of them who rang the bell: read by the notifications job of every publish.
  const notifiedFollowerLists = new RowCache<Id, Follow[]>(db, 'follows', LOCAL_FOLLOWER_LISTS, (list) => list.map(copyFollow));
  /** The target's follows by local accounts, newest first, narrowed by `also` (fixed SQL). */
  const localFollows = (kept: RowCache<Id, Follow[]>, targetId: Id, also: '' | ' AND f.notify = 1'): Follow[] => {
    const found = kept.get(targetId);
    if (found !== undefined) return found;
    const list = db
      .all(
        `SELECT ${FOLLOWS_F} FROM follows f
         JOIN accounts a ON a.id = f.account_id AND a.domain IS NULL
         WHERE f.target_account_id = ?${also} ORDER BY f.id DESC`,
        key(targetId),
      )
      .map(followFromRow);
    if (list.length <= LONGEST_KEPT_FOLLOWER_LIST) kept.set(targetId, list);
    return list;
  };
  /** The facts as stored now. */
  const readRelationships = (accountId: Id, targetIds: readonly Id[]): RelationshipFacts[] => {
    const me = key(accountId);
    const others = keyList(targetIds);
    const IN = 'IN (SELECT value FROM json_each(?))';
    return db.read(() => {
      const following = new Map<Id, Follow>();
      for (const r of db.all(`SELECT ${FOLLOW_COLUMNS} FROM follows WHERE account_id = ? AND target_account_id ${IN}`, me, others)) {
        const f = followFromRow(r);
        following.set(f.targetAccountId, f);
      }
      const requested = new Map<Id, FollowRequest>();
      for (const r of db.all(`SELECT ${FOLLOW_COLUMNS} FROM follow_requests WHERE account_id = ? AND target_account_id ${IN}`, me, others)) {
        const f = followFromRow(r);
        requested.set(f.targetAccountId, f);
      }
      const muting = new Map<Id, Mute>();
      for (const r of db.all(
        `SELECT id, account_id, target_account_id, notifications, expires_at, created_at FROM mutes WHERE account_id = ? AND target_account_id ${IN}`,
        me, others,
      )) {
        const m = muteFromRow(r);
        muting.set(m.targetAccountId, m);
      }
      const ids = (sql: string): Set<Id> => new Set(db.all(sql, me, others).map((r) => id(r.v)));
      const followedBy = ids(`SELECT account_id AS v FROM follows WHERE target_account_id = ? AND account_id ${IN}`);
      const requestedBy = ids(`SELECT account_id AS v FROM follow_requests WHERE target_account_id = ? AND account_id ${IN}`);
      const blocking = ids(`SELECT target_account_id AS v FROM blocks WHERE account_id = ? AND target_account_id ${IN}`);
      const blockedBy = ids(`SELECT account_id AS v FROM blocks WHERE target_account_id = ? AND account_id ${IN}`);
      const domainBlocked = ids(
        `SELECT a.id AS v FROM accounts a JOIN domain_blocks d ON d.account_id = ? AND d.domain = lower(a.domain) WHERE a.id ${IN}`,
      );
      return targetIds.map(
        (targetId): RelationshipFacts => ({
          targetId,
          following: following.get(targetId) ?? null,
          followedBy: followedBy.has(targetId),
          requested: requested.get(targetId) ?? null,
          requestedBy: requestedBy.has(targetId),
          blocking: blocking.has(targetId),
          blockedBy: blockedBy.has(targetId),
          muting: muting.get(targetId) ?? null,
          domainBlocking: domainBlocked.has(targetId),
        }),
      );
    });
  };
  return {
    async follow(f, outbox) {
      return writeWithOutbox(db, outbox, () => {
        removeRequest(db, f.accountId, f.targetAccountId);
        if (getFollowRow(db, 'follows', f.accountId, f.targetAccountId)) {
          updateFollowOptions(db, 'follows', f);
          return 'updated';
        }
        insertFollowRow(db, 'follows', f);
        bumpAccount(db, f.accountId, 'following_count', 1);
        bumpAccount(db, f.targetAccountId, 'followers_count', 1);
        return 'created';
      });
    },
    async unfollow(accountId, targetId, outbox) {
      return writeWithOutbox(db, outbox, () => removeFollow(db, accountId, targetId));
    },
    async getFollow(accountId, targetId) {
      return getFollowRow(db, 'follows', accountId, targetId);
    },
    async requestFollow(r: FollowRequest, outbox) {
      return writeWithOutbox(db, outbox, () => {
        if (getFollowRow(db, 'follows', r.accountId, r.targetAccountId)) return 'exists';
        if (getFollowRow(db, 'follow_requests', r.accountId, r.targetAccountId)) {
          updateFollowOptions(db, 'follow_requests', r);
          return 'exists';
        }
        insertFollowRow(db, 'follow_requests', r);
        return 'created';
      });
    },
    async cancelFollowRequest(accountId, targetId, outbox) {
      return writeWithOutbox(db, outbox, () => removeRequest(db, accountId, targetId));
    },
    async followRequestsTo(targetId, page) {
      return paged(db, `SELECT ${FOLLOW_COLUMNS} FROM follow_requests`, 'target_account_id = ?', [key(targetId)], 'id', page, followFromRow);
    },
    async followRequestsBy(accountId, page) {
      return paged(db, `SELECT ${FOLLOW_COLUMNS} FROM follow_requests`, 'account_id = ?', [key(accountId)], 'id', page, followFromRow);
    },
    async followersOf(targetId, page) {
      return paged(db, `SELECT ${FOLLOW_COLUMNS} FROM follows`, 'target_account_id = ?', [key(targetId)], 'id', page, followFromRow);
    },
    async followingOf(accountId, page) {
      return paged(db, `SELECT ${FOLLOW_COLUMNS} FROM follows`, 'account_id = ?', [key(accountId)], 'id', page, followFromRow);
    },
    async remoteFollowersOf(targetId, page) {
      return paged(db, `SELECT ${FOLLOWS_F} FROM follows f JOIN accounts a ON a.id = f.account_id AND a.domain IS NOT NULL`, 'f.target_account_id = ?', [key(targetId)], 'f.id', page, followFromRow);
    },
    async familiarFollows(viewerId, targetIds, limit) {
      if (targetIds.length === 0 || limit <= 0) return [];
      return db
        .all(
          `SELECT ${FOLLOW_COLUMNS} FROM follows
           WHERE target_account_id IN (SELECT value FROM json_each(?))
             AND account_id IN (SELECT target_account_id FROM follows WHERE account_id = ?)
           ORDER BY id DESC LIMIT +?`,
          keyList(targetIds), key(viewerId), Math.trunc(limit),
        )
        .map(followFromRow);
    },
    async suggestions(viewerId, limit) {
      if (limit <= 0) return [];
      const me = key(viewerId);
      // What every source leaves out, for the candidate `a`.
      const eligible = `a.discoverable = 1 AND a.id <> ?1
        AND NOT EXISTS (SELECT 1 FROM follows x WHERE x.account_id = ?1 AND x.target_account_id = a.id)
        AND NOT EXISTS (SELECT 1 FROM follow_requests x WHERE x.account_id = ?1 AND x.target_account_id = a.id)
        AND NOT EXISTS (SELECT 1 FROM suggestion_dismissals x WHERE x.account_id = ?1 AND x.target_account_id = a.id)`;
      return db.read(() => {
        const friends = db
          .all(
            `SELECT a.id AS id FROM follows f1 JOIN follows f2 ON f2.account_id = f1.target_account_id JOIN accounts a ON a.id = f2.target_account_id
             WHERE f1.account_id = ?1 AND ${eligible}
             GROUP BY a.id ORDER BY count(*) DESC, a.followers_count DESC, a.id DESC LIMIT +?2`,
            me, Math.trunc(limit),
          )
          .map((r) => ({ accountId: id(r.id), source: 'friends_of_friends' as const }));
        if (friends.length >= limit) return friends;
        const seen = keyList(friends.map((f) => f.accountId));
        const popular = db
          .all(
            `SELECT a.id AS id FROM accounts a
             WHERE a.domain IS NULL AND a.followers_count > 0 AND ${eligible} AND a.id NOT IN (SELECT value FROM json_each(?3))
             ORDER BY a.followers_count DESC, a.id DESC LIMIT +?2`,
            me, Math.trunc(limit) - friends.length, seen,
          )
          .map((r) => ({ accountId: id(r.id), source: 'most_followed' as const }));
        return [...friends, ...popular];
      });
    },
    async dismissSuggestion(accountId, targetId, createdAt) {
      await db.write(() =>
        db.run(
          'INSERT INTO suggestion_dismissals (account_id, target_account_id, created_at) VALUES (?, ?, ?) ON CONFLICT (account_id, target_account_id) DO NOTHING',
          key(accountId), key(targetId), createdAt,
        ),
      );
    },
    async localFollowers(targetId) {
      return localFollows(localFollowerLists, targetId, '');
    },
    async notifiedFollowers(targetId) {
      return localFollows(notifiedFollowerLists, targetId, ' AND f.notify = 1');
    },
    async block(b, outbox) {
      return writeWithOutbox(db, outbox, () => {
        const added = db.run(
          'INSERT INTO blocks (id, account_id, target_account_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (account_id, target_account_id) DO NOTHING',
          key(b.id), key(b.accountId), key(b.targetAccountId), b.createdAt,
        );
        if (added === 0) return false;
        removeFollow(db, b.accountId, b.targetAccountId);
        removeFollow(db, b.targetAccountId, b.accountId);
        removeRequest(db, b.accountId, b.targetAccountId);
        removeRequest(db, b.targetAccountId, b.accountId);
        return true;
      });
    },
    async unblock(accountId, targetId, outbox) {
      return writeWithOutbox(db, outbox, () => db.run('DELETE FROM blocks WHERE account_id = ? AND target_account_id = ?', key(accountId), key(targetId)) > 0);
    },
    async blocksBy(accountId, page) {
      return paged(db, 'SELECT id, account_id, target_account_id, created_at FROM blocks', 'account_id = ?', [key(accountId)], 'id', page, blockFromRow);
    },
    async mute(m, outbox) {
      return writeWithOutbox(db, outbox, () => {
        const updated = db.run(
          'UPDATE mutes SET notifications = ?, expires_at = ? WHERE account_id = ? AND target_account_id = ?',
          flag(m.notifications), m.expiresAt, key(m.accountId), key(m.targetAccountId),
        );
        if (updated > 0) return false;
        db.run(
          'INSERT INTO mutes (id, account_id, target_account_id, notifications, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)',
          key(m.id), key(m.accountId), key(m.targetAccountId), flag(m.notifications), m.expiresAt, m.createdAt,
        );
        return true;
      });
    },
    async unmute(accountId, targetId, outbox) {
      return writeWithOutbox(db, outbox, () => db.run('DELETE FROM mutes WHERE account_id = ? AND target_account_id = ?', key(accountId), key(targetId)) > 0);
    },
    async nextMuteEnd(accountId, after) {
      const r = db.get('SELECT min(expires_at) AS ends FROM mutes WHERE account_id = ? AND expires_at > ?', key(accountId), after);
      return r === undefined || r.ends === null ? null : int(r.ends);
    },
    async mutesBy(accountId, page) {
      return paged(
        db,
        'SELECT id, account_id, target_account_id, notifications, expires_at, created_at FROM mutes',
        'account_id = ?',
        [key(accountId)],
        'id',
        page,
        muteFromRow,
      );
    },
    async relationships(accountId, targetIds) {
      const found = new Map<Id, RelationshipFacts>();
      const missing = new Set<Id>();
      for (const targetId of targetIds) {
        if (found.has(targetId) || missing.has(targetId)) continue;
        const kept = facts.get(`${accountId}|${targetId}`);
        if (kept === undefined) missing.add(targetId);
        else found.set(targetId, kept);
      }
      if (missing.size > 0) {
        for (const read of readRelationships(accountId, [...missing])) {
          // The cache keeps a copy of its own: this one is the caller's.
          facts.set(`${accountId}|${read.targetId}`, read);
          found.set(read.targetId, read);
        }
      }
      return targetIds.map((targetId) => found.get(targetId) as RelationshipFacts);
    },
    async hiddenFrom(accountId, accountIds, now) {
      const me = key(accountId);
      const others = keyList(accountIds);
      const rows = db.all(
        `SELECT target_account_id AS v FROM blocks WHERE account_id = ? AND target_account_id IN (SELECT value FROM json_each(?))
         UNION SELECT account_id FROM blocks WHERE target_account_id = ? AND account_id IN (SELECT value FROM json_each(?))
         UNION SELECT target_account_id FROM mutes WHERE account_id = ? AND target_account_id IN (SELECT value FROM json_each(?))
           AND (expires_at IS NULL OR expires_at > ?)`,
        me, others, me, others, me, others, now,
      );
      return new Set(rows.map((r) => id(r.v)));
    },
    async blockDomain(b, outbox) {
      return writeWithOutbox(
        db,
        outbox,
        () =>
          db.run(
            'INSERT INTO domain_blocks (id, account_id, domain, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (account_id, domain) DO NOTHING',
            key(b.id), key(b.accountId), b.domain.toLowerCase(), b.createdAt,
          ) > 0,
      );
    },
    async unblockDomain(accountId, domain, outbox) {
      return writeWithOutbox(db, outbox, () => db.run('DELETE FROM domain_blocks WHERE account_id = ? AND domain = ?', key(accountId), domain.toLowerCase()) > 0);
    },
    async domainBlocksBy(accountId, page) {
      return paged(db, 'SELECT id, account_id, domain, created_at FROM domain_blocks', 'account_id = ?', [key(accountId)], 'id', page, (r) => ({
        id: id(r.id),
        accountId: id(r.account_id),
        domain: text(r.domain),
        createdAt: int(r.created_at),
      }));
    },
    async hiddenState(accountId, now) {
      const me = key(accountId);
      return db.read(() => ({
        blocking: db.all('SELECT target_account_id AS v FROM blocks WHERE account_id = ?', me).map((r) => id(r.v)),
        blockedBy: db.all('SELECT account_id AS v FROM blocks WHERE target_account_id = ?', me).map((r) => id(r.v)),
        muting: db
          .all('SELECT target_account_id AS v, expires_at FROM mutes WHERE account_id = ? AND (expires_at IS NULL OR expires_at > ?)', me, now)
          .map((r) => ({ accountId: id(r.v), expiresAt: intOrNull(r.expires_at) })),
        domains: db.all('SELECT domain FROM domain_blocks WHERE account_id = ?', me).map((r) => text(r.domain)),
      }));
    },
  };
}
