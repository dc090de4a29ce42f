import type { Poll } from 'rookery/plugin-kit';
import type { SqliteExtensionContext, SqliteRow } from 'rookery/sqlite';
import type { PollRepository } from './port.ts';

/** The plugin's own migrations; 1 is the shape core migration 1 created them with. */
export const POLL_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE IF NOT EXISTS polls (
    id INTEGER PRIMARY KEY,
    status_id INTEGER,
    account_id INTEGER NOT NULL,
    options TEXT NOT NULL,
    votes TEXT NOT NULL,
    multiple INTEGER NOT NULL,
    hide_totals INTEGER NOT NULL,
    expires_at INTEGER,
    votes_count INTEGER NOT NULL,
    voters_count INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT;
  CREATE TABLE IF NOT EXISTS poll_votes (
    poll_id INTEGER NOT NULL REFERENCES polls (id),
    account_id INTEGER NOT NULL,
    choices TEXT NOT NULL,
    PRIMARY KEY (poll_id, account_id)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS poll_votes_account ON poll_votes (account_id, poll_id);
  `,
];

const POLL = `SELECT id, status_id, account_id, options, votes, multiple, hide_totals, expires_at, votes_count, voters_count, created_at FROM polls`;

export function sqlitePollRepository(context: SqliteExtensionContext): PollRepository {
  const { db, values: v } = context;
  context.migrate(POLL_MIGRATIONS);
  const fromRow = (r: SqliteRow): Poll => ({
    id: v.id(r.id),
    statusId: v.idOrNull(r.status_id),
    accountId: v.id(r.account_id),
    options: v.json(r.options),
    votes: v.json(r.votes),
    multiple: v.bool(r.multiple),
    hideTotals: v.bool(r.hide_totals),
    expiresAt: v.intOrNull(r.expires_at),
    votesCount: v.int(r.votes_count),
    votersCount: v.int(r.voters_count),
    createdAt: v.int(r.created_at),
  });
  return {
    async get(pollId) {
      const k = v.lookupKey(pollId);
      const r = k === null ? undefined : db.get(`${POLL} WHERE id = ?`, k);
      return r ? fromRow(r) : null;
    },
    async getMany(ids) {
      const among = v.amongIds('id', ids);
      return db.all(`${POLL} WHERE ${among.sql} ORDER BY id DESC`, among.param).map(fromRow);
    },
    async vote(pollId, accountId, choices, options = {}) {
      const k = v.lookupKey(pollId);
      if (k === null) return 'already';
      return db.write(() => {
        const r = db.get('SELECT votes FROM polls WHERE id = ?', k);
        if (!r) return 'already';
        const added = db.run(
          'INSERT INTO poll_votes (poll_id, account_id, choices) VALUES (?, ?, ?) ON CONFLICT (poll_id, account_id) DO NOTHING',
          k, v.key(accountId), v.jsonText(choices),
        );
        if (added === 0) return 'already';
        const counts = v.json<number[]>(r.votes);
        for (const c of choices) counts[c] = (counts[c] ?? 0) + 1;
        db.run('UPDATE polls SET votes = ?, votes_count = votes_count + ?, voters_count = voters_count + 1 WHERE id = ?', v.jsonText(counts), choices.length, k);
        if (options.jobs && options.jobs.length > 0) context.enqueue(options.jobs);
        return 'voted';
      });
    },
    async addChoice(pollId, accountId, choice, options = {}) {
      const k = v.lookupKey(pollId);
      if (k === null) return 'already';
      return db.write(() => {
        const r = db.get('SELECT votes FROM polls WHERE id = ?', k);
        if (!r) return 'already';
        const mine = db.get('SELECT choices FROM poll_votes WHERE poll_id = ? AND account_id = ?', k, v.key(accountId));
        const choices = mine ? v.json<number[]>(mine.choices) : [];
        if (choices.includes(choice)) return 'already';
        if (mine) db.run('UPDATE poll_votes SET choices = ? WHERE poll_id = ? AND account_id = ?', v.jsonText([...choices, choice]), k, v.key(accountId));
        else db.run('INSERT INTO poll_votes (poll_id, account_id, choices) VALUES (?, ?, ?)', k, v.key(accountId), v.jsonText([choice]));
        const counts = v.json<number[]>(r.votes);
        counts[choice] = (counts[choice] ?? 0) + 1;
        db.run('UPDATE polls SET votes = ?, votes_count = votes_count + 1, voters_count = voters_count + ? WHERE id = ?', v.jsonText(counts), mine ? 0 : 1, k);
        if (options.jobs && options.jobs.length > 0) context.enqueue(options.jobs);
        return 'voted';
      });
    },
    async votesBy(accountId, pollIds) {
      const out = new Map<string, number[]>();
      const rows = db.all('SELECT poll_id, choices FROM poll_votes WHERE account_id = ? AND poll_id IN (SELECT value FROM json_each(?))', v.key(accountId), v.keyList(pollIds));
      for (const r of rows) out.set(v.id(r.poll_id), v.json(r.choices));
      return out;
    },
    async voters(pollId) {
      const k = v.lookupKey(pollId);
      if (k === null) return [];
      return db.all('SELECT account_id FROM poll_votes WHERE poll_id = ?', k).map((r) => v.id(r.account_id));
    },
    store(p, options = {}) {
      const values = [
        v.keyOrNull(p.statusId), v.key(p.accountId), v.jsonText(p.options), v.jsonText(p.votes), v.flag(p.multiple), v.flag(p.hideTotals), p.expiresAt,
        p.votesCount, p.votersCount, p.createdAt,
      ];
      return context.prepare({
        apply(tx) {
          if (options.replace && tx.get('SELECT 1 FROM polls WHERE id = ?', v.key(p.id))) {
            tx.run(
              `UPDATE polls SET status_id = ?, account_id = ?, options = ?, votes = ?, multiple = ?, hide_totals = ?, expires_at = ?, votes_count = ?,
                 voters_count = ?, created_at = ? WHERE id = ?`,
              ...values, v.key(p.id),
            );
            if (p.votersCount === 0 && !options.keepVotes) tx.run('DELETE FROM poll_votes WHERE poll_id = ?', v.key(p.id));
          } else {
            tx.run(
              `INSERT INTO polls (id, status_id, account_id, options, votes, multiple, hide_totals, expires_at, votes_count, voters_count, created_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
              v.key(p.id), ...values,
            );
          }
          if (options.jobs && options.jobs.length > 0) context.enqueue(options.jobs);
        },
      });
    },
  };
}
