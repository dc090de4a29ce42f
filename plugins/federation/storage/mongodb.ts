import type { IndexDefinition, MongoDoc, MongoExtensionContext } from 'rookery/mongodb';
import type { DomainBlockRow, FederationRows, KvRow } from './port.ts';

export const FEDERATION_KV = 'federation_kv';
export const FEDERATION_BLOCKS = 'federation_domain_blocks';

export const FEDERATION_INDEXES: readonly IndexDefinition[] = [
  { collection: FEDERATION_KV, name: 'federation_kv_expiry', key: { expiresAt: 1 }, partialFilterExpression: { expiresAt: { $type: 'number' } } },
];

const DUPLICATE_KEY = 11000;

export function mongoFederationRows(context: MongoExtensionContext): FederationRows {
  const kv = context.collection(FEDERATION_KV);
  const blocks = context.collection(FEDERATION_BLOCKS);
  const ready = context.setup({ indexes: FEDERATION_INDEXES, collections: [FEDERATION_KV, FEDERATION_BLOCKS] });
  const kvRow = (d: MongoDoc): KvRow => ({ key: d['_id'] as string, value: d['value'] as string, expiresAt: (d['expiresAt'] as number | null) ?? null });
  const blockRow = (d: MongoDoc): DomainBlockRow => ({
    domain: d['_id'] as string,
    reason: (d['reason'] as string | null) ?? null,
    createdAt: d['createdAt'] as number,
    settings: (d['settings'] as string | null | undefined) ?? null,
  });
  const expired = (now: number): MongoDoc => ({ expiresAt: { $ne: null, $lte: now } });
  return {
    async kvRead(key) {
      await ready;
      const d = await kv.findOne({ _id: key });
      return d ? kvRow(d) : null;
    },
    async kvReadMany(keys) {
      await ready;
      if (keys.length === 0) return [];
      return (await kv.find({ _id: { $in: [...keys] } }).toArray()).map(kvRow);
    },
    async kvWrite(row) {
      await ready;
      await kv.updateOne({ _id: row.key }, { $set: { value: row.value, expiresAt: row.expiresAt } }, { upsert: true });
    },
    async kvRemove(key) {
      await ready;
      await kv.deleteOne({ _id: key });
    },
    async kvRange(exact, from, to, now, limit) {
      await ready;
      if (limit === 0) return [];
      // A key range (string comparison), not a regular expression built from the key.
      const docs = await kv
        .find({ $and: [{ $or: [{ _id: exact }, { _id: { $gte: from, $lt: to } }] }, { $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] }] })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(kvRow);
    },
    async kvSwap(seen, next) {
      await ready;
      if (seen === null) {
        try {
          await kv.insertOne({ _id: next.key, value: next.value, expiresAt: next.expiresAt });
          return true;
        } catch (error) {
          if ((error as { code?: unknown }).code === DUPLICATE_KEY) return false;
          throw error;
        }
      }
      // Matches only the very row that was read: one document update, atomic on the server.
      const result = await kv.updateOne({ _id: next.key, value: seen.value, expiresAt: seen.expiresAt }, { $set: { value: next.value, expiresAt: next.expiresAt } });
      return result.matchedCount === 1;
    },
    async kvExpire(now, key) {
      await ready;
      const result = await kv.deleteMany(key === undefined ? expired(now) : { _id: key, ...expired(now) });
      return result.deletedCount;
    },
    async blockUpsert(block, settings) {
      await ready;
      const d = await blocks.findOneAndUpdate(
        { _id: block.domain },
        settings === undefined
          ? { $set: { reason: block.reason }, $setOnInsert: { createdAt: block.createdAt, settings: null } }
          : { $set: { reason: block.reason, settings }, $setOnInsert: { createdAt: block.createdAt } },
        { upsert: true, returnDocument: 'after' },
      );
      if (d === null) throw new Error('the block just written is missing');
      return blockRow(d);
    },
    async blockRemove(domain) {
      await ready;
      return (await blocks.deleteOne({ _id: domain })).deletedCount === 1;
    },
    async blockList() {
      await ready;
      return (await blocks.find({}).sort({ _id: 1 }).toArray()).map(blockRow);
    },
    async blockFind(domains) {
      await ready;
      if (domains.length === 0) return [];
      return (await blocks.find({ _id: { $in: [...domains] } }).toArray()).map(blockRow);
    },
  };
}
