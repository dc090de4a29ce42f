// The admin API's blocks and allows, one table told apart by kind; each write records its admin
// action in the same transaction.

import type { ServerBlockRepository } from '../../core/domain/ports/storage.ts';
import type { AdminAction, ServerBlock, ServerBlockKind } from '../../core/domain/model.ts';
import { id, int, intOrNull, key, lookupKey, paged, setClause, text, textOrNull, type Db, type Row } from './db.ts';

const BLOCK = 'SELECT id, kind, key, severity, comment, expires_at, created_at, updated_at FROM server_blocks';
const KEYS_LIMIT = 100;

function blockFromRow(r: Row): ServerBlock {
  return {
    id: id(r.id),
    kind: text(r.kind) as ServerBlockKind,
    key: text(r.key),
    severity: textOrNull(r.severity),
    comment: text(r.comment),
    expiresAt: intOrNull(r.expires_at),
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
  };
}

const asIs = (v: string | number | null) => v;

export function serverBlockRepository(db: Db): ServerBlockRepository {
  const getBlock = (kind: ServerBlockKind, k: bigint): ServerBlock | null => {
    const r = db.get(`${BLOCK} WHERE id = ? AND kind = ?`, k, kind);
    return r ? blockFromRow(r) : null;
  };
  const keyTaken = (kind: ServerBlockKind, value: string, except: bigint | null): boolean =>
    db.get('SELECT id FROM server_blocks WHERE kind = ? AND key = ? AND id IS NOT ?', kind, value, except) !== undefined;
  const record = (action: AdminAction) =>
    db.run(
      'INSERT INTO admin_actions (id, account_id, action, target_type, target_id, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      key(action.id), key(action.accountId), action.action, action.targetType, key(action.targetId), action.createdAt,
    );
  return {
    async create(block, action) {
      return db.write(() => {
        if (keyTaken(block.kind, block.key, null)) return false;
        db.run(
          'INSERT INTO server_blocks (id, kind, key, severity, comment, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
          key(block.id), block.kind, block.key, block.severity, block.comment, block.expiresAt, block.createdAt, block.updatedAt,
        );
        record(action);
        return true;
      });
    },
    async get(kind, blockId) {
      const k = lookupKey(blockId);
      return k === null ? null : getBlock(kind, k);
    },
    async list(kind, page) {
      return paged(db, BLOCK, 'kind = ?', [kind], 'id', page, blockFromRow);
    },
    async withKeys(kind, keys) {
      const wanted = [...new Set(keys)].slice(0, KEYS_LIMIT);
      if (wanted.length === 0) return [];
      return db.all(`${BLOCK} WHERE kind = ? AND key IN (SELECT value FROM json_each(?))`, kind, JSON.stringify(wanted)).map(blockFromRow);
    },
    async update(kind, blockId, patch, action) {
      const k = lookupKey(blockId);
      if (k === null) return null;
      const set = setClause(patch, { key: ['key', asIs], severity: ['severity', asIs], comment: ['comment', asIs], expiresAt: ['expires_at', asIs], updatedAt: ['updated_at', asIs] });
      return db.write(() => {
        if (getBlock(kind, k) === null) return null;
        if (patch.key !== undefined && keyTaken(kind, patch.key, k)) return false;
        if (set.sql !== '') db.run(`UPDATE server_blocks SET ${set.sql} WHERE id = ?`, ...set.params, k);
        record(action);
        return getBlock(kind, k);
      });
    },
    async record(action) {
      await db.write(() => record(action));
    },
    async delete(kind, blockId, action) {
      const k = lookupKey(blockId);
      if (k === null) return null;
      return db.write(() => {
        const block = getBlock(kind, k);
        if (block === null) return null;
        db.run('DELETE FROM server_blocks WHERE id = ?', k);
        record(action);
        return block;
      });
    },
  };
}
