import t from 'tap';
import { createMemoryStorage } from '../../adapters/memory/index.ts';
import { storageContract } from '../../adapters/testing/index.ts';

storageContract(t, 'memory', async () => {
  const storage = createMemoryStorage();
  return { storage, cleanup: () => storage.close() };
});
