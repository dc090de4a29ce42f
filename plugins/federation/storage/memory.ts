import type { MemoryExtensionContext } from 'rookery/memory';
import type { DomainBlock, FederationRows, KvRow } from './port.ts';

const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

export function memoryFederationRows(context: MemoryExtensionContext): FederationRows {
  const kv = (context.state['kv'] ??= new Map<string, KvRow>()) as Map<string, KvRow>;
  const blocks = (context.state['blocks'] ??= new Map<string, DomainBlock>()) as Map<string, DomainBlock>;
  const same = (a: KvRow | undefined, b: KvRow | null) =>
    a === undefined ? b === null : b !== null && a.value === b.value && a.expiresAt === b.expiresAt;
  return {
    async kvRead(key) {
      const row = kv.get(key);
      return row ? { ...row } : null;
    },
    async kvReadMany(keys) {
      return keys.flatMap((key) => {
        const row = kv.get(key);
        return row ? [{ ...row }] : [];
      });
    },
    async kvWrite(row) {
      kv.set(row.key, { ...row });
    },
    async kvRemove(key) {
      kv.delete(key);
    },
    async kvRange(exact, from, to, now, limit) {
      return [...kv.values()]
        .filter((r) => (r.key === exact || (r.key >= from && r.key < to)) && (r.expiresAt === null || r.expiresAt > now))
        .sort(byKey)
        .slice(0, limit)
        .map((r) => ({ ...r }));
    },
    async kvSwap(seen, next) {
      if (!same(kv.get(next.key), seen)) return false;
      kv.set(next.key, { ...next });
      return true;
    },
    async kvExpire(now, key) {
      let n = 0;
      for (const row of key === undefined ? [...kv.values()] : [kv.get(key)]) {
        if (row !== undefined && row.expiresAt !== null && row.expiresAt <= now && kv.delete(row.key)) n += 1;
      }
      return n;
    },
    async blockUpsert(block) {
      const kept = { ...block, createdAt: blocks.get(block.domain)?.createdAt ?? block.createdAt };
      blocks.set(block.domain, kept);
      return { ...kept };
    },
    async blockRemove(domain) {
      return blocks.delete(domain);
    },
    async blockList() {
      return [...blocks.values()].sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0)).map((b) => ({ ...b }));
    },
    async blockAny(domains) {
      return domains.some((d) => blocks.has(d));
    },
  };
}
