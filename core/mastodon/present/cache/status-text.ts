// Render once, keep it: statuses as JSON text, assembled from fragments rendered once per
// process and shared by every reader and every request.
//
// A status's JSON has three kinds of members:
// - the reader-independent core (text, counts, author, mentions, tags, application, URIs):
//   rendered once by renderStatus (present/status.ts) and kept here as text;
// - the reader's own (favourited, reblogged, muted, bookmarked, pinned, filtered): overlaid per
//   request from the one batched viewer read loadStatusBundle already makes;
// - the plugins' (media_attachments, emojis, card, poll): rendered per request by their
//   decorators from their own batched reads (their data has no version the core can check:
//   a poll vote, a card fetched later, an emoji added), so they are never stale.
//
// The author's member (`account`) is a fragment of its own, kept per account: a post changes
// its author's counts, and with them that one fragment, not those of every status they wrote.
//
// How a kept fragment cannot be stale (in this process, across processes, after a restart):
// each entry keeps the rows it was rendered from (the status, what it reads of its author, its
// mentioned accounts, its application; an author's fragment, the author's row), and is served
// only while the rows of this request's reads, which
// every read path makes anyway and the stores keep exactly as fresh as the database (the SQLite
// row cache checks data_version; PostgreSQL reads), are equal to them. So every change that
// shows in a status's core is an invalidation point with nothing to send: an edit (text,
// content, edited_at, media and poll ids), a count (favourites, boosts, replies), a moderator's
// sensitive flag, a profile change (display name, note, avatar, counts, fields, role), a deleted
// status (its row is no longer read: nothing is rendered for it), a renamed application. A new
// process starts empty. Authors whose JSON a plugin decorates (account emojis) are rendered
// afresh each time: that plugin's data is not among the rows compared.

import type { AppCore } from '../../context.ts';
import type { Account, Id, Millis, Status } from '../../../domain/model.ts';
import { matchFilters } from '../../entities/filter.ts';
import { notFound } from '../../../domain/errors.ts';
import { loadStatusBundle } from '../load.ts';
import { decorateContext, renderStatus, searchableText, type StatusBundle, type StatusJson } from '../status.ts';
import { Lru } from './lru.ts';
import { renderAccount } from '../account.ts';
import { decorateQuote, NO_QUOTES } from '../quote.ts';

/** Entries per process; a fragment is a status's text (1–3 kB) and the rows it came from. */
export const STATUS_FRAGMENTS = 10_000;

interface Fragment {
  /** The status row it was rendered from. */
  status: Status;
  /** What its members besides `account` read of its author. */
  author: AuthorFacts;
  /** The versions (below) of the other rows it was rendered from: the mentioned accounts, the
   * application. */
  versions: number[];
  /** The core members before `account` as JSON text without braces, starting with "id", and
   * those after it, starting with a comma (or empty). */
  head: string;
  tail: string;
}

/** What a status's own members (its URI and URL, `sensitive`) read of its author: see
 * renderStatus, present/status.ts. */
interface AuthorFacts {
  username: string;
  uri: string | null;
  url: string | null;
  sensitizedAt: number | null;
}

function authorFacts(author: Account): AuthorFacts {
  return { username: author.username, uri: author.uri, url: author.url, sensitizedAt: author.sensitizedAt ?? null };
}

function sameAuthorFacts(facts: AuthorFacts, author: Account): boolean {
  return facts.username === author.username && facts.uri === author.uri && facts.url === author.url && facts.sensitizedAt === (author.sensitizedAt ?? null);
}

/** An author's `account` member as JSON text, and the version of the row it came from. */
interface AuthorFragment {
  version: number;
  text: string;
}

/** The last row seen of an account or application, and its version: a number given once, so a
 * fragment rendered from an older row (or from a row since forgotten) never matches again. */
interface RowVersion {
  row: unknown;
  version: number;
}

interface Kept {
  fragments: Lru<Id, Fragment>;
  authors: Lru<Id, AuthorFragment>;
  accounts: Lru<Id, RowVersion>;
  applications: Lru<Id, RowVersion>;
  lastVersion: number;
}

/** What renderStatus fills that is not the core's: left out of the kept text. */
const NOT_CORE = [
  'reblog', 'favourited', 'reblogged', 'muted', 'bookmarked', 'pinned', 'filtered', 'media_attachments', 'emojis', 'card', 'poll',
  // The quote members depend on the reader and on quote rows no status row reflects (quote.ts).
  'quote', 'quote_approval', 'quotes_count',
] as const;

/** The plugin members as they start: a boost's (it has none of its own: clients read them from
 * `reblog`), and those of a status no decorator added to. */
const BOOST_PLUGIN_PART = '"media_attachments":[],"emojis":[],"card":null,"poll":null';

const caches = new WeakMap<AppCore, Kept>();

/** This process's fragments for `core` (one per Rookery instance). */
function keptFor(core: AppCore): Kept {
  let kept = caches.get(core);
  if (kept === undefined) {
    kept = { fragments: new Lru(STATUS_FRAGMENTS), authors: new Lru(STATUS_FRAGMENTS), accounts: new Lru(STATUS_FRAGMENTS), applications: new Lru(1_000), lastVersion: 0 };
    caches.set(core, kept);
  }
  return kept;
}

