// A map bounded in entries that forgets the least recently used one first: what the render
// cache keeps its fragments in (one per process, shared by every request).

/** Forgets the oldest eighth of a full map in one pass. One entry per insert would start a new
 * iterator each time, and a Map's iterator walks past every slot deleted since it last grew:
 * tens of microseconds per insert in a full map of thousands. */
export function forgetOldest<K>(entries: Map<K, unknown>, max: number): void {
  let count = Math.max(1, Math.floor(max / 8));
  for (const key of entries.keys()) {
    entries.delete(key);
    if (--count === 0) return;
  }
}

export class Lru<K, V> {
  readonly #max: number;
  readonly #entries = new Map<K, V>();

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1) throw new Error('an Lru holds at least one entry');
    this.#max = max;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined || this.#entries.size < this.#max / 2) return value;
    // Most recently used last (Map keeps insertion order); not worth it while half empty.
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.#max) forgetOldest(this.#entries, this.#max);
    this.#entries.set(key, value);
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}
