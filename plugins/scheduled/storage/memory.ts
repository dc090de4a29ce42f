import type { MemoryExtensionContext } from 'rookery/memory';
import { type Id, type ScheduledStatus, StorageConflict } from 'rookery/plugin-kit';
import type { ScheduledStatusRepository } from './port.ts';

const clone = <T>(value: T): T => structuredClone(value);
const byIdDesc = (a: { id: Id }, b: { id: Id }) => (BigInt(a.id) === BigInt(b.id) ? 0 : BigInt(b.id) > BigInt(a.id) ? 1 : -1);

export function memoryScheduledRepository(context: MemoryExtensionContext): ScheduledStatusRepository {
  const rows = (context.state['scheduled'] ??= new Map<Id, ScheduledStatus>()) as Map<Id, ScheduledStatus>;
  return {
    async create(s, outbox) {
      context.withOutbox(outbox, () => {
        if (rows.has(s.id)) throw new StorageConflict('id');
        rows.set(s.id, clone(s));
      });
    },
    async get(id) {
      const s = rows.get(id);
      return s ? clone(s) : null;
    },
    async listBy(accountId, page) {
      let list = [...rows.values()].filter((s) => s.accountId === accountId);
      const after = (x: Id, y: Id) => BigInt(x) > BigInt(y);
      if (page.maxId !== undefined) list = list.filter((s) => after(page.maxId as Id, s.id));
      if (page.sinceId !== undefined) list = list.filter((s) => after(s.id, page.sinceId as Id));
      if (page.minId !== undefined) {
        list = list.filter((s) => after(s.id, page.minId as Id)).sort((a, b) => byIdDesc(b, a)).slice(0, Math.max(0, page.limit));
        return list.reverse().map(clone);
      }
      return list.sort(byIdDesc).slice(0, Math.max(0, page.limit)).map(clone);
    },
    async update(id, scheduledAt, outbox) {
      return context.withOutbox(outbox, () => {
        const s = rows.get(id);
        if (!s) return null;
        s.scheduledAt = scheduledAt;
        return clone(s);
      });
    },
    async delete(id) {
      return rows.delete(id);
    },
    async countBetween(accountId, from, to) {
      let n = 0;
      for (const s of rows.values()) if (s.accountId === accountId && s.scheduledAt >= from && s.scheduledAt < to) n += 1;
      return n;
    },
    async countPending(accountId) {
      let n = 0;
      for (const s of rows.values()) if (s.accountId === accountId) n += 1;
      return n;
    },
    async claimDue(now, leaseMs, limit) {
      const due = [...rows.values()]
        .filter((s) => s.scheduledAt <= now && (s.claimedUntil === null || s.claimedUntil <= now))
        .sort((a, b) => a.scheduledAt - b.scheduledAt || byIdDesc(b, a))
        .slice(0, Math.max(0, limit));
      for (const s of due) s.claimedUntil = now + leaseMs;
      return due.map(clone);
    },
    consume(id) {
      return context.prepare({
        check() {
          if (!rows.has(id)) throw new StorageConflict('scheduled');
        },
        apply() {
          rows.delete(id);
        },
      });
    },
  };
}
