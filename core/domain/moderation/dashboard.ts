// The admin dashboard's figures (Mastodon's measures, dimensions and retention), read from the
// store (storage.analytics): what each key counts, the period it covers and every bound on the
// request. Mastodon takes any period; here one spans at most MAX_DAYS days (monthly retention:
// MAX_MONTH_DAYS), a request names at most MAX_KEYS keys and a dimension lists at most MAX_LIMIT
// entries.

import type { Core } from '../context.ts';
import { RookeryError, badRequest, forbidden, notFound, unprocessable } from '../errors.ts';
import type { Account, Millis } from '../model.ts';
import { DAY, dayOf } from './activity.ts';
import { can, type Permission } from './roles.ts';
import type { AnalyticsCount, AnalyticsDimension, RetentionRow } from '../ports/storage.ts';
import { tagIdOf } from '../tags/names.ts';
import { normalizeTag } from '../text/index.ts';

export const MAX_DAYS = 366;
export const MAX_MONTH_DAYS = 731;
export const MAX_KEYS = 50;
export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;
/** A period left unsaid: the 30 days up to today. */
const DEFAULT_DAYS = 30;
/** How many recent hashtag uses a tag id is looked for among (ids are digests of names). */
const TAG_LOOKUP_USES = 5_000;

/** The caller when their role has the permission; Mastodon's 403 otherwise. */
export function staffWith(caller: Account | null, permission: Permission): Account {
  if (caller === null || !can(caller.role, permission)) throw forbidden();
  return caller;
}

/** Whole UTC days: `days` of them from `from` (the start of the first). */
export interface Period {
  from: Millis;
  days: number;
}

/** A date, or a date and time with or without its offset (none: UTC, as Rails reads it). */
const DATE = /^(\d{4}-\d{2}-\d{2})(?:[T ]([0-9:.]+)(Z|[+-]\d{2}:?\d{2})?)?$/;

function dateParam(name: string, value: string | undefined): Millis | undefined {
  if (value === undefined || value === '') return undefined;
  const parts = value.length <= 40 ? DATE.exec(value) : null;
  const at = parts === null ? Number.NaN : Date.parse(`${parts[1]}T${parts[2] ?? '00:00:00'}${parts[3] ?? 'Z'}`);
  if (!Number.isFinite(at)) throw badRequest(`Invalid date in ${name}`);
  return at;
}

/** The days from start_at's to end_at's, both included (Mastodon's series). Unsaid: the 30 days
 * up to end_at (or today). */
export function periodOf(now: Millis, startAt: string | undefined, endAt: string | undefined, maxDays: number = MAX_DAYS): Period {
  const end = dateParam('end_at', endAt);
  const start = dateParam('start_at', startAt);
  const last = dayOf(end ?? now);
  const first = start === undefined ? last - (DEFAULT_DAYS - 1) * DAY : dayOf(start);
  if (first > last) throw unprocessable('end_at must not be before start_at');
  const days = (last - first) / DAY + 1;
  if (days > maxDays) throw unprocessable(`The period may span at most ${maxDays} days`);
  return { from: first, days };
}

/** The keys asked for, at most MAX_KEYS. */
export function keysOf(keys: readonly string[] | undefined): string[] {
  if (keys === undefined) return [];
  if (keys.length > MAX_KEYS) throw unprocessable(`At most ${MAX_KEYS} keys may be asked for`);
  return [...keys];
}

export function limitOf(raw: number | undefined): number {
  return raw === undefined ? DEFAULT_LIMIT : Math.min(Math.abs(raw), MAX_LIMIT);
}

/** What a key's parameters may hold (Mastodon's `tag_uses[id]=…`, `instance_accounts[domain]=…`). */
export interface KeyParams {
  id?: string | undefined;
  domain?: string | undefined;
  /** The instance_* measures: the domain's subdomains count too. */
  includeSubdomains?: boolean | undefined;
}

/** Mastodon's text when a key's parameters are missing (ActionController::ParameterMissing). */
const missing = (key: string) => new RookeryError(400, `param is missing or the value is empty: ${key}`);

/** Finds hashtags by their Tag id among the recent uses (from `since`), reading those uses
 * once however many keys of a request name a tag. */
function tagFinder(core: Core, since: Millis): (key: string, params: KeyParams | undefined) => Promise<string | null> {
  let byId: Promise<Map<string, string>> | null = null;
  return async (key, params) => {
    const id = params?.id;
    if (id === undefined || id === '') throw missing(key);
    if (!/^\d{1,19}$/.test(id)) throw notFound();
    byId ??= core.storage.tags
      .uses({ since, visibilities: ['public', 'unlisted', 'private', 'direct'] }, TAG_LOOKUP_USES)
      .then((uses) => new Map([...new Set(uses.map((u) => u.tag))].map((tag) => [tagIdOf(normalizeTag(tag)), tag])));
    // null: none of them has it, so there is nothing to count.
    return (await byId).get(id) ?? null;
  };
}

