// Quotes: one document per quoting status (its `_id` the status id, `num` the quote's id for
// paging); quote policies: one document per status.

import type { Quote, QuotePolicy, QuoteState } from '../../core/domain/model.ts';
import type { QuoteRepository, StorageWrite } from '../../core/domain/ports/storage.ts';
import type { ClientSession } from 'mongodb';
import type { Mongo, MongoTx } from './db.ts';
import { C } from './schema.ts';
import { inPageOrder, lookupId, num, pageQuery, validIds, withRange, type Doc } from './values.ts';

function quoteFromDoc(d: Doc): Quote {
  return {
    id: d['id'] as string,
    statusId: d['statusId'] as string,
    accountId: d['accountId'] as string,
    quotedStatusId: (d['quotedStatusId'] as string | null) ?? null,
    quotedAccountId: (d['quotedAccountId'] as string | null) ?? null,
    state: d['state'] as QuoteState,
    authorizationUri: (d['authorizationUri'] as string | null) ?? null,
    requestUri: (d['requestUri'] as string | null) ?? null,
    createdAt: d['createdAt'] as number,
    updatedAt: d['updatedAt'] as number,
  };
}

function quoteDoc(q: Quote): Doc {
  return { ...q, num: num(q.id) };
}

export function quoteRepository(m: Mongo, store: object): QuoteRepository {
  const quotes = m.collection(C.quotes);
  const policies = m.collection(C.quotePolicies);
  const saveQuote = async (q: Quote, session?: ClientSession): Promise<void> => {
    await quotes.updateOne({ _id: q.statusId }, { $set: quoteDoc(q) }, { upsert: true, ...(session ? { session } : {}) });
  };
  const savePolicy = async (statusId: string, policy: QuotePolicy, session?: ClientSession): Promise<void> => {
    await policies.updateOne({ _id: statusId }, { $set: { policy } }, { upsert: true, ...(session ? { session } : {}) });
  };
  const repository: QuoteRepository = {
    attach(values): StorageWrite {
      return {
        store,
        apply: async (tx) => {
          const { session } = tx as MongoTx;
          if (values.removeQuoteOf !== undefined) await quotes.deleteOne({ _id: values.removeQuoteOf }, session ? { session } : {});
          if (values.quote !== undefined) await saveQuote(values.quote, session);
          if (values.policy !== undefined) await savePolicy(values.policy.statusId, values.policy.policy, session);
        },
      };
    },
    async save(quote) {
      await saveQuote(quote);
    },
    async setPolicy(statusId, policy) {
      await savePolicy(statusId, policy);
    },
    async policies(statusIds) {
      const wanted = validIds(statusIds);
      if (wanted.length === 0) return new Map();
      const docs = await policies.find({ _id: { $in: wanted } }).toArray();
      return new Map(docs.map((d) => [d._id as string, d['policy'] as QuotePolicy]));
    },
    async ofStatuses(statusIds) {
      const wanted = validIds(statusIds);
      if (wanted.length === 0) return new Map();
      const docs = await quotes.find({ _id: { $in: wanted } }).toArray();
      return new Map(docs.map((d) => [d._id as string, quoteFromDoc(d)]));
    },
    async transition(statusId, from, to, at, options = {}) {
      if (lookupId(statusId) === null) return null;
      const set: Doc = { state: to, updatedAt: at };
      if (options.authorizationUri !== undefined) set['authorizationUri'] = options.authorizationUri;
      return m.withOutbox(options.outbox, async (tx) => {
        const doc = await tx.collection(C.quotes).findOneAndUpdate({ _id: statusId, state: { $in: [...from] } }, { $set: set }, { returnDocument: 'after', session: tx.session });
        return doc === null ? null : quoteFromDoc(doc);
      });
    },
    async findByUri(uri) {
      if (typeof uri !== 'string') return null;
      const doc = await quotes.findOne({ $or: [{ authorizationUri: uri }, { requestUri: uri }] });
      return doc === null ? null : quoteFromDoc(doc);
    },
    async quotesOf(quotedStatusId, states, page) {
      const p = pageQuery(page);
      if (p.empty || lookupId(quotedStatusId) === null || states.length === 0) return [];
      const docs = await quotes.find(withRange({ quotedStatusId, state: { $in: [...states] } }, p)).sort({ num: p.sort }).limit(p.limit).toArray();
      return inPageOrder(docs.map(quoteFromDoc), p);
    },
    async count(quotedStatusIds, states) {
      const wanted = validIds(quotedStatusIds);
      if (wanted.length === 0 || states.length === 0) return new Map();
      const rows = await quotes.aggregate<{ _id: string; n: number }>([{ $match: { quotedStatusId: { $in: wanted }, state: { $in: [...states] } } }, { $group: { _id: '$quotedStatusId', n: { $sum: 1 } } }]).toArray();
      return new Map(rows.map((r) => [r._id, r.n]));
    },
    async summary(statusIds, countStates) {
      const [quotes, stated, counts] = await Promise.all([repository.ofStatuses(statusIds), repository.policies(statusIds), repository.count(statusIds, countStates)]);
      return { quotes, policies: stated, counts };
    },
  };
  return repository;
}
