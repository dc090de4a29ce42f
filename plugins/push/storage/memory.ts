import type { MemoryExtensionContext } from 'rookery/memory';
import type { Id } from 'rookery/plugin-kit';
import type { PushRepository, PushSubscription, VapidKeys } from './port.ts';

const copy = (s: PushSubscription): PushSubscription => structuredClone(s);

export function memoryPushRepository(context: MemoryExtensionContext): PushRepository {
  const subscriptions = (context.state['subscriptions'] ??= new Map<Id, PushSubscription>()) as Map<Id, PushSubscription>;
  const keys = (context.state['vapid'] ??= { value: null as VapidKeys | null }) as { value: VapidKeys | null };
  const ofToken = (tokenId: Id) => [...subscriptions.values()].find((s) => s.tokenId === tokenId);
  return {
    async replace(subscription) {
      const old = ofToken(subscription.tokenId);
      if (old) subscriptions.delete(old.id);
      subscriptions.set(subscription.id, copy(subscription));
    },
    async get(id) {
      const found = subscriptions.get(id);
      return found ? copy(found) : null;
    },
    async byToken(tokenId) {
      const found = ofToken(tokenId);
      return found ? copy(found) : null;
    },
    async forAccount(accountId) {
      return [...subscriptions.values()]
        .filter((s) => s.accountId === accountId)
        .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))
        .map(copy);
    },
    async update(tokenId, changes) {
      const found = ofToken(tokenId);
      if (!found) return null;
      found.alerts = { ...changes.alerts };
      found.policy = changes.policy;
      return copy(found);
    },
    async deleteByToken(tokenId) {
      const found = ofToken(tokenId);
      if (!found) return false;
      subscriptions.delete(found.id);
      return true;
    },
    async delete(id) {
      subscriptions.delete(id);
    },
    async vapidKeys(candidate) {
      keys.value ??= { ...candidate };
      return { ...keys.value };
    },
  };
}
