// What a section of the storage contract (a file of its own, run by storageContract) is given:
// the runner's `it` and `shared`, a test with the assertions it uses, and the world's shortcuts.
// A subset of storage-contract.ts's own types, so that a section need not import that file.

import type { Account, Id, Status } from '../../core/domain/model.ts';
import type { Storage } from '../../core/domain/ports/storage.ts';

export interface SectionTest {
  equal(found: unknown, wanted: unknown, ...message: [] | [string]): unknown;
  strictSame(found: unknown, wanted: unknown, ...message: [] | [string]): unknown;
  pass(message: string): unknown;
}

export interface SectionWorld {
  s: Storage;
  id(): Id;
  account(): Promise<Account>;
  post(accountId: Id, o?: Partial<Status>): Promise<Status>;
}

export type It = (name: string, body: (t: SectionTest, w: SectionWorld) => Promise<void>) => void;
export type Shared = (name: string, body: (t: SectionTest, w: SectionWorld, other: Storage) => Promise<void>) => void;
