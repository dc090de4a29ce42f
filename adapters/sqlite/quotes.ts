// Quotes (one row per quoting status) and each status's quote policy.

import type { Quote, QuotePolicy, QuoteState } from '../../core/domain/model.ts';
import type { QuoteRepository, StorageWrite } from '../../core/domain/ports/storage.ts';
import { allAmong, amongIds, id, idOrNull, int, jsonText, key, keyList, keyOrNull, lookupKey, paged, text, textOrNull, type Db, type Row } from './db.ts';
import { RowCache } from './cache.ts';
import { writeWithOutbox } from './jobs.ts';

const QUOTE = 'SELECT id, status_id, account_id, quoted_status_id, quoted_account_id, state, authorization_uri, request_uri, created_at, updated_at FROM quotes';

function quoteFromRow(r: Row): Quote {
  return {
    id: id(r.id),
    statusId: id(r.status_id),
    accountId: id(r.account_id),
    quotedStatusId: idOrNull(r.quoted_status_id),
    quotedAccountId: idOrNull(r.quoted_account_id),
    state: text(r.state) as QuoteState,
    authorizationUri: textOrNull(r.authorization_uri),
    requestUri: textOrNull(r.request_uri),
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
  };
}

function saveQuote(db: Db, q: Quote): void {
  db.run('DELETE FROM quotes WHERE status_id = ?', key(q.statusId));
  db.run(
    `INSERT INTO quotes (id, status_id, account_id, quoted_status_id, quoted_account_id, state, authorization_uri, request_uri, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    key(q.id), key(q.statusId), key(q.accountId), keyOrNull(q.quotedStatusId), keyOrNull(q.quotedAccountId), q.state, q.authorizationUri, q.requestUri, q.createdAt, q.updatedAt,
  );
}

function savePolicy(db: Db, statusId: string, policy: QuotePolicy): void {
  db.run('INSERT INTO quote_policies (status_id, policy) VALUES (?, ?) ON CONFLICT (status_id) DO UPDATE SET policy = excluded.policy', key(statusId), policy);
}

/** What summary() reads of one status: its quote, its policy, how many quote it. */
interface Summary {
  statusId: string;
  quote: Quote | null;
  policy: QuotePolicy | null;
  count: number;
}

const copySummary = (s: Summary): Summary => ({ ...s, quote: s.quote === null ? null : { ...s.quote } });

/** `store`: the identity the StorageWrites of this store carry (storage.ts). */
export function quoteRepository(db: Db, store: object): QuoteRepository {
  // Every status read asks for its quote summary, and nearly every answer is "none": kept until
  // the quote tables change (cache.ts), by states counted.
  const summaries = new RowCache<string, Summary>(db, ['quotes', 'quote_policies'], 20_000, copySummary);
  const repository: QuoteRepository = {
    attach(values): StorageWrite {
      return {
        store,
        apply: (tx) => {
          const d = tx as Db;
          if (values.removeQuoteOf !== undefined) d.run('DELETE FROM quotes WHERE status_id = ?', key(values.removeQuoteOf));
          if (values.quote !== undefined) saveQuote(d, values.quote);
          if (values.policy !== undefined) savePolicy(d, values.policy.statusId, values.policy.policy);
        },
      };
    },
    async save(quote) {
      await db.write(() => saveQuote(db, quote));
    },
    async setPolicy(statusId, policy) {
      await db.write(() => savePolicy(db, statusId, policy));
    },
    async policies(statusIds) {
      if (statusIds.length === 0) return new Map();
      const rows = allAmong(db, 'SELECT status_id, policy FROM quote_policies WHERE', 'status_id', statusIds);
      return new Map(rows.map((r) => [id(r.status_id), text(r.policy) as QuotePolicy]));
    },
    async ofStatuses(statusIds) {
      if (statusIds.length === 0) return new Map();
      const rows = allAmong(db, `${QUOTE} WHERE`, 'status_id', statusIds);
      return new Map(rows.map((r) => [id(r.status_id), quoteFromRow(r)]));
    },
    async transition(statusId, from, to, at, options = {}) {
      const k = lookupKey(statusId);
      if (k === null) return null;
      const { authorizationUri } = options;
      return writeWithOutbox(db, options.outbox, () => {
        const changed =
          authorizationUri === undefined
            ? db.run('UPDATE quotes SET state = ?, updated_at = ? WHERE status_id = ? AND state IN (SELECT value FROM json_each(?))', to, at, k, jsonText(from))
            : db.run('UPDATE quotes SET state = ?, updated_at = ?, authorization_uri = ? WHERE status_id = ? AND state IN (SELECT value FROM json_each(?))', to, at, authorizationUri, k, jsonText(from));
        if (changed === 0) return null;
        const r = db.get(`${QUOTE} WHERE status_id = ?`, k);
        return r === undefined ? null : quoteFromRow(r);
      });
    },
    async findByUri(uri) {
      const r = db.get(`${QUOTE} WHERE authorization_uri = ? OR request_uri = ? LIMIT 1`, uri, uri);
      return r === undefined ? null : quoteFromRow(r);
    },
    async quotesOf(quotedStatusId, states, page) {
      const k = lookupKey(quotedStatusId);
      if (k === null || states.length === 0) return [];
      return paged(db, QUOTE, 'quoted_status_id = ? AND state IN (SELECT value FROM json_each(?))', [k, jsonText(states)], 'id', page, quoteFromRow);
    },
    async count(quotedStatusIds, states) {
      if (quotedStatusIds.length === 0 || states.length === 0) return new Map();
      const rows = db.all(
        'SELECT quoted_status_id, count(*) AS n FROM quotes WHERE quoted_status_id IN (SELECT value FROM json_each(?)) AND state IN (SELECT value FROM json_each(?)) GROUP BY quoted_status_id',
        keyList(quotedStatusIds), jsonText(states),
      );
      return new Map(rows.map((r) => [id(r.quoted_status_id), int(r.n)]));
    },
    async summary(statusIds, countStates) {
      const states = countStates.join(',');
      const found = summaries.many(
        statusIds.map((statusId) => `${states} ${statusId}`),
        (missing) => {
          const ids = missing.map((k) => k.slice(states.length + 1));
          const ofStatus = amongIds('status_id', ids);
          const quoted = amongIds('quoted_status_id', ids);
          const quoteRows = db.all(`${QUOTE} WHERE ${ofStatus.sql}`, ofStatus.param);
          const policyRows = db.all(`SELECT status_id, policy FROM quote_policies WHERE ${ofStatus.sql}`, ofStatus.param);
          const countRows =
            countStates.length === 0
              ? []
              : db.all(
                  // The states as placeholders (a handful at most, from the code): json_each
                  // cost more than this count of a status's quotes.
                  `SELECT quoted_status_id, count(*) AS n FROM quotes WHERE ${quoted.sql} AND state IN (${countStates.map(() => '?').join(', ')}) GROUP BY quoted_status_id`,
                  quoted.param, ...countStates,
                );
          const quotes = new Map(quoteRows.map((r) => [id(r.status_id), quoteFromRow(r)]));
          const policies = new Map(policyRows.map((r) => [id(r.status_id), text(r.policy) as QuotePolicy]));
          const counts = new Map(countRows.map((r) => [id(r.quoted_status_id), int(r.n)]));
          return ids.map((statusId) => ({ statusId, quote: quotes.get(statusId) ?? null, policy: policies.get(statusId) ?? null, count: counts.get(statusId) ?? 0 }));
        },
        (summary) => `${states} ${summary.statusId}`,
      );
      const quotes = new Map<string, Quote>();
      const policies = new Map<string, QuotePolicy>();
      const counts = new Map<string, number>();
      for (const s of found) {
        if (s.quote !== null) quotes.set(s.statusId, s.quote);
        if (s.policy !== null) policies.set(s.statusId, s.policy);
        if (s.count > 0) counts.set(s.statusId, s.count);
      }
      return { quotes, policies, counts };
    },
  };
  return repository;
}
