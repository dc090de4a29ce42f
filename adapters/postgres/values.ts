// Conversions between model values and PostgreSQL parameters and rows.
//
// Ids are bigint columns. They go in as decimal strings (cast in the statement, `$1::bigint`)
// and come out as strings (db.ts keeps int8 as text): never through a JS number. Timestamps are
// bigint epoch milliseconds; they come out as strings too and become numbers here (a Millis is
// below 2^53). JSON that nothing queries is stored as text: an exact round trip, and no trouble
// with the \u0000 escapes jsonb refuses.

import { isId } from '../../core/domain/ids.ts';
import type { Id } from '../../core/domain/model.ts';
import type { Page } from '../../core/domain/ports/storage.ts';
import type { Row, Sql } from './db.ts';

// ---- values in ----------------------------------------------------------------------------------

/** An id as a parameter. Throws on anything that is not an id. */
export function key(id: Id): string {
  if (!isId(id)) throw new TypeError(`not an id: ${JSON.stringify(id)}`);
  return id;
}
export function keyOrNull(id: Id | null): string | null {
  return id === null ? null : key(id);
}
/** For lookups: something that is not an id cannot exist, so the lookup misses (null). */
export function lookupKey(id: Id): string | null {
  return isId(id) ? id : null;
}
/** The ids among `ids` that can exist, each once: an `= ANY($n::bigint[])` parameter. */
export function keys(ids: Iterable<Id>): string[] {
  const out = new Set<string>();
  for (const id of ids) if (isId(id)) out.add(id);
  return [...out];
}
/** For lookups by a text key: text cannot hold U+0000, so such a key cannot be stored. */
export const storable = (s: string): boolean => typeof s === 'string' && !s.includes('\u0000');

export const jsonText = (v: unknown): string => JSON.stringify(v);

const MAX_BIGINT = 9223372036854775807n;
function clampMs(v: number): string {
  if (Number.isNaN(v)) throw new TypeError('a time is not a number');
  if (v === Infinity) return MAX_BIGINT.toString();
  if (v === -Infinity) return (-MAX_BIGINT).toString();
  const b = BigInt(v);
  return (b > MAX_BIGINT ? MAX_BIGINT : b < -MAX_BIGINT ? -MAX_BIGINT : b).toString();
}
/** A time compared with `column <= t` or `column > t`: whole milliseconds below it give the
 * same answer (a worker may ask with a fractional or far-off now). */
export const floorMs = (t: number): string => clampMs(Number.isFinite(t) ? Math.floor(t) : t);
/** A time compared with `column < t` or `column >= t`, or an end that must not come early. */
export const ceilMs = (t: number): string => clampMs(Number.isFinite(t) ? Math.ceil(t) : t);

// ---- values out ---------------------------------------------------------------------------------

export function id(v: unknown): Id {
  if (typeof v === 'string') return v;
  throw new TypeError(`expected an id, got ${typeof v}`);
}
export function idOrNull(v: unknown): Id | null {
  return v === null || v === undefined ? null : id(v);
}
/** bigint and integer columns (counters, times) as numbers. */
export function int(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return Number(v);
  throw new TypeError(`expected an integer, got ${typeof v}`);
}
export function intOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : int(v);
}
export function bool(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  throw new TypeError(`expected a boolean, got ${typeof v}`);
}
export function text(v: unknown): string {
  if (typeof v === 'string') return v;
  throw new TypeError(`expected text, got ${typeof v}`);
}
export function textOrNull(v: unknown): string | null {
  return v === null || v === undefined ? null : text(v);
}
export function json<T>(v: unknown): T {
  return JSON.parse(text(v)) as T;
}
export function jsonOrNull<T>(v: unknown): T | null {
  return v === null || v === undefined ? null : json<T>(v);
}

/** Rows fetched by `= ANY(ids)` put back in the order of `ids` (first occurrence; misses skipped). */
export function inOrder<T>(ids: readonly Id[], items: readonly T[], idOf: (item: T) => Id): T[] {
  const byId = new Map(items.map((item) => [idOf(item), item]));
  const out: T[] = [];
  const seen = new Set<Id>();
  for (const i of ids) {
    const item = byId.get(i);
    if (item !== undefined && !seen.has(i)) {
      seen.add(i);
      out.push(item);
    }
  }
  return out;
}

/** Highest id first (the port's default order), comparing as integers. */
export function newestFirst<T extends { id: Id }>(items: T[]): T[] {
  return items.sort((a, b) => {
    const x = BigInt(a.id);
    const y = BigInt(b.id);
    return x < y ? 1 : x > y ? -1 : 0;
  });
}

// ---- statements ---------------------------------------------------------------------------------

/** Numbered parameters for a statement built in pieces: `p.add(v)` gives "$n". */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
  /** An id parameter, cast. */
  id(value: Id): string {
    return `${this.add(key(value))}::bigint`;
  }
}

/** Builds "col = $n, …" for the fields of `patch` that `columns` knows; undefined values skipped. */
export function setClause<P extends object>(p: Params, patch: P, columns: { [K in keyof P]-?: [column: string, encode: (v: NonNullable<P[K]> | null) => unknown] }): string {
  const parts: string[] = [];
  for (const k of Object.keys(columns) as (keyof P)[]) {
    if (!Object.hasOwn(patch, k)) continue;
    const v = patch[k];
    if (v === undefined) continue;
    const [column, encode] = columns[k];
    parts.push(`${column} = ${p.add(encode(v as NonNullable<P[typeof k]> | null))}`);
  }
  return parts.join(', ');
}

/** A row count as a LIMIT: a whole number, at least 0. */
export const limitOf = (n: number): number => (Number.isFinite(n) ? Math.max(0, Math.trunc(n)) : 0);

export interface PageSql {
  /** " AND …" conditions on the cursor (empty when none). */
  where: string;
  /** " ORDER BY … LIMIT …" */
  tail: string;
  /** Rows come back oldest first (minId) and must be reversed. */
  reverse: boolean;
}

/** The port's Page as SQL on a bigint `column`: newest first; maxId older; sinceId newer; minId
 * the `limit` rows right above it. With `zeroIsAll`, limit 0 means no limit. */
export function pageSql(p: Params, column: string, page: Page, zeroIsAll = false): PageSql {
  let where = '';
  if (page.maxId !== undefined) where += ` AND ${column} < ${p.id(page.maxId)}`;
  if (page.sinceId !== undefined) where += ` AND ${column} > ${p.id(page.sinceId)}`;
  if (page.minId !== undefined) where += ` AND ${column} > ${p.id(page.minId)}`;
  const reverse = page.minId !== undefined;
  const all = zeroIsAll && page.limit === 0;
  const limit = all ? '' : ` LIMIT ${p.add(limitOf(page.limit))}`;
  return { where, tail: ` ORDER BY ${column} ${reverse ? 'ASC' : 'DESC'}${limit}`, reverse };
}

/** Runs `<select> WHERE <base>` paged by `column`; `base` is a complete condition written with `p`. */
export async function paged<T>(sql: Sql, p: Params, select: string, base: string, column: string, page: Page, map: (row: Row) => T, zeroIsAll = false): Promise<T[]> {
  const ps = pageSql(p, column, page, zeroIsAll);
  const rows = (await sql.rows(`${select} WHERE ${base}${ps.where}${ps.tail}`, p.values)).map(map);
  return ps.reverse ? rows.reverse() : rows;
}
