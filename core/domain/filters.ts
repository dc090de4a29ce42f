// v2 keyword filters: their owner's only (anyone else gets 404). Every change is announced
// ('filters.changed' → the filters_changed stream event), since clients cache filters.
// Validation texts are those Mastodon answers for filters.

import type { Core } from './context.ts';
import { notFound, unprocessable } from './errors.ts';
import { MAX_LENGTH, tooLongText } from './lengths.ts';
import { isId } from './ids.ts';
import {
  FILTER_ACTIONS,
  FILTER_CONTEXTS,
  type Account,
  type Filter,
  type FilterAction,
  type FilterContext,
  type FilterKeyword,
  type FilterStatus,
} from './model.ts';
import { findVisible } from './viewer.ts';

export interface KeywordInput {
  /** An existing keyword of the filter to change or (with destroy) remove. */
  id?: string | undefined;
  keyword?: string | undefined;
  wholeWord?: boolean | undefined;
  destroy?: boolean | undefined;
}

export interface FilterInput {
  title?: string | undefined;
  context?: readonly string[] | undefined;
  action?: string | undefined;
  /** Seconds from now; null: never expires; undefined: unchanged. */
  expiresIn?: number | null | undefined;
  keywords?: readonly KeywordInput[] | undefined;
}

export const filterTexts = {
  tooMany: 'Validation failed: You have reached the maximum number of filters',
  tooManyKeywords: (max: number) => `Validation failed: A filter can have at most ${max} keywords`,
  tooManyStatuses: (max: number) => `Validation failed: A filter can have at most ${max} statuses`,
} as const;

function validationFailed(messages: string[]): never {
  throw unprocessable(`Validation failed: ${messages.join(', ')}`);
}

function contextErrors(context: readonly string[]): string[] {
  const errors: string[] = [];
  if (context.length === 0) errors.push("Context can't be blank");
  if (context.length === 0 || context.some((c) => !(FILTER_CONTEXTS as readonly string[]).includes(c))) {
    errors.push('Context None or invalid context supplied');
  }
  return errors;
}

function actionOf(value: string | undefined): FilterAction | undefined {
  if (value === undefined || value === '') return undefined;
  const action = FILTER_ACTIONS.find((a) => a === value);
  if (action === undefined) validationFailed(['Filter action is not included in the list']);
  return action;
}

/** Mastodon skips keyword entries whose fields are all blank. */
function isBlankEntry(k: KeywordInput): boolean {
  return (k.id === undefined || k.id === '') && (k.keyword === undefined || k.keyword === '') && k.wholeWord === undefined && !k.destroy;
}

/** `nested`: the entries of a filter's keywords_attributes, where all-blank entries are
 * skipped and errors name "Keywords keyword"; otherwise the keyword endpoints ("Keyword").
 * Refused as soon as the filter would hold more than limits.maxFilterKeywords keywords, so a
 * request with thousands of entries costs no more than one with a few too many. */
function applyKeywords(core: Core, current: readonly FilterKeyword[], inputs: readonly KeywordInput[], nested: boolean): FilterKeyword[] {
  const label = nested ? 'Keywords keyword' : 'Keyword';
  const max = core.config.limits.maxFilterKeywords;
  let keywords = [...current];
  for (const input of nested ? inputs.filter((k) => !isBlankEntry(k)) : inputs) {
    if (input.keyword !== undefined && input.keyword.length > MAX_LENGTH.filterKeyword) validationFailed([tooLongText(label, MAX_LENGTH.filterKeyword)]);
    if (input.id !== undefined && input.id !== '') {
      const index = keywords.findIndex((k) => k.id === input.id);
      const existing = keywords[index];
      if (existing === undefined) throw notFound();
      if (input.destroy) {
        keywords = keywords.filter((k) => k.id !== input.id);
        continue;
      }
      keywords[index] = { ...existing, keyword: input.keyword ?? existing.keyword, wholeWord: input.wholeWord ?? existing.wholeWord };
      continue;
    }
    if (input.destroy) continue;
    if (keywords.length >= max) throw unprocessable(filterTexts.tooManyKeywords(max));
    keywords.push({ id: core.ids.next(), keyword: input.keyword ?? '', wholeWord: input.wholeWord ?? true });
  }
  if (keywords.some((k) => k.keyword.trim() === '')) validationFailed([`${label} can't be blank`]);
  return keywords;
}

function expiresAtOf(core: Core, expiresIn: number | null): number | null {
  return expiresIn === null ? null : core.clock.now() + expiresIn * 1000;
}

function checkFilter(filter: Filter): void {
  const errors: string[] = [];
  if (filter.title.trim() === '') errors.push("Title can't be blank");
  else if (filter.title.length > MAX_LENGTH.filterTitle) errors.push(tooLongText('Title', MAX_LENGTH.filterTitle));
  errors.push(...contextErrors(filter.context));
  if (errors.length > 0) validationFailed(errors);
}

