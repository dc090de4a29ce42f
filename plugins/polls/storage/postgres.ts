import type { NewJob, Poll } from 'rookery/plugin-kit';
import type { PostgresExtensionContext, PostgresRow, PostgresSql } from 'rookery/postgres';
import type { PollRepository } from './port.ts';

/** The plugin's own migrations on PostgreSQL; never edit a released one. The counts and the
 * choices are integer arrays, so that a vote changes them in the statement that records it. */
export const POLL_POSTGRES_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE polls (
    id bigint PRIMARY KEY,
    status_id bigint,
    account_id bigint NOT NULL,
    options text NOT NULL,
    votes bigint[] NOT NULL,
    multiple boolean NOT NULL,
    hide_totals boolean NOT NULL,
    expires_at bigint,
    votes_count bigint NOT NULL,
    voters_count bigint NOT NULL,
    created_at bigint NOT NULL
  );
  CREATE TABLE poll_votes (
    poll_id bigint NOT NULL REFERENCES polls (id),
    account_id bigint NOT NULL,
    choices integer[] NOT NULL,
    PRIMARY KEY (poll_id, account_id)
  );
  CREATE INDEX poll_votes_account ON poll_votes (account_id, poll_id);
  `,
];

const POLL = `SELECT id, status_id, account_id, options, array_to_json(votes)::text AS votes, multiple, hide_totals, expires_at, votes_count, voters_count,
  created_at FROM polls`;

export function postgresPollRepository(context: PostgresExtensionContext): PollRepository {
  const { sql, values: v } = context;
  const ready = context.migrate(POLL_POSTGRES_MIGRATIONS);
  const fromRow = (r: PostgresRow): Poll => ({
    id: v.id(r['id']),
    statusId: v.idOrNull(r['status_id']),
    accountId: v.id(r['account_id']),
    options: v.json(r['options']),
    votes: v.json(r['votes']),
    multiple: v.bool(r['multiple']),
    hideTotals: v.bool(r['hide_totals']),
    expiresAt: v.intOrNull(r['expires_at']),
    votesCount: v.int(r['votes_count']),
    votersCount: v.int(r['voters_count']),
    createdAt: v.int(r['created_at']),
  });

  /** Runs a vote statement (its row says whether the vote counted), and records `jobs` with it
   * when it did: one statement alone, or one transaction with the jobs. */
  const voting = async (statement: string, params: unknown[], jobs: readonly NewJob[] | undefined): Promise<'voted' | 'already'> => {
    const once = async (on: PostgresSql) => ((await on.row(statement, params))?.['voted'] === true ? ('voted' as const) : ('already' as const));
    if (jobs === undefined || jobs.length === 0) return once(sql);
    return context.transaction(async (tx) => {
      const outcome = await once(tx);
      if (outcome === 'voted') await context.enqueue(tx, jobs);
      return outcome;
    });
  };

  return {
    async get(pollId) {
      await ready;
      const k = v.lookupKey(pollId);
      const r = k === null ? undefined : await sql.row(`${POLL} WHERE id = $1`, [k]);
      return r ? fromRow(r) : null;
    },
    async getMany(ids) {
      await ready;
      const wanted = v.keys(ids);
      if (wanted.length === 0) return [];
      return (await sql.rows(`${POLL} WHERE id = ANY($1::bigint[]) ORDER BY id DESC`, [wanted])).map(fromRow);
    },
    async vote(pollId, accountId, choices, options = {}) {
      await ready;
      const k = v.lookupKey(pollId);
      if (k === null) return 'already';
      // The vote row (a second one for the account does nothing, even when concurrent: it
      // waits for the first) and, when it went in, the poll's counts: one statement.
      const statement = `
        WITH added AS (
          INSERT INTO poll_votes (poll_id, account_id, choices) SELECT id, $2::bigint, $3::integer[] FROM polls WHERE id = $1
          ON CONFLICT (poll_id, account_id) DO NOTHING RETURNING poll_id
        ), counted AS (
          UPDATE polls SET
            votes = coalesce((
              SELECT array_agg(x.n + (SELECT count(*) FROM unnest($3::integer[]) AS c WHERE c = x.i - 1) ORDER BY x.i)
              FROM unnest(polls.votes) WITH ORDINALITY AS x(n, i)
            ), '{}'),
            votes_count = votes_count + cardinality($3::integer[]),
            voters_count = voters_count + 1
          WHERE id = (SELECT poll_id FROM added)
        )
        SELECT EXISTS (SELECT 1 FROM added) AS voted`;
      return voting(statement, [k, v.key(accountId), [...choices]], options.jobs);
    },
    async addChoice(pollId, accountId, choice, options = {}) {
      await ready;
      const k = v.lookupKey(pollId);
      if (k === null) return 'already';
      // One more option on the account's vote row (made on its first choice); the account
      // counts as a voter once, when the row is made.
      const statement = `
        WITH added AS (
          INSERT INTO poll_votes (poll_id, account_id, choices) SELECT id, $2::bigint, ARRAY[$3::integer] FROM polls WHERE id = $1
          ON CONFLICT (poll_id, account_id) DO UPDATE SET choices = poll_votes.choices || $3::integer
          WHERE NOT ($3::integer = ANY(poll_votes.choices))
          RETURNING poll_id, cardinality(choices) = 1 AS first
        ), counted AS (
          UPDATE polls SET votes[$3::integer + 1] = coalesce(votes[$3::integer + 1], 0) + 1, votes_count = votes_count + 1,
            voters_count = voters_count + (SELECT CASE WHEN first THEN 1 ELSE 0 END FROM added)
          WHERE id = (SELECT poll_id FROM added)
        )
        SELECT EXISTS (SELECT 1 FROM added) AS voted`;
      return voting(statement, [k, v.key(accountId), choice], options.jobs);
    },
    async votesBy(accountId, pollIds) {
      await ready;
      const out = new Map<string, number[]>();
      const a = v.lookupKey(accountId);
      const wanted = v.keys(pollIds);
      if (a === null || wanted.length === 0) return out;
      const rows = await sql.rows('SELECT poll_id, array_to_json(choices)::text AS choices FROM poll_votes WHERE account_id = $1 AND poll_id = ANY($2::bigint[])', [a, wanted]);
      for (const r of rows) out.set(v.id(r['poll_id']), v.json(r['choices']));
      return out;
    },
    async voters(pollId) {
      await ready;
      const k = v.lookupKey(pollId);
      if (k === null) return [];
      return (await sql.rows('SELECT account_id FROM poll_votes WHERE poll_id = $1', [k])).map((r) => v.id(r['account_id']));
    },
    store(p, options = {}) {
      const values = [
        v.key(p.id), v.keyOrNull(p.statusId), v.key(p.accountId), v.jsonText(p.options), [...p.votes], p.multiple, p.hideTotals, p.expiresAt, p.votesCount,
        p.votersCount, p.createdAt, options.replace === true, p.votersCount === 0 && options.keepVotes !== true,
      ];
      return context.prepare({
        async apply(tx) {
          await ready;
          // A poll being replaced is locked first, so the statement after sees every vote
          // committed before it (and drops them all when the poll was reset).
          if (options.replace === true) await tx.row('SELECT 1 AS found FROM polls WHERE id = $1 FOR UPDATE', [v.key(p.id)]);
          // Replaced when asked and there, else inserted (a taken id is StorageConflict 'id');
          // a replaced poll given without voters was reset: its recorded votes go.
          await tx.run(
            `WITH replaced AS (
               UPDATE polls SET status_id = $2, account_id = $3, options = $4, votes = $5, multiple = $6, hide_totals = $7, expires_at = $8,
                 votes_count = $9, voters_count = $10, created_at = $11
               WHERE id = $1 AND $12::boolean RETURNING id
             ), reset AS (
               DELETE FROM poll_votes WHERE poll_id = (SELECT id FROM replaced) AND $13::boolean
             )
             INSERT INTO polls (id, status_id, account_id, options, votes, multiple, hide_totals, expires_at, votes_count, voters_count, created_at)
             SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 WHERE NOT EXISTS (SELECT 1 FROM replaced)`,
            values,
          );
          if (options.jobs && options.jobs.length > 0) await context.enqueue(tx, options.jobs);
        },
      });
    },
  };
}
