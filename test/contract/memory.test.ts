import t from 'tap';
import { createMemoryStorage } from '../../adapters/memory/index.ts';
import { storageContract } from './storage-contract.ts';

storageContract(t, 'memory', async () => {
  const storage = createMemoryStorage();
  return { storage, cleanup: () => storage.close() };
});
