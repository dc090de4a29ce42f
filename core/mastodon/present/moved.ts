// The `moved` of an Account entity: the account it moved to, rendered beside it (Mastodon
// nests it once: the moved account's own `moved` is left out). A decorator of the core's own,
// so that every rendering of an account (profiles, statuses, notifications) carries it, read
// in one batch for a presentation call and only when one of its accounts moved.

import type { AppCore, BoundAccountDecorator } from '../context.ts';
import type { Account, Id } from '../../domain/model.ts';
import { renderAccount } from './account.ts';

export function movedDecorator(core: AppCore): BoundAccountDecorator {
  return {
    plugin: 'core',
    covers: (account) => account.movedToAccountId !== null,
    async load(accounts) {
      const ids = [...new Set(accounts.flatMap((account) => (account.movedToAccountId === null ? [] : [account.movedToAccountId])))];
      return new Map((await core.storage.accounts.getMany(ids)).filter((target) => target.deletedAt === null).map((target) => [target.id, target]));
    },
    render(account, loaded, json) {
      const target = account.movedToAccountId === null ? undefined : (loaded as Map<Id, Account>).get(account.movedToAccountId);
      if (target !== undefined) json.moved = renderAccount(core.config, target);
    },
  };
}
