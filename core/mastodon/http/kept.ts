// Answers kept ready: the whole answer to a GET of an endpoint that declares `keep` (a status,
// its context, the public and hashtag timelines, an account and its statuses), anonymous or by
// a person (kept under their account), kept per process and served again, byte for byte, while
// the store's stamp (Storage.stamp) is the one it was made at and its time has not run out.
//
// Why it cannot be stale: the stamp is taken before the endpoint reads anything, and it moves
// with every commit, by any process, that may change what a read returns. An answer kept at
// stamp S is served only while the stamp taken for the new request, after it arrived, is still
// S: nothing was committed since the answer's reads, so reading again would read the same rows.
// What an answer shows that depends on the time alone (a poll that closes; for a person, one of
// their mutes or filters that ends) is noted while it is made (KeepNote.until) and ends the
// answer's life then. A new process keeps nothing yet.
//
// An action that committed nothing (a repeated favourite or bookmark) answers what GET of its
// status answers its caller (endpoint/types.ts, answerAsGet): that answer, kept or made and
// kept, under the GET's key. Only when the stamp the action's reads found (Storage.stampSeen;
// a store without it looks again) is the one taken before it: then the action wrote nothing,
// and decided on the state the kept answer shows.
//
// It is coarse on purpose: any commit ends every kept answer of the process (a busy instance
// serves fewer from here), which needs no list of what each write touches and so cannot miss
// one, plugins' writes included.

import type { Millis } from '../../domain/model.ts';
import type { StoreStamp } from '../../domain/ports/storage.ts';
import type { RawResponse } from './types.ts';

/** How many answers a process keeps, and how many bytes of bodies in all. */
export const KEPT_ANSWERS = 4_096;
export const KEPT_BYTES = 32 * 1024 * 1024;
/** A larger answer is not kept (a long timeline page with big statuses). */
export const KEPT_ANSWER_MAX_BYTES = 512 * 1024;

interface Kept {
  stamp: StoreStamp;
  until: Millis;
  status: number;
  headers: Readonly<Record<string, string | string[]>>;
  body: Uint8Array;
}

const encoder = new TextEncoder();

export class KeptAnswers {
  readonly #entries = new Map<string, Kept>();
  #bytes = 0;

  /** The answer kept for `key` at `stamp`, as a response of its own (the caller may add
   * headers), or undefined. An entry of another stamp, or past its time, is dropped. */
  get(key: string, stamp: StoreStamp, now: Millis): RawResponse | undefined {
    const kept = this.#entries.get(key);
    if (kept === undefined) return undefined;
    if (kept.stamp !== stamp || now >= kept.until) {
      this.#drop(key, kept);
      return undefined;
    }
    // Most recently used last: the first entry is the one to evict.
    this.#entries.delete(key);
    this.#entries.set(key, kept);
    return { status: kept.status, headers: { ...kept.headers }, body: kept.body };
  }

  /** Keeps `response` (made at `stamp`), unless it is too large; returns it with its body as
   * bytes, so that what is sent now and later is the same. */
  keep(key: string, stamp: StoreStamp, until: Millis, response: RawResponse): RawResponse {
    const body = typeof response.body === 'string' ? encoder.encode(response.body) : response.body;
    const answer = { ...response, body };
    if (body.byteLength > KEPT_ANSWER_MAX_BYTES) return answer;
    const old = this.#entries.get(key);
    if (old !== undefined) this.#drop(key, old);
    if (this.#entries.size >= KEPT_ANSWERS || this.#bytes + body.byteLength > KEPT_BYTES) this.#forget(body.byteLength);
    this.#entries.set(key, { stamp, until, status: response.status, headers: { ...response.headers }, body });
    this.#bytes += body.byteLength;
    return answer;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Makes room for `bytes` more in one pass (see domain/maps.ts, forgetOldest): the oldest eighth of
   * the answers when there are as many as may be, and the oldest while the bytes would not fit. */
  #forget(bytes: number): void {
    let count = this.#entries.size >= KEPT_ANSWERS ? KEPT_ANSWERS / 8 : 0;
    for (const [key, kept] of this.#entries) {
      if (count <= 0 && this.#bytes + bytes <= KEPT_BYTES) return;
      this.#drop(key, kept);
      count--;
    }
  }

  #drop(key: string, kept: Kept): void {
    this.#entries.delete(key);
    this.#bytes -= kept.body.byteLength;
  }
}
