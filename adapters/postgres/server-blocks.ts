// The admin API's blocks and allows, one table told apart by kind; each write records its admin
// action in the same transaction.

import type { ServerBlockRepository } from '../../core/domain/ports/storage.ts';
import { StorageConflict } from '../../core/domain/ports/storage.ts';
import type { AdminAction, ServerBlock, ServerBlockKind } from '../../core/domain/model.ts';
import type { Db, Row, Sql } from './db.ts';
import { Params, id, int, intOrNull, key, lookupKey, paged, setClause, text, textOrNull } from './values.ts';

const COLUMNS = 'id, kind, key, severity, comment, expires_at, created_at, updated_at';
const BLOCK = `SELECT ${COLUMNS} FROM server_blocks`;
const KEYS_LIMIT = 100;

function blockFromRow(r: Row): ServerBlock {
  return {
    id: id(r['id']),
    kind: text(r['kind']) as ServerBlockKind,
    key: text(r['key']),
    severity: textOrNull(r['severity']),
    comment: text(r['comment']),
    expiresAt: intOrNull(r['expires_at']),
    createdAt: int(r['created_at']),
    updatedAt: int(r['updated_at']),
  };
}

const asIs = <T>(v: T) => v;

const record = (sql: Sql, action: AdminAction) =>
  sql.run('INSERT INTO admin_actions (id, account_id, action, target_type, target_id, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
    key(action.id), key(action.accountId), action.action, action.targetType, key(action.targetId), action.createdAt,
  ]);

export function serverBlockRepository(db: Db): ServerBlockRepository {
  return {
    async create(block, action) {
      return db.transaction(async (tx) => {
        const r = await tx.row(
          `INSERT INTO server_blocks (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (kind, key) DO NOTHING RETURNING id`,
          [key(block.id), block.kind, block.key, block.severity, block.comment, block.expiresAt, block.createdAt, block.updatedAt],
        );
        if (r === undefined) return false;
        await record(tx, action);
        return true;
      });
    },
    async get(kind, blockId) {
      const k = lookupKey(blockId);
      if (k === null) return null;
      const r = await db.row(`${BLOCK} WHERE id = $1 AND kind = $2`, [k, kind]);
      return r ? blockFromRow(r) : null;
    },
    async list(kind, page) {
      const p = new Params();
      return paged(db, p, BLOCK, `kind = ${p.add(kind)}`, 'id', page, blockFromRow);
    },
    async withKeys(kind, keys) {
      const wanted = [...new Set(keys)].slice(0, KEYS_LIMIT);
      if (wanted.length === 0) return [];
      return (await db.rows(`${BLOCK} WHERE kind = $1 AND key = ANY($2::text[])`, [kind, wanted])).map(blockFromRow);
    },
    async update(kind, blockId, patch, action) {
      const k = lookupKey(blockId);
      if (k === null) return null;
      const p = new Params();
      const set = setClause(p, patch, { key: ['key', asIs], severity: ['severity', asIs], comment: ['comment', asIs], expiresAt: ['expires_at', asIs], updatedAt: ['updated_at', asIs] });
      const where = `id = ${p.add(k)}::bigint AND kind = ${p.add(kind)}`;
      try {
        return await db.transaction(async (tx) => {
          const r = await tx.row(set === '' ? `${BLOCK} WHERE ${where}` : `UPDATE server_blocks SET ${set} WHERE ${where} RETURNING ${COLUMNS}`, p.values);
          if (r === undefined) return null;
          await record(tx, action);
          return blockFromRow(r);
        });
      } catch (err) {
        // The new key is another block's.
        if (err instanceof StorageConflict && err.rule === 'server_blocks_key') return false;
        throw err;
      }
    },
    async record(action) {
      await record(db, action);
    },
    async delete(kind, blockId, action) {
      const k = lookupKey(blockId);
      if (k === null) return null;
      return db.transaction(async (tx) => {
        const r = await tx.row(`DELETE FROM server_blocks WHERE id = $1 AND kind = $2 RETURNING ${COLUMNS}`, [k, kind]);
        if (r === undefined) return null;
        await record(tx, action);
        return blockFromRow(r);
      });
    },
  };
}