/** How many fragments this process keeps for `core` (for tests and diagnostics). */
export function keptFragments(core: AppCore): number {
  return caches.get(core)?.fragments.size ?? 0;
}

/** Deep equality of plain row data (primitives, arrays, plain objects): for-in loops, no key
 * lists made (this runs for every status of every read). */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !sameData(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let count = 0;
  for (const key in left) {
    count++;
    const x = left[key];
    const y = right[key];
    if (x !== y && (typeof x !== 'object' || !sameData(x, y))) return false;
    if (y === undefined && !(key in right)) return false;
  }
  for (const _ in right) count--;
  return count === 0;
}

/** A copy of plain row data, as sameData compares it: a store may hand out objects it changes
 * later, which the comparison would then not see. (structuredClone cost ten times more, on
 * every new status and every changed author.) */
function copyData<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyData(value[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const key in value) out[key] = copyData((value as Record<string, unknown>)[key]);
  return out as T;
}

/** The versions of the rows read for one presentation call, each looked up once. */
const versionsByBundle = new WeakMap<StatusBundle, { accounts: Map<Id, number>; applications: Map<Id, number> }>();

/** The version of the row read now (undefined: not found), compared once per call with the
 * last one seen. */
function versionOf(kept: Kept, bundle: StatusBundle, kind: 'accounts' | 'applications', id: Id): number {
  let seen = versionsByBundle.get(bundle);
  if (seen === undefined) {
    seen = { accounts: new Map(), applications: new Map() };
    versionsByBundle.set(bundle, seen);
  }
  const known = seen[kind].get(id);
  if (known !== undefined) return known;
  const row = bundle[kind].get(id);
  const last = kept[kind].get(id);
  let version: number;
  if (last !== undefined && sameData(last.row, row)) version = last.version;
  else {
    version = ++kept.lastVersion;
    kept[kind].set(id, { row: copyData(row), version });
  }
  seen[kind].set(id, version);
  return version;
}

/** The versions of the rows besides its own and its author's that a status's core is rendered
 * from. */
function versionsOf(kept: Kept, status: Status, bundle: StatusBundle): number[] {
  const versions: number[] = [];
  for (const id of status.mentionIds) versions.push(versionOf(kept, bundle, 'accounts', id));
  if (status.applicationId !== null) versions.push(versionOf(kept, bundle, 'applications', status.applicationId));
  return versions;
}

/** Whether the kept fragment was rendered from exactly the rows read now. */
function fresh(kept: Kept, fragment: Fragment, status: Status, author: Account, bundle: StatusBundle): boolean {
  if (!sameData(fragment.status, status) || !sameAuthorFacts(fragment.author, author)) return false;
  const versions = versionsOf(kept, status, bundle);
  if (versions.length !== fragment.versions.length) return false;
  for (let i = 0; i < versions.length; i++) if (versions[i] !== fragment.versions[i]) return false;
  return true;
}

/** The core members of `status` as text, from kept fragments where they are fresh. null when
 * the status cannot be rendered (its author or boosted original is gone). */
function coreText(core: AppCore, status: Status, bundle: StatusBundle): string | null {
  const author = bundle.accounts.get(status.accountId);
  if (author === undefined) return null;
  const kept = keptFor(core);
  const fragment = kept.fragments.get(status.id);
  if (fragment !== undefined && fresh(kept, fragment, status, author, bundle)) return `${fragment.head},"account":${authorText(core, kept, author, bundle)}${fragment.tail}`;
  const json = renderStatus(core.config, status, { ...bundle, decorators: [], viewer: null });
  if (json === null) return null;
  const members = json as unknown as Record<string, unknown>;
  for (const key of NOT_CORE) delete members[key];
  // Split around `account`: the members on either side keep their order.
  const head: Record<string, unknown> = {};
  const tail: Record<string, unknown> = {};
  let after = false;
  for (const key in members) {
    if (key === 'account') after = true;
    else (after ? tail : head)[key] = members[key];
  }
  const headText = JSON.stringify(head).slice(1, -1);
  const tailText = JSON.stringify(tail).slice(1, -1);
  const made = { status: copyData(status), author: authorFacts(author), versions: versionsOf(kept, status, bundle), head: headText, tail: tailText === '' ? '' : `,${tailText}` };
  kept.fragments.set(status.id, made);
  return `${made.head},"account":${authorText(core, kept, author, bundle, members['account'])}${made.tail}`;
}

/** An author's `account` member as text, from its kept fragment when the row is the same.
 * `rendered`: the member as renderStatus just made it, when it did. An author a plugin
 * decorates (account emojis) is never kept, so rendered afresh each time: that plugin's data
 * is not among the rows compared. (Whether a plugin decorates an author is decided from the
 * author's row, so a kept fragment's author is still undecorated.) */
