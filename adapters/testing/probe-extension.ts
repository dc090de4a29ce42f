// A storage extension for the contract suite: it records, in its own storage, the writes it was
// asked to apply, and logs the order of checks and applies. It shows what a plugin's storage
// needs of an adapter (adapters that are not SQLite, MongoDB or PostgreSQL skip the tests that use it).

import { randomUUID } from 'node:crypto';
import type { MongoExtensionContext } from '../mongodb/storage.ts';
import type { SqliteExtensionContext } from '../sqlite/storage.ts';
import { postgresProbe } from './probe-postgres.ts';
import { StorageConflict, type StorageExtension, type StorageWrite } from '../../core/domain/ports/storage.ts';

export interface ProbeOptions {
  /** The check throws StorageConflict 'probe'. */
  fail?: boolean;
  /** The apply returns a promise (what a synchronous engine must refuse). */
  async?: boolean;
  /** Where to log 'check <key>' and 'apply <key>'. */
  seen?: string[];
}

export interface ProbeRepository {
  write(key: string, options?: ProbeOptions): StorageWrite;
  written(): Promise<string[]>;
}

function sqliteProbe(context: SqliteExtensionContext): ProbeRepository {
  context.migrate(['CREATE TABLE contract_probe (seq INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL) STRICT']);
  const { db } = context;
  return {
    write(key, options = {}) {
      return context.prepare({
        check() {
          options.seen?.push(`check ${key}`);
          if (options.fail) throw new StorageConflict('probe');
        },
        apply(tx) {
          options.seen?.push(`apply ${key}`);
          if (options.async) return Promise.resolve() as unknown as void;
          tx.run('INSERT INTO contract_probe (key) VALUES (?)', key);
        },
      });
    },
    async written() {
      return db.all('SELECT key FROM contract_probe ORDER BY seq').map((r) => String(r.key));
    },
  };
}

/** On MongoDB the steps are asynchronous, in the status's transaction; rows keep their order by
 * a sequence of the extension's own. */
function mongoProbe(context: MongoExtensionContext): ProbeRepository {
  const ready = context.setup({ indexes: [{ collection: 'contract_probe', name: 'contract_probe_seq', key: { seq: 1 } }] });
  return {
    write(key, options = {}) {
      return context.prepare({
        async check() {
          options.seen?.push(`check ${key}`);
          if (options.fail) throw new StorageConflict('probe');
        },
        async apply(tx) {
          options.seen?.push(`apply ${key}`);
          await ready;
          const seq = await context.sequence('contract_probe');
          await tx.collection('contract_probe').insertOne({ _id: randomUUID(), seq, key }, { session: tx.session });
        },
      });
    },
    async written() {
      await ready;
      return (await context.collection('contract_probe').find({}).sort({ seq: 1 }).toArray()).map((d) => String(d['key']));
    },
  };
}

export const probeStorage: StorageExtension<ProbeRepository> = {
  name: 'contract-probe',
  engines: { sqlite: sqliteProbe, mongodb: mongoProbe, postgres: postgresProbe },
};