function domainOf(key: string, params: KeyParams | undefined): string {
  const domain = params?.domain?.trim().toLowerCase();
  if (domain === undefined || domain === '') throw missing(key);
  if (domain.length > 253) throw notFound();
  return domain;
}

// ---- measures -------------------------------------------------------------------------------------

type MeasureSource = { kind: 'plain' } | { kind: 'tag' } | { kind: 'domain' };

const MEASURES: Record<string, { source: MeasureSource; count: (arg: string, subdomains: boolean) => AnalyticsCount; inRange: boolean }> = {
  active_users: { source: { kind: 'plain' }, count: () => ({ what: 'activeUsers' }), inRange: true },
  new_users: { source: { kind: 'plain' }, count: () => ({ what: 'newUsers' }), inRange: true },
  interactions: { source: { kind: 'plain' }, count: () => ({ what: 'interactions' }), inRange: true },
  opened_reports: { source: { kind: 'plain' }, count: () => ({ what: 'openedReports' }), inRange: true },
  resolved_reports: { source: { kind: 'plain' }, count: () => ({ what: 'resolvedReports' }), inRange: true },
  tag_accounts: { source: { kind: 'tag' }, count: (tag) => ({ what: 'tagAccounts', tag }), inRange: true },
  tag_uses: { source: { kind: 'tag' }, count: (tag) => ({ what: 'tagUses', tag }), inRange: true },
  tag_servers: { source: { kind: 'tag' }, count: (tag) => ({ what: 'tagServers', tag }), inRange: true },
  instance_accounts: { source: { kind: 'domain' }, count: (domain, subdomains) => ({ what: 'domainAccounts', domain, subdomains }), inRange: false },
  instance_reports: { source: { kind: 'domain' }, count: (domain, subdomains) => ({ what: 'domainReports', domain, subdomains }), inRange: false },
  instance_statuses: { source: { kind: 'domain' }, count: (domain, subdomains) => ({ what: 'domainStatuses', domain, subdomains }), inRange: false },
  instance_follows: { source: { kind: 'domain' }, count: (domain, subdomains) => ({ what: 'domainFollows', domain, subdomains }), inRange: false },
  instance_followers: { source: { kind: 'domain' }, count: (domain, subdomains) => ({ what: 'domainFollowers', domain, subdomains }), inRange: false },
};

export const MEASURE_KEYS: readonly string[] = Object.keys(MEASURES);

export interface Measure {
  key: string;
  unit: string | null;
  total: number;
  /** The same number of days just before; only for totals over the period (Mastodon leaves it
   * out of the instance_* measures, whose total is of all time). */
  previousTotal?: number;
  data: { date: Millis; value: number }[];
}

/** The measures asked for, in their order; unknown keys are left out (as Mastodon does). */
export async function measures(core: Core, keys: readonly string[], period: Period, paramsOf: (key: string) => KeyParams | undefined): Promise<Measure[]> {
  const out: Measure[] = [];
  const range = { from: period.from, to: period.from + period.days * DAY };
  const previous = { from: period.from - period.days * DAY, to: period.from };
  const tagNamed = tagFinder(core, previous.from);
  for (const key of keys) {
    const measure = Object.hasOwn(MEASURES, key) ? MEASURES[key] : undefined;
    if (measure === undefined) continue;
    let arg = '';
    const own = paramsOf(key);
    if (measure.source.kind === 'tag') {
      const tag = await tagNamed(key, own);
      if (tag === null) {
        out.push(zeros(key, period, measure.inRange));
        continue;
      }
      arg = tag;
    } else if (measure.source.kind === 'domain') {
      arg = domainOf(key, own);
    }
    const count = measure.count(arg, own?.includeSubdomains === true);
    const [daily, total, previousTotal] = await Promise.all([
      core.storage.analytics.daily(count, period.from, period.days),
      core.storage.analytics.total(count, measure.inRange ? range : null),
      measure.inRange ? core.storage.analytics.total(count, previous) : Promise.resolve(0),
    ]);
    const result: Measure = { key, unit: null, total, data: daily.map((value, i) => ({ date: period.from + i * DAY, value })) };
    if (measure.inRange) result.previousTotal = previousTotal;
    out.push(result);
  }
  return out;
}

function zeros(key: string, period: Period, inRange: boolean): Measure {
  const result: Measure = { key, unit: null, total: 0, data: Array.from({ length: period.days }, (_, i) => ({ date: period.from + i * DAY, value: 0 })) };
  if (inRange) result.previousTotal = 0;
  return result;
}

// ---- dimensions -----------------------------------------------------------------------------------

export interface DimensionEntry {
  /** null: the local server (servers), the web (sources), no language said. */
  key: string | null;
  value: number;
}

export interface Dimension {
  key: string;
  /** Ranked entries; null for software_versions, which the application layer knows. */
  data: DimensionEntry[] | null;
}

