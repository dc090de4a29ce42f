// Quotes (one row per quoting status) and each status's quote policy.

import type { Quote, QuotePolicy, QuoteState } from '../../core/domain/model.ts';
import type { QuoteRepository, QuoteSummary, StorageWrite } from '../../core/domain/ports/storage.ts';
import type { Db, Row, Sql, Tx } from './db.ts';
import { writeWithOutbox } from './jobs.ts';
import { id, idOrNull, int, key, keyOrNull, keys, lookupKey, paged, Params, text, textOrNull } from './values.ts';

const QUOTE = 'SELECT id, status_id, account_id, quoted_status_id, quoted_account_id, state, authorization_uri, request_uri, created_at, updated_at FROM quotes';

function quoteFromRow(r: Row): Quote {
  return {
    id: id(r['id']),
    statusId: id(r['status_id']),
    accountId: id(r['account_id']),
    quotedStatusId: idOrNull(r['quoted_status_id']),
    quotedAccountId: idOrNull(r['quoted_account_id']),
    state: text(r['state']) as QuoteState,
    authorizationUri: textOrNull(r['authorization_uri']),
    requestUri: textOrNull(r['request_uri']),
    createdAt: int(r['created_at']),
    updatedAt: int(r['updated_at']),
  };
}

async function saveQuote(sql: Sql, q: Quote): Promise<void> {
  await sql.run(
    `INSERT INTO quotes (id, status_id, account_id, quoted_status_id, quoted_account_id, state, authorization_uri, request_uri, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (status_id) DO UPDATE SET id = excluded.id, account_id = excluded.account_id, quoted_status_id = excluded.quoted_status_id,
       quoted_account_id = excluded.quoted_account_id, state = excluded.state, authorization_uri = excluded.authorization_uri,
       request_uri = excluded.request_uri, created_at = excluded.created_at, updated_at = excluded.updated_at`,
    [key(q.id), key(q.statusId), key(q.accountId), keyOrNull(q.quotedStatusId), keyOrNull(q.quotedAccountId), q.state, q.authorizationUri, q.requestUri, q.createdAt, q.updatedAt],
  );
}

async function savePolicy(sql: Sql, statusId: string, policy: QuotePolicy): Promise<void> {
  await sql.run('INSERT INTO quote_policies (status_id, policy) VALUES ($1, $2) ON CONFLICT (status_id) DO UPDATE SET policy = excluded.policy', [key(statusId), policy]);
}

/** `store`: the identity the StorageWrites of this store carry (storage.ts). */
export function quoteRepository(db: Db, store: object): QuoteRepository {
  return {
    attach(values): StorageWrite {
      return {
        store,
        apply: async (tx) => {
          const t = tx as Tx;
          if (values.removeQuoteOf !== undefined) await t.run('DELETE FROM quotes WHERE status_id = $1', [key(values.removeQuoteOf)]);
          if (values.quote !== undefined) await saveQuote(t, values.quote);
          if (values.policy !== undefined) await savePolicy(t, values.policy.statusId, values.policy.policy);
        },
      };
    },
    async save(quote) {
      await saveQuote(db, quote);
    },
    async setPolicy(statusId, policy) {
      await savePolicy(db, statusId, policy);
    },
    async policies(statusIds) {
      const wanted = keys(statusIds);
      if (wanted.length === 0) return new Map();
      const rows = await db.rows('SELECT status_id, policy FROM quote_policies WHERE status_id = ANY($1::bigint[])', [wanted]);
      return new Map(rows.map((r) => [id(r['status_id']), text(r['policy']) as QuotePolicy]));
    },
    async ofStatuses(statusIds) {
      const wanted = keys(statusIds);
      if (wanted.length === 0) return new Map();
      const rows = await db.rows(`${QUOTE} WHERE status_id = ANY($1::bigint[])`, [wanted]);
      return new Map(rows.map((r) => [id(r['status_id']), quoteFromRow(r)]));
    },
    async transition(statusId, from, to, at, options = {}) {
      const k = lookupKey(statusId);
      if (k === null) return null;
      const { authorizationUri } = options;
      return writeWithOutbox(db, options.outbox, async (sql) => {
        const r =
          authorizationUri === undefined
            ? await sql.row('UPDATE quotes SET state = $1, updated_at = $2 WHERE status_id = $3 AND state = ANY($4::text[]) RETURNING *', [to, at, k, [...from]])
            : await sql.row('UPDATE quotes SET state = $1, updated_at = $2, authorization_uri = $5 WHERE status_id = $3 AND state = ANY($4::text[]) RETURNING *', [to, at, k, [...from], authorizationUri]);
        return r === undefined ? null : quoteFromRow(r);
      });
    },
    async findByUri(uri) {
      const r = await db.row(`${QUOTE} WHERE authorization_uri = $1 OR request_uri = $1 LIMIT 1`, [uri]);
      return r === undefined ? null : quoteFromRow(r);
    },
    async quotesOf(quotedStatusId, states, page) {
      if (lookupKey(quotedStatusId) === null || states.length === 0) return [];
      const p = new Params();
      return paged(db, p, QUOTE, `quoted_status_id = ${p.id(quotedStatusId)} AND state = ANY(${p.add([...states])}::text[])`, 'id', page, quoteFromRow);
    },
    async count(quotedStatusIds, states) {
      const wanted = keys(quotedStatusIds);
      if (wanted.length === 0 || states.length === 0) return new Map();
      const rows = await db.rows(
        'SELECT quoted_status_id, count(*) AS n FROM quotes WHERE quoted_status_id = ANY($1::bigint[]) AND state = ANY($2::text[]) GROUP BY quoted_status_id',
        [wanted, [...states]],
      );
      return new Map(rows.map((r) => [id(r['quoted_status_id']), int(r['n'])]));
    },
    async summary(statusIds, countStates) {
      const wanted = keys(statusIds);
      const summary: QuoteSummary = { quotes: new Map(), policies: new Map(), counts: new Map() };
      if (wanted.length === 0) return summary;
      // One round trip: the three reads as one statement, each row saying what it is.
      const rows = await db.rows(
        `SELECT 'quote' AS kind, status_id AS key, id, account_id, quoted_status_id, quoted_account_id, state, authorization_uri, request_uri, created_at, updated_at, NULL::text AS policy, NULL::bigint AS n
           FROM quotes WHERE status_id = ANY($1::bigint[])
         UNION ALL
         SELECT 'policy', status_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, policy, NULL
           FROM quote_policies WHERE status_id = ANY($1::bigint[])
         UNION ALL
         SELECT 'count', quoted_status_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, count(*)
           FROM quotes WHERE quoted_status_id = ANY($1::bigint[]) AND state = ANY($2::text[]) GROUP BY quoted_status_id`,
        [wanted, [...countStates]],
      );
      for (const r of rows) {
        const key = id(r['key']);
        if (r['kind'] === 'quote') summary.quotes.set(key, quoteFromRow({ ...r, status_id: r['key'] }));
        else if (r['kind'] === 'policy') summary.policies.set(key, text(r['policy']) as QuotePolicy);
        else summary.counts.set(key, int(r['n']));
      }
      return summary;
    },
  };
}