function contextOf(context: readonly string[]): FilterContext[] {
  return [...new Set(context.map((c) => c.trim()).filter((c) => c !== ''))] as FilterContext[];
}

/** The outbox of a filter change (clients cache filters; live streams filter with them). */
function changed(core: Core, actor: Account, filter: Filter | null) {
  return core.record({ type: 'filters.changed', accountId: actor.id, filter });
}

export async function ownFilter(core: Core, actor: Account, id: string): Promise<Filter> {
  const filter = isId(id) ? await core.storage.filters.get(id) : null;
  if (filter === null || filter.accountId !== actor.id) throw notFound();
  return filter;
}

export async function createFilter(core: Core, actor: Account, input: FilterInput): Promise<Filter> {
  const filter: Filter = {
    id: core.ids.next(),
    accountId: actor.id,
    title: input.title ?? '',
    context: contextOf(input.context ?? []),
    action: actionOf(input.action) ?? 'warn',
    expiresAt: expiresAtOf(core, input.expiresIn ?? null),
    keywords: [],
    statuses: [],
    createdAt: core.clock.now(),
  };
  checkFilter(filter);
  filter.keywords = applyKeywords(core, [], input.keywords ?? [], true);
  const max = core.config.limits.maxFilters;
  if ((await core.storage.filters.listBy(actor.id)).length >= max) throw unprocessable(filterTexts.tooMany);
  await core.storage.filters.create(filter, () => changed(core, actor, filter));
  return filter;
}

/** Changes what was sent; keywords are added, changed (by id) or removed (_destroy). */
export async function updateFilter(core: Core, actor: Account, id: string, input: FilterInput): Promise<Filter> {
  const filter = await ownFilter(core, actor, id);
  const next: Filter = {
    ...filter,
    title: input.title ?? filter.title,
    context: input.context === undefined ? filter.context : contextOf(input.context),
    action: actionOf(input.action) ?? filter.action,
    expiresAt: input.expiresIn === undefined ? filter.expiresAt : expiresAtOf(core, input.expiresIn),
  };
  checkFilter(next);
  next.keywords = applyKeywords(core, filter.keywords, input.keywords ?? [], true);
  return save(core, actor, next);
}

async function save(core: Core, actor: Account, filter: Filter): Promise<Filter> {
  const saved = await core.storage.filters.replace(filter, (replaced) => (replaced === null ? [] : changed(core, actor, replaced)));
  if (saved === null) throw notFound();
  return saved;
}

export async function deleteFilter(core: Core, actor: Account, id: string): Promise<void> {
  const filter = await ownFilter(core, actor, id);
  await core.storage.filters.delete(filter.id, (deleted) => (deleted ? changed(core, actor, null) : []));
}

// Keywords and statuses addressed by their own id (/api/v2/filters/keywords/:id …).

async function filterWith<T extends { id: string }>(core: Core, actor: Account, id: string, rows: (f: Filter) => readonly T[]): Promise<{ filter: Filter; row: T }> {
  if (isId(id)) {
    for (const filter of await core.storage.filters.listBy(actor.id)) {
      const row = rows(filter).find((r) => r.id === id);
      if (row !== undefined) return { filter, row };
    }
  }
  throw notFound();
}

export function findKeyword(core: Core, actor: Account, id: string) {
  return filterWith(core, actor, id, (f) => f.keywords);
}

export async function addKeyword(core: Core, actor: Account, filterId: string, input: KeywordInput): Promise<FilterKeyword> {
  const filter = await ownFilter(core, actor, filterId);
  const keywords = applyKeywords(core, filter.keywords, [{ keyword: input.keyword ?? '', wholeWord: input.wholeWord }], false);
  await save(core, actor, { ...filter, keywords });
  return keywords[keywords.length - 1] as FilterKeyword;
}

export async function updateKeyword(core: Core, actor: Account, id: string, input: KeywordInput): Promise<FilterKeyword> {
  const { filter } = await findKeyword(core, actor, id);
  const keywords = applyKeywords(core, filter.keywords, [{ ...input, id, destroy: false }], false);
  await save(core, actor, { ...filter, keywords });
  const updated = keywords.find((k) => k.id === id);
  if (updated === undefined) throw notFound();
  return updated;
}

export async function deleteKeyword(core: Core, actor: Account, id: string): Promise<void> {
  const { filter } = await findKeyword(core, actor, id);
  await save(core, actor, { ...filter, keywords: filter.keywords.filter((k) => k.id !== id) });
}

export function findFilterStatus(core: Core, actor: Account, id: string) {
  return filterWith(core, actor, id, (f) => f.statuses);
}

