// The admin API's blocks and allows, one collection told apart by kind. Each write and its admin
// action (in admin_actions, which the audit log reads with the reports' own) share a transaction.

import type { AdminAction, Id, ServerBlock, ServerBlockKind } from '../../core/domain/model.ts';
import { StorageConflict, type ServerBlockRepository } from '../../core/domain/ports/storage.ts';
import type { Mongo, MongoTx } from './db.ts';
import { C } from './schema.ts';
import { inPageOrder, lookupId, num, pageQuery, withRange, type Doc } from './values.ts';

const KEYS_LIMIT = 100;

function blockFromDoc(d: Doc): ServerBlock {
  return {
    id: d['_id'] as Id,
    kind: d['kind'] as ServerBlockKind,
    key: d['key'] as string,
    severity: d['severity'] as string | null,
    comment: d['comment'] as string,
    expiresAt: d['expiresAt'] as number | null,
    createdAt: d['createdAt'] as number,
    updatedAt: d['updatedAt'] as number,
  };
}

export const actionDoc = (action: AdminAction): Doc => ({ _id: action.id, num: num(action.id), ...action });

async function record(tx: MongoTx, action: AdminAction): Promise<void> {
  await tx.collection(C.adminActions).insertOne(actionDoc(action) as never, { session: tx.session });
}

const duplicate = (err: unknown) => err instanceof StorageConflict && err.rule === 'serverBlockKey';

export function serverBlockRepository(m: Mongo): ServerBlockRepository {
  const blocks = m.collection(C.serverBlocks);
  return {
    async create(block, action) {
      const { id, ...fields } = block;
      try {
        return await m.transaction(async (tx) => {
          if ((await tx.collection(C.serverBlocks).findOne({ kind: block.kind, key: block.key }, { session: tx.session })) !== null) return false;
          await tx.collection(C.serverBlocks).insertOne({ _id: id, num: num(id), ...fields } as never, { session: tx.session });
          await record(tx, action);
          return true;
        });
      } catch (err) {
        if (duplicate(err)) return false;
        throw err;
      }
    },
    async get(kind, blockId) {
      const id = lookupId(blockId);
      const d = id === null ? null : await blocks.findOne({ _id: id, kind });
      return d ? blockFromDoc(d) : null;
    },
    async list(kind, page) {
      const p = pageQuery(page);
      if (p.empty) return [];
      const rows = await blocks.find(withRange({ kind }, p)).sort({ num: p.sort }).limit(p.limit).toArray();
      return inPageOrder(rows, p).map(blockFromDoc);
    },
    async withKeys(kind, keys) {
      const wanted = [...new Set(keys)].slice(0, KEYS_LIMIT);
      if (wanted.length === 0) return [];
      return (await blocks.find({ kind, key: { $in: wanted } }).toArray()).map(blockFromDoc);
    },
    async update(kind, blockId, patch, action) {
      const id = lookupId(blockId);
      if (id === null) return null;
      const set: Doc = {};
      for (const field of ['key', 'severity', 'comment', 'expiresAt', 'updatedAt'] as const) if (patch[field] !== undefined) set[field] = patch[field];
      try {
        return await m.transaction(async (tx) => {
          const c = tx.collection(C.serverBlocks);
          if (patch.key !== undefined && (await c.findOne({ kind, key: patch.key, _id: { $ne: id } }, { session: tx.session })) !== null) return false;
          const d =
            Object.keys(set).length === 0
              ? await c.findOne({ _id: id, kind }, { session: tx.session })
              : await c.findOneAndUpdate({ _id: id, kind }, { $set: set }, { returnDocument: 'after', session: tx.session });
          if (d === null) return null;
          await record(tx, action);
          return blockFromDoc(d);
        });
      } catch (err) {
        if (duplicate(err)) return false;
        throw err;
      }
    },
    async record(action) {
      await m.collection(C.adminActions).insertOne(actionDoc(action) as never);
    },
    async delete(kind, blockId, action) {
      const id = lookupId(blockId);
      if (id === null) return null;
      return m.transaction(async (tx) => {
        const d = await tx.collection(C.serverBlocks).findOneAndDelete({ _id: id, kind }, { session: tx.session });
        if (d === null) return null;
        await record(tx, action);
        return blockFromDoc(d);
      });
    },
  };
}
