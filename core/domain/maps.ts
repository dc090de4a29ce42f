// Bounded maps in the process (caches of rows, renders, answers, lookups): how a full one makes
// room.

/** Forgets the oldest eighth of a full map (insertion order) in one pass. One entry per insert
 * would cost more and more: a Map keeps the slots of deleted entries until it is rehashed, and
 * every new iterator walks past them from the start, so taking the first key after each of
 * thousands of deletions grew with the map's size (about 88 µs per eviction at 20k entries). */
export function forgetOldest<K>(entries: Map<K, unknown>, max: number): void {
  let left = Math.ceil(max / 8);
  for (const key of entries.keys()) {
    entries.delete(key);
    if (--left <= 0) return;
  }
}
