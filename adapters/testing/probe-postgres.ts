// The contract suite's probe extension on PostgreSQL (see probe-extension.ts): its steps are
// asynchronous, on the status's transaction; rows keep their order by an identity column.

import type { PostgresExtensionContext } from '../postgres/storage.ts';
import { StorageConflict, type StorageWrite } from '../../core/domain/ports/storage.ts';

/** The shape of probe-extension.ts's ProbeRepository (not imported: that file imports this one). */
export function postgresProbe(context: PostgresExtensionContext): {
  write(key: string, options?: { fail?: boolean; async?: boolean; seen?: string[] }): StorageWrite;
  written(): Promise<string[]>;
} {
  const ready = context.migrate(['CREATE TABLE contract_probe (seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, key text NOT NULL)']);
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
          await tx.run('INSERT INTO contract_probe (key) VALUES ($1)', [key]);
        },
      });
    },
    async written() {
      await ready;
      return (await context.sql.rows('SELECT key FROM contract_probe ORDER BY seq')).map((r) => String(r['key']));
    },
  };
}
