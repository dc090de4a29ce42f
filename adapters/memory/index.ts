// `rookery/memory`: a store that lives and dies with the process, for tests and demos. It is the
// SQLite engine on a private in-memory database (commits wait for no disk), so it keeps every
// rule of the storage contract, and every plugin that supports SQLite supports it. The
// in-process event bus is the default of one process.

import { openSqliteStorage } from '../sqlite/index.ts';
import type { Storage } from '../../core/domain/ports/storage.ts';

export { createInProcessBus } from '../../core/domain/bus.ts';

export function createMemoryStorage(): Storage {
  return openSqliteStorage({ path: ':memory:', synchronous: 'normal' });
}
