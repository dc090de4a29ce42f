// A map bounded in entries that forgets the least recently used one first: what the render
// cache keeps its fragments in (one per process, shared by every request).

import { forgetOldest } from '../../../domain/maps.ts';

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