const DIMENSIONS: Record<string, { source: MeasureSource; dimension: (arg: string) => AnalyticsDimension }> = {
  languages: { source: { kind: 'plain' }, dimension: () => ({ what: 'languages' }) },
  sources: { source: { kind: 'plain' }, dimension: () => ({ what: 'sources' }) },
  servers: { source: { kind: 'plain' }, dimension: () => ({ what: 'servers' }) },
  tag_servers: { source: { kind: 'tag' }, dimension: (tag) => ({ what: 'tagServers', tag }) },
  tag_languages: { source: { kind: 'tag' }, dimension: (tag) => ({ what: 'tagLanguages', tag }) },
  instance_accounts: { source: { kind: 'domain' }, dimension: (domain) => ({ what: 'domainAccounts', domain }) },
  instance_languages: { source: { kind: 'domain' }, dimension: (domain) => ({ what: 'domainLanguages', domain }) },
};

export const DIMENSION_KEYS: readonly string[] = [...Object.keys(DIMENSIONS), 'software_versions'];

/** The dimensions asked for, in their order; unknown keys are left out. */
export async function dimensions(core: Core, keys: readonly string[], period: Period, limit: number, paramsOf: (key: string) => KeyParams | undefined): Promise<Dimension[]> {
  const out: Dimension[] = [];
  const range = { from: period.from, to: period.from + period.days * DAY };
  const tagNamed = tagFinder(core, range.from);
  for (const key of keys) {
    if (key === 'software_versions') {
      out.push({ key, data: null });
      continue;
    }
    const dimension = Object.hasOwn(DIMENSIONS, key) ? DIMENSIONS[key] : undefined;
    if (dimension === undefined) continue;
    let arg = '';
    if (dimension.source.kind === 'tag') {
      const tag = await tagNamed(key, paramsOf(key));
      if (tag === null) {
        out.push({ key, data: [] });
        continue;
      }
      arg = tag;
    } else if (dimension.source.kind === 'domain') {
      arg = domainOf(key, paramsOf(key));
    }
    const rows = await core.storage.analytics.top(dimension.dimension(arg), range, limit);
    out.push({ key, data: rows.map((r) => ({ key: r.key, value: r.count })) });
  }
  return out;
}

// ---- retention ------------------------------------------------------------------------------------

export type Frequency = 'day' | 'month';

export interface Cohort {
  period: Millis;
  frequency: Frequency;
  data: { date: Millis; rate: number; value: number }[];
}

const monthOf = (at: Millis): Millis => {
  const d = new Date(at);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};
const nextMonth = (at: Millis): Millis => {
  const d = new Date(at);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};

/** Mastodon's cohorts: the users who signed up in each period (day or month) from start_at's to
 * end_at's, and for each period since, how many of them were active then or later (value) and
 * what share of the cohort that is (rate). */
export async function retention(core: Core, frequency: Frequency, startAt: string | undefined, endAt: string | undefined): Promise<Cohort[]> {
  const period = periodOf(core.clock.now(), startAt, endAt, frequency === 'month' ? MAX_MONTH_DAYS : MAX_DAYS);
  const bucket = frequency === 'month' ? monthOf : dayOf;
  const step = frequency === 'month' ? nextMonth : (at: Millis) => at + DAY;
  const periods: Millis[] = [];
  for (let at = bucket(period.from); at <= bucket(period.from + (period.days - 1) * DAY); at = step(at)) periods.push(at);
  const first = periods[0] ?? period.from;
  const end = step(periods[periods.length - 1] ?? period.from);
  const rows: RetentionRow[] = await core.storage.analytics.retention({ from: first, to: end });
  const byCohort = new Map<Millis, RetentionRow[]>();
  for (const row of rows) {
    const cohort = bucket(row.signedUpDay);
    const members = byCohort.get(cohort);
    if (members === undefined) byCohort.set(cohort, [row]);
    else members.push(row);
  }
  return periods.map((cohort, i) => {
    const members = byCohort.get(cohort) ?? [];
    const size = members.reduce((sum, r) => sum + r.users, 0);
    // Latest activity first: walking the periods backwards, each adds those active since it.
    const active = members.filter((r) => r.lastActiveDay !== null).sort((a, b) => (b.lastActiveDay ?? 0) - (a.lastActiveDay ?? 0));
    const later = periods.slice(i);
    const values = new Array<number>(later.length).fill(0);
    let next = 0;
    let value = 0;
    for (let p = later.length - 1; p >= 0; p -= 1) {
      const at = later[p] as Millis;
      while (next < active.length && ((active[next] as RetentionRow).lastActiveDay ?? 0) >= at) value += (active[next++] as RetentionRow).users;
      values[p] = value;
    }
    return { period: cohort, frequency, data: later.map((at, p) => ({ date: at, rate: (values[p] ?? 0) / Math.max(size, 1), value: values[p] ?? 0 })) };
  });
}
