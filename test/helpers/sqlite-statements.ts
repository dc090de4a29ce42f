// Records the SQL of every prepared statement node:sqlite runs, so that a test can show what a
// cached read no longer reads. (Statements run by Db's raw exec, BEGIN and COMMIT, are not
// prepared ones: they are not counted.)

import { StatementSync } from 'node:sqlite';

/** The SQLite statements run until stop(). */
export function countStatements(): { stop(): string[] } {
  const methods = ['all', 'get', 'run', 'iterate'] as const;
  const originals = methods.map((m) => StatementSync.prototype[m]);
  const run: string[] = [];
  methods.forEach((m, i) => {
    const original = originals[i] as (...args: unknown[]) => unknown;
    (StatementSync.prototype as unknown as Record<string, unknown>)[m] = function (this: StatementSync, ...args: unknown[]) {
      run.push(this.sourceSQL);
      return original.apply(this, args);
    };
  });
  return {
    stop() {
      methods.forEach((m, i) => {
        (StatementSync.prototype as unknown as Record<string, unknown>)[m] = originals[i];
      });
      return run;
    },
  };
}
