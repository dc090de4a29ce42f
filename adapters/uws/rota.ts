// A set of connections taken in turns: each member gets a fixed turn among `turns` when it is
// added (round robin, so a burst of connections spreads over all of them), and each call of
// next() hands out the members of the next turn. Heartbeats and pings go out a turn at a time
// over their interval rather than all at once: a write to each of 5,000 SSE streams costs 60-74
// ms of CPU on the project's VM (the fan-out bench's bare server), and done at once it held the
// event loop that long, so a status published meanwhile reached its streams that much later.
// A member keeps its turn while others come and go, so it is visited once per rotation, never
// twice in quick succession (a ping that came again at once would find its answer not back yet).

export class Rota<T> implements Iterable<T> {
  readonly #turns: Set<T>[];
  readonly #turnOf = new Map<T, number>();
  #nextNew = 0;
  #nextVisited = 0;

  constructor(turns: number) {
    this.#turns = Array.from({ length: Math.max(1, Math.trunc(turns)) }, () => new Set<T>());
  }

  /** How many turns make one rotation. */
  get turns(): number {
    return this.#turns.length;
  }

  get size(): number {
    return this.#turnOf.size;
  }

  add(member: T): this {
    if (this.#turnOf.has(member)) return this;
    const turn = this.#nextNew;
    this.#nextNew = (turn + 1) % this.#turns.length;
    this.#turnOf.set(member, turn);
    this.#turns[turn]?.add(member);
    return this;
  }

  delete(member: T): boolean {
    const turn = this.#turnOf.get(member);
    if (turn === undefined) return false;
    this.#turnOf.delete(member);
    this.#turns[turn]?.delete(member);
    return true;
  }

  has(member: T): boolean {
    return this.#turnOf.has(member);
  }

  /** The members whose turn it is (a copy: visiting may remove them). */
  next(): T[] {
    const turn = this.#nextVisited;
    this.#nextVisited = (turn + 1) % this.#turns.length;
    return [...(this.#turns[turn] ?? [])];
  }

  [Symbol.iterator](): Iterator<T> {
    return this.#turnOf.keys();
  }
}

/** Turns for a rotation of `intervalMs`: 32 (a heartbeat every 15 s goes to a 32nd of the
 * streams every 470 ms), fewer for an interval so short that turns would come less than a
 * millisecond apart. */
export function turnsFor(intervalMs: number): number {
  return Math.max(1, Math.min(32, Math.floor(intervalMs)));
}

/** Visits every member of `rota` once per `intervalMs`, a turn at a time; the timer does not
 * keep the process alive. */
export function everyInTurn<T>(rota: Rota<T>, intervalMs: number, visit: (member: T) => void): ReturnType<typeof setInterval> {
  const timer = setInterval(() => {
    for (const member of rota.next()) visit(member);
  }, intervalMs / rota.turns);
  timer.unref();
  return timer;
}