/** Filters one status the actor can see; each status once per filter. */
export async function addFilterStatus(core: Core, actor: Account, filterId: string, statusId: string): Promise<FilterStatus> {
  const filter = await ownFilter(core, actor, filterId);
  const { status } = await findVisible(core, actor, statusId);
  if (filter.statuses.some((s) => s.statusId === status.id)) validationFailed(['Status has already been taken']);
  const max = core.config.limits.maxFilterStatuses;
  if (filter.statuses.length >= max) throw unprocessable(filterTexts.tooManyStatuses(max));
  const row: FilterStatus = { id: core.ids.next(), statusId: status.id };
  await save(core, actor, { ...filter, statuses: [...filter.statuses, row] });
  return row;
}

export async function deleteFilterStatus(core: Core, actor: Account, id: string): Promise<void> {
  const { filter } = await findFilterStatus(core, actor, id);
  await save(core, actor, { ...filter, statuses: filter.statuses.filter((s) => s.id !== id) });
}

// v1 filters: Mastodon serves each keyword of a v2 filter as one v1 filter (its id is the
// keyword's; phrase, whole_word from the keyword; context, expiry and irreversible from the
// filter it belongs to).

export interface V1FilterInput {
  phrase?: string | undefined;
  context?: readonly string[] | undefined;
  irreversible?: boolean | undefined;
  wholeWord?: boolean | undefined;
  /** Seconds from now; null: never expires; undefined: unchanged. */
  expiresIn?: number | null | undefined;
}

export interface V1Filter {
  filter: Filter;
  keyword: FilterKeyword;
}

export const v1FilterTexts = {
  multipleKeywords:
    'These parameters cannot be changed from this application because they apply to more than one filter keyword. Use a more recent application or the web interface.',
} as const;

export async function listV1Filters(core: Core, actor: Account): Promise<V1Filter[]> {
  const rows = (await core.storage.filters.listBy(actor.id)).flatMap((filter) => filter.keywords.map((keyword) => ({ filter, keyword })));
  // Keyword ids are time-ordered: oldest first, as Mastodon lists them.
  return rows.sort((a, b) => compareIds(a.keyword.id, b.keyword.id));
}

function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

export async function findV1Filter(core: Core, actor: Account, id: string): Promise<V1Filter> {
  const { filter, row } = await findKeyword(core, actor, id);
  return { filter, keyword: row };
}

/** A v2 filter titled with the phrase, holding that one keyword. */
export async function createV1Filter(core: Core, actor: Account, input: V1FilterInput): Promise<V1Filter> {
  const phrase = input.phrase ?? '';
  const filter: Filter = {
    id: core.ids.next(),
    accountId: actor.id,
    title: phrase,
    context: contextOf(input.context ?? []),
    action: input.irreversible ? 'hide' : 'warn',
    expiresAt: expiresAtOf(core, input.expiresIn ?? null),
    keywords: [],
    statuses: [],
    createdAt: core.clock.now(),
  };
  checkFilter(filter);
  filter.keywords = applyKeywords(core, [], [{ keyword: phrase, wholeWord: input.wholeWord }], false);
  const max = core.config.limits.maxFilters;
  if ((await core.storage.filters.listBy(actor.id)).length >= max) throw unprocessable(filterTexts.tooMany);
  await core.storage.filters.create(filter, () => changed(core, actor, filter));
  return { filter, keyword: filter.keywords[0] as FilterKeyword };
}

/** Changes the keyword, and the filter's title (the phrase), context, expiry and action. A
 * filter change is refused when the filter has other keywords it would change too. */
export async function updateV1Filter(core: Core, actor: Account, id: string, input: V1FilterInput): Promise<V1Filter> {
  const { filter } = await findKeyword(core, actor, id);
  const keywords = applyKeywords(core, filter.keywords, [{ id, keyword: input.phrase, wholeWord: input.wholeWord }], false);
  const next: Filter = {
    ...filter,
    keywords,
    title: input.phrase ?? filter.title,
    context: input.context === undefined ? filter.context : contextOf(input.context),
    action: input.irreversible === undefined ? filter.action : input.irreversible ? 'hide' : 'warn',
    expiresAt: input.expiresIn === undefined ? filter.expiresAt : expiresAtOf(core, input.expiresIn),
  };
  const filterChanged =
    next.title !== filter.title ||
    next.action !== filter.action ||
    next.expiresAt !== filter.expiresAt ||
    next.context.length !== filter.context.length ||
    next.context.some((c, i) => c !== filter.context[i]);
  if (filterChanged && filter.keywords.length > 1) throw unprocessable(v1FilterTexts.multipleKeywords);
  checkFilter(next);
  const saved = await save(core, actor, next);
  const keyword = saved.keywords.find((k) => k.id === id);
  if (keyword === undefined) throw notFound();
  return { filter: saved, keyword };
}
