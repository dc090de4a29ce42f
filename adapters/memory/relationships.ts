import { compareIds } from '../../core/domain/ids.ts';
import type { RelationshipFacts, RelationshipRepository } from '../../core/domain/ports/storage.ts';
import type { Id } from '../../core/domain/model.ts';
import { addToAccount } from './accounts.ts';
import { clone, paginate } from './shared.ts';
import type { MemoryState } from './state.ts';
import { recordOutbox } from './jobs.ts';

export function relationshipRepository(state: MemoryState): RelationshipRepository {
  const { accounts, follows, requests, blocks, mutes, domainBlocks } = state;
  const domainOf = (accountId: Id): string | null => accounts.get(accountId)?.domain?.toLowerCase() ?? null;
  const removeFollow = (accountId: Id, targetId: Id): boolean => {
    if (!follows.remove(accountId, targetId)) return false;
    addToAccount(state, accountId, 'followingCount', -1);
    addToAccount(state, targetId, 'followersCount', -1);
    return true;
  };
  return {
    async follow(f, outbox) {
      return recordOutbox(state.jobs, outbox, (() => {
        const existing = follows.get(f.accountId, f.targetAccountId);
        if (existing) {
          existing.showReblogs = f.showReblogs;
          existing.notify = f.notify;
          existing.languages = clone(f.languages);
          requests.remove(f.accountId, f.targetAccountId);
          return 'updated';
        }
        follows.insert(f.accountId, f.targetAccountId, clone(f));
        addToAccount(state, f.accountId, 'followingCount', 1);
        addToAccount(state, f.targetAccountId, 'followersCount', 1);
        requests.remove(f.accountId, f.targetAccountId);
        return 'created';
      })());
    },
    async unfollow(accountId, targetId, outbox) {
      return recordOutbox(state.jobs, outbox, removeFollow(accountId, targetId));
    },
    async getFollow(accountId, targetId) {
      const f = follows.get(accountId, targetId);
      return f ? clone(f) : null;
    },
    async requestFollow(r, outbox) {
      return recordOutbox(state.jobs, outbox, (() => {
        if (follows.get(r.accountId, r.targetAccountId)) return 'exists';
        const existing = requests.get(r.accountId, r.targetAccountId);
        if (existing) {
          existing.showReblogs = r.showReblogs;
          existing.notify = r.notify;
          existing.languages = clone(r.languages);
          return 'exists';
        }
        requests.insert(r.accountId, r.targetAccountId, clone(r));
        return 'created';
      })());
    },
    async cancelFollowRequest(accountId, targetId, outbox) {
      return recordOutbox(state.jobs, outbox, requests.remove(accountId, targetId) !== undefined);
    },
    async followRequestsTo(targetId, page) {
      const rows = [...requests.values()].filter((r) => r.targetAccountId === targetId);
      return paginate(rows, (r) => r.id, page).map(clone);
    },
    async followersOf(targetId, page) {
      const rows = [...follows.values()].filter((f) => f.targetAccountId === targetId);
      return paginate(rows, (f) => f.id, page).map(clone);
    },
    async followingOf(accountId, page) {
      const rows = [...follows.values()].filter((f) => f.accountId === accountId);
      return paginate(rows, (f) => f.id, page).map(clone);
    },
    async localFollowers(targetId) {
      const rows = [...follows.values()].filter((f) => f.targetAccountId === targetId && accounts.get(f.accountId)?.domain === null);
      rows.sort((a, b) => compareIds(b.id, a.id));
      return rows.map(clone);
    },
    async block(b, outbox) {
      return recordOutbox(state.jobs, outbox, (() => {
        if (blocks.get(b.accountId, b.targetAccountId)) return false;
        blocks.insert(b.accountId, b.targetAccountId, clone(b));
        removeFollow(b.accountId, b.targetAccountId);
        removeFollow(b.targetAccountId, b.accountId);
        requests.remove(b.accountId, b.targetAccountId);
        requests.remove(b.targetAccountId, b.accountId);
        return true;
      })());
    },
    async unblock(accountId, targetId, outbox) {
      return recordOutbox(state.jobs, outbox, (() => {
        return blocks.remove(accountId, targetId) !== undefined;
      })());
    },
    async blocksBy(accountId, page) {
      const rows = [...blocks.values()].filter((b) => b.accountId === accountId);
      return paginate(rows, (b) => b.id, page).map(clone);
    },
    async mute(m, outbox) {
      return recordOutbox(state.jobs, outbox, (() => {
        const existing = mutes.get(m.accountId, m.targetAccountId);
        if (existing) {
          existing.notifications = m.notifications;
          existing.expiresAt = m.expiresAt;
          return false;
        }
        mutes.insert(m.accountId, m.targetAccountId, clone(m));
        return true;
      })());
    },
    async unmute(accountId, targetId, outbox) {
      return recordOutbox(state.jobs, outbox, (() => {
        return mutes.remove(accountId, targetId) !== undefined;
      })());
    },
    async mutesBy(accountId, page) {
      const rows = [...mutes.values()].filter((m) => m.accountId === accountId);
      return paginate(rows, (m) => m.id, page).map(clone);
    },
    async relationships(accountId, targetIds) {
      return targetIds.map((targetId): RelationshipFacts => {
        const following = follows.get(accountId, targetId);
        const requested = requests.get(accountId, targetId);
        const muting = mutes.get(accountId, targetId);
        return {
          targetId,
          following: following ? clone(following) : null,
          followedBy: follows.get(targetId, accountId) !== undefined,
          requested: requested ? clone(requested) : null,
          requestedBy: requests.get(targetId, accountId) !== undefined,
          blocking: blocks.get(accountId, targetId) !== undefined,
          blockedBy: blocks.get(targetId, accountId) !== undefined,
          muting: muting ? clone(muting) : null,
          domainBlocking: domainOf(targetId) !== null && domainBlocks.get(accountId, domainOf(targetId) as string) !== undefined,
        };
      });
    },
    async hiddenFrom(accountId, accountIds, now) {
      const hidden = new Set<Id>();
      for (const other of accountIds) {
        const m = mutes.get(accountId, other);
        if (blocks.get(accountId, other) || blocks.get(other, accountId) || (m && (m.expiresAt === null || m.expiresAt > now))) hidden.add(other);
      }
      return hidden;
    },
    async blockDomain(b, outbox) {
      const domain = b.domain.toLowerCase();
      if (domainBlocks.get(b.accountId, domain)) return recordOutbox(state.jobs, outbox, false);
      domainBlocks.insert(b.accountId, domain, { ...clone(b), domain });
      return recordOutbox(state.jobs, outbox, true);
    },
    async unblockDomain(accountId, domain, outbox) {
      return recordOutbox(state.jobs, outbox, domainBlocks.remove(accountId, domain.toLowerCase()) !== undefined);
    },
    async domainBlocksBy(accountId, page) {
      const rows = [...domainBlocks.values()].filter((b) => b.accountId === accountId);
      return paginate(rows, (b) => b.id, page).map(clone);
    },
    async hiddenState(accountId, now) {
      const hidden = { blocking: [] as Id[], blockedBy: [] as Id[], muting: [] as { accountId: Id; expiresAt: number | null }[], domains: [] as string[] };
      for (const b of blocks.values()) {
        if (b.accountId === accountId) hidden.blocking.push(b.targetAccountId);
        if (b.targetAccountId === accountId) hidden.blockedBy.push(b.accountId);
      }
      for (const m of mutes.values()) {
        if (m.accountId === accountId && (m.expiresAt === null || m.expiresAt > now)) hidden.muting.push({ accountId: m.targetAccountId, expiresAt: m.expiresAt });
      }
      for (const b of domainBlocks.values()) if (b.accountId === accountId) hidden.domains.push(b.domain);
      return hidden;
    },
  };
}