function authorText(core: AppCore, kept: Kept, author: Account, bundle: StatusBundle, rendered?: unknown): string {
  const version = versionOf(kept, bundle, 'accounts', author.id);
  const fragment = kept.authors.get(author.id);
  if (fragment !== undefined && fragment.version === version) return fragment.text;
  const text = JSON.stringify(rendered ?? renderAccount(core.config, author, bundle.accountDecorators));
  if (core.hooks.accountDecorators.some((decorator) => decorator.covers(author))) kept.authors.delete(author.id);
  else kept.authors.set(author.id, { version, text });
  return text;
}

/** Whether the decorators left their members as they started (most statuses: no media, poll,
 * card or emoji), which then need no encoding. */
function nothingAdded(plugins: Record<string, unknown>): boolean {
  let count = 0;
  for (const _ in plugins) count++;
  const media = plugins['media_attachments'];
  const emojis = plugins['emojis'];
  return count === 4 && Array.isArray(media) && media.length === 0 && Array.isArray(emojis) && emojis.length === 0 && plugins['card'] === null && plugins['poll'] === null;
}

/** The quote members (quote, quote_approval, quotes_count) for the bundle's reader, as text
 * without braces: filled per request by decorateQuote, never kept. A quoted status is rendered
 * as any other (its own quote shallow). */
function quoteText(core: AppCore, status: Status, bundle: StatusBundle, nested: boolean): string {
  const members: Record<string, unknown> = {};
  // The quoted status is already text: an empty object stands in for it, replaced after
  // encoding (the only `quoted_status` in these members), so it is neither parsed nor encoded again.
  let quotedText: string | null = null;
  decorateQuote(status, bundle.quotes ?? NO_QUOTES, members as unknown as StatusJson, nested, (quoted) => {
    quotedText = statusText(core, quoted, bundle, true);
    return quotedText === null ? null : ({} as StatusJson);
  });
  const text = JSON.stringify(members).slice(1, -1);
  return quotedText === null ? text : text.replace('"quoted_status":{}', () => `"quoted_status":${quotedText}`);
}

/** One status as JSON text for the bundle's reader: the same members renderStatus gives.
 * null when it cannot be rendered. `nested`: shown as another status's quote. */
export function statusText(core: AppCore, status: Status, bundle: StatusBundle, nested = false): string | null {
  let reblog = 'null';
  if (status.reblogOfId !== null) {
    const original = bundle.statuses.get(status.reblogOfId);
    const text = original === undefined ? null : statusText(core, original, bundle);
    if (text === null) return null;
    reblog = text;
  }
  const isBoost = status.reblogOfId !== null;
  const body = coreText(core, status, bundle);
  if (body === null) return null;
  let out = `{${body},"reblog":${reblog}`;
  const viewer = bundle.viewer;
  if (viewer !== null) {
    // The reader's own members, as renderStatus sets them (a boost reports the original's).
    const proper = status.reblogOfId ?? status.id;
    const state = viewer.state;
    out += `,"favourited":${state.favourited.has(proper)},"reblogged":${state.reblogged.has(proper)},"muted":${state.mutedConversations.has(status.conversationId)},"bookmarked":${state.bookmarked.has(proper)}`;
    if (!isBoost) out += `,"pinned":${state.pinned.has(status.id)}`;
    const filtered = isBoost || viewer.filters.length === 0 ? [] : matchFilters(viewer.filters, viewer.keywords, status, searchableText(status, bundle), bundle.now);
    out += `,"filtered":${JSON.stringify(filtered)}`;
  }
  out += `,${quoteText(core, status, bundle, nested)}`;
  if (isBoost) return `${out},${BOOST_PLUGIN_PART}}`;
  // The plugins' members, rendered from this request's reads: decorators fill
  // media_attachments, emojis, card and poll, which start as [] and null.
  const plugins: Record<string, unknown> = { media_attachments: [], emojis: [], card: null, poll: null };
  const context = decorateContext(bundle);
  for (const { decorator, loaded } of bundle.decorators) decorator.render(status, loaded, plugins as unknown as StatusJson, context);
  return `${out},${nothingAdded(plugins) ? BOOST_PLUGIN_PART : JSON.stringify(plugins).slice(1, -1)}}`;
}

/** Statuses as one JSON array text, in order; those that cannot be rendered are left out.
 * `keep`: the answer is kept ready (http/kept.ts), and renderers note their time limits there. */
export async function presentStatusesText(core: AppCore, statuses: readonly Status[], viewer: Account | null, keep?: { until: Millis }): Promise<string> {
  if (statuses.length === 0) return '[]';
  const bundle = await loadStatusBundle(core, statuses, viewer);
  if (keep !== undefined) bundle.keep = keep;
  const parts: string[] = [];
  for (const status of statuses) {
    const text = statusText(core, status, bundle);
    if (text !== null) parts.push(text);
  }
  return `[${parts.join(',')}]`;
}

/** One status as JSON text; 404 when it cannot be rendered. */
export async function presentStatusText(core: AppCore, status: Status, viewer: Account | null, keep?: { until: Millis }): Promise<string> {
  const bundle = await loadStatusBundle(core, [status], viewer);
  if (keep !== undefined) bundle.keep = keep;
  const text = statusText(core, status, bundle);
  if (text === null) throw notFound();
  return text;
}
