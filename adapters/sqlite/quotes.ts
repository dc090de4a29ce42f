// Quotes (one row per quoting status) and each status's quote policy.

import type { Id, Quote, QuotePolicy, QuoteState } from '../../core/domain/model.ts';
import type { QuoteRepository, QuoteSummary, StorageWrite } from '../../core/domain/ports/storage.ts';
import { RowCache } from './cache.ts';
import { id, idOrNull, int, jsonText, key, keyList, keyOrNull, lookupKey, paged, text, textOrNull, type Db, type Row } from './db.ts';
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

function copySummary(summary: QuoteSummary): QuoteSummary {
  return {
    quotes: new Map([...summary.quotes].map(([statusId, quote]) => [statusId, { ...quote }])),
    policies: new Map(summary.policies),
    counts: new Map(summary.counts),
  };
}

/** `store`: the identity the StorageWrites of this store carry (storage.ts). */
export function quoteRepository(db: Db, store: object): QuoteRepository {
  // Every status rendered reads its summary (three statements), and quotes and policies change
  // far less often than statuses are read: kept until either table changes (cache.ts).
  const summaries = new RowCache<string, QuoteSummary>(db, ['quotes', 'quote_policies'], 5_000, copySummary);
  const policiesOf = (statusIds: readonly Id[]): Map<Id, QuotePolicy> => {
    if (statusIds.length === 0) return new Map();
    const rows = db.all('SELECT status_id, policy FROM quote_policies WHERE status_id IN (SELECT value FROM json_each(?))', keyList(statusIds));
    return new Map(rows.map((r) => [id(r.status_id), text(r.policy) as QuotePolicy]));
  };
  const quotesOf = (statusIds: readonly Id[]): Map<Id, Quote> => {
    if (statusIds.length === 0) return new Map();
    const rows = db.all(`${QUOTE} WHERE status_id IN (SELECT value FROM json_each(?))`, keyList(statusIds));
    return new Map(rows.map((r) => [id(r.status_id), quoteFromRow(r)]));
  };
  const countOf = (quotedStatusIds: readonly Id[], states: readonly QuoteState[]): Map<Id, number> => {
    if (quotedStatusIds.length === 0 || states.length === 0) return new Map();
    const rows = db.all(
      'SELECT quoted_status_id, count(*) AS n FROM quotes WHERE quoted_status_id IN (SELECT value FROM json_each(?)) AND state IN (SELECT value FROM json_each(?)) GROUP BY quoted_status_id',
      keyList(quotedStatusIds), jsonText(states),
    );
    return new Map(rows.map((r) => [id(r.quoted_status_id), int(r.n)]));
  };
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
      return policiesOf(statusIds);
    },
    async ofStatuses(statusIds) {
      return quotesOf(statusIds);
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
      return countOf(quotedStatusIds, states);
    },
    async summary(statusIds, countStates) {
      const cacheKey = `${statusIds.join(',')}|${countStates.join(',')}`;
      const kept = summaries.get(cacheKey);
      if (kept !== undefined) return kept;
      // Read and kept in one go, with no await between: a commit in between would leave the
      // older rows kept under the newer generation.
      const summary = { quotes: quotesOf(statusIds), policies: policiesOf(statusIds), counts: countOf(statusIds, countStates) };
      summaries.set(cacheKey, summary);
      return summary;
    },
  };
  return repository;
}
