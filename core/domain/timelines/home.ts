// The home timeline: the viewer's statuses, those of the accounts they follow and the public
// statuses carrying a hashtag they follow, with the home feed rules of feeds.ts applied when
// read, then the de-duplication of boosts (a boost whose original or another boost of it is
// among the entries just before it is left out). The stream asks repeatsInHome for the same
// decision about a new boost.

import type { Core } from '../context.ts';
import { BOOST_WINDOW, repeatsRecentEntry, showsByFollowedTag, showsInHome as showsInHomeFeed } from '../feeds.ts';
import { compareIds } from '../ids.ts';
import { homeTags } from '../tags/follows.ts';
import type { Account, Follow, Id, Status } from '../model.ts';
import { fillPage, type Slice } from '../paging.ts';
import type { Page } from '../ports/storage.ts';
import { filterVisible, withoutHiddenAccounts } from '../viewer.ts';

/** Direct messages live in conversations, not in home feeds. */
export const HOME_VISIBILITIES = ['public', 'unlisted', 'private'] as const;

/** The home feed rule (feeds.ts) for one viewer, with their follows keyed by followed account. */
export function showsInHome(status: Status, viewerId: Id, follows: ReadonlyMap<Id, Follow>): boolean {
  const target = status.inReplyToAccountId;
  return showsInHomeFeed(status, viewerId, follows.get(status.accountId) ?? null, target !== null && follows.has(target));
}

/** The viewer's follows of the authors and reply targets of these statuses. */
export async function followsAmong(core: Core, viewer: Account, statuses: readonly Status[]): Promise<Map<Id, Follow>> {
  const ids = new Set<Id>();
  for (const s of statuses) {
    ids.add(s.accountId);
    if (s.inReplyToAccountId !== null) ids.add(s.inReplyToAccountId);
  }
  ids.delete(viewer.id);
  const follows = new Map<Id, Follow>();
  if (ids.size === 0) return follows;
  for (const facts of await core.storage.relationships.relationships(viewer.id, [...ids])) {
    if (facts.following !== null) follows.set(facts.targetId, facts.following);
  }
  return follows;
}

/** Members of the viewer's exclusive lists: their statuses show in those lists only. */
async function exclusiveMembers(core: Core, viewer: Account): Promise<Set<Id>> {
  const members = new Set<Id>();
  for (const list of await core.storage.lists.listBy(viewer.id)) {
    if (!list.exclusive) continue;
    for (const m of await core.storage.lists.members(list.id, { limit: 0 })) members.add(m.accountId);
  }
  return members;
}

type FeedRules = (rows: Status[]) => Promise<Status[]>;

/** What one viewer's home feed is made of, read once per request. */
interface HomeSources {
  viewer: Account;
  /** Hashtags the viewer follows. */
  tags: ReadonlySet<string>;
}

async function homeSources(core: Core, viewer: Account): Promise<HomeSources> {
  return { viewer, tags: new Set(await homeTags(core, viewer)) };
}

/** The home feed rules for one viewer, as a filter of statuses read from the store: visibility,
 * blocks and mutes, the feed rules of feeds.ts, exclusive lists; a status that comes through a
 * followed hashtag also needs every account it mentions unhidden. What remains are the feed's
 * entries. */
async function feedRules(core: Core, sources: HomeSources): Promise<FeedRules> {
  const { viewer, tags } = sources;
  const exclusive = await exclusiveMembers(core, viewer);
  return async (rows) => {
    const shown = await withoutHiddenAccounts(core, viewer, await filterVisible(core, viewer, rows));
    const follows = await followsAmong(core, viewer, shown);
    // The reader's own statuses and those of accounts they follow (a status read for a hashtag
    // may be by anyone).
    const byFollow = (s: Status) =>
      (s.accountId === viewer.id || (follows.has(s.accountId) && !exclusive.has(s.accountId))) && showsInHome(s, viewer.id, follows);
    const byTag = shown.filter((s) => !byFollow(s) && showsByFollowedTag(s, tags));
    const tagged = new Set((await withoutHiddenMentions(core, viewer, byTag)).map((s) => s.id));
    return shown.filter((s) => tagged.has(s.id) || byFollow(s));
  };
}

/** What a status that comes through a followed hashtag also needs: no account it mentions
 * hidden from the viewer (blocked, muted, blocking them). Its author's domain was checked with
 * every other status's (withoutHiddenAccounts). */
async function withoutHiddenMentions(core: Core, viewer: Account, statuses: Status[]): Promise<Status[]> {
  const mentioned = [...new Set(statuses.flatMap((s) => s.mentionIds))].filter((id) => id !== viewer.id);
  if (mentioned.length === 0) return statuses;
  const hidden = await core.storage.relationships.hiddenFrom(viewer.id, mentioned, core.clock.now());
  return statuses.filter((s) => !s.mentionIds.some((id) => hidden.has(id)));
}

/** The statuses of followed accounts and those carrying a followed hashtag, merged into one
 * page of the storage Page contract (newest first; minId: the rows right above it). */
function readHome(core: Core, sources: HomeSources): (page: Page) => Promise<Status[]> {
  const tags = [...sources.tags];
  return async (page) => {
    const [followed, tagged] = await Promise.all([
      core.storage.statuses.query({ visibilities: HOME_VISIBILITIES, homeOf: sources.viewer.id }, page),
      tags.length === 0 ? Promise.resolve([]) : core.storage.statuses.query({ visibilities: ['public'], excludeReblogs: true, anyTag: tags }, page),
    ]);
    if (tagged.length === 0) return followed;
    const byId = new Map<Id, Status>();
    for (const s of [...followed, ...tagged]) byId.set(s.id, s);
    const merged = [...byId.values()].sort((a, b) => compareIds(b.id, a.id));
    return page.minId !== undefined ? merged.slice(-page.limit) : merged.slice(0, page.limit);
  };
}

type ReadHome = (page: Page) => Promise<Status[]>;

/** The feed's entries just older than `beforeId`, newest first: as many as a boost's
 * de-duplication looks at. */
async function entriesBefore(read: ReadHome, rules: FeedRules, beforeId: Id): Promise<Status[]> {
  return (await fillPage({ maxId: beforeId, limit: BOOST_WINDOW }, (s) => s.id, read, rules)).items;
}

// One request reads the same rows more than once: a round of its page looks back past its
// oldest row for a boost's de-duplication, and the next round then reads from that same row.
// Within a request the rows and the rules' verdicts do not change (the rules judge each status
// on its own), so each read and each status's verdict is made once.

/** The reads of one request, each page asked for again answered from the largest one read at
 * the same cursor. */
function readingOnce(read: ReadHome): ReadHome {
  const done = new Map<string, { limit: number; rows: Status[] }>();
  return async (page) => {
    const cursor = `${page.maxId ?? ''}|${page.minId ?? ''}|${page.sinceId ?? ''}`;
    const known = done.get(cursor);
    // Rows come newest first; with minId, the page is the rows nearest above it: the last ones.
    if (known !== undefined && known.limit >= page.limit) return page.minId !== undefined ? known.rows.slice(-page.limit) : known.rows.slice(0, page.limit);
    const rows = await read(page);
    done.set(cursor, { limit: page.limit, rows });
    return rows;
  };
}

/** The rules of one request, each status judged once. */
function judgingOnce(rules: FeedRules): FeedRules {
  const verdicts = new Map<Id, boolean>();
  return async (rows) => {
    const fresh = rows.filter((s) => !verdicts.has(s.id));
    if (fresh.length > 0) {
      const kept = new Set((await rules(fresh)).map((s) => s.id));
      for (const s of fresh) verdicts.set(s.id, kept.has(s.id));
    }
    return rows.filter((s) => verdicts.get(s.id) === true);
  };
}

export async function homeTimeline(core: Core, viewer: Account, page: Page): Promise<Slice<Status>> {
  const sources = await homeSources(core, viewer);
  const rules = judgingOnce(await feedRules(core, sources));
  const read = readingOnce(readHome(core, sources));
  const keep = async (rows: Status[]): Promise<Status[]> => {
    const entries = await rules(rows);
    // A boost near the end of what was read looks further back, past these rows.
    const reachesPast = entries.some((s, i) => s.reblogOfId !== null && entries.length - i - 1 < BOOST_WINDOW);
    const oldestRow = rows[rows.length - 1];
    const older = reachesPast && oldestRow !== undefined ? await entriesBefore(read, rules, oldestRow.id) : [];
    const sequence = [...entries, ...older];
    return entries.filter((entry, i) => !repeatsRecentEntry(entry, sequence.slice(i + 1)));
  };
  return fillPage(page, (s) => s.id, read, keep);
}

/** Whether a new boost repeats what the viewer's home feed just showed, so that their home
 * stream leaves it out as their home timeline does. */
export async function repeatsInHome(core: Core, viewer: Account, boost: Status): Promise<boolean> {
  if (boost.reblogOfId === null) return false;
  const sources = await homeSources(core, viewer);
  return repeatsRecentEntry(boost, await entriesBefore(readHome(core, sources), await feedRules(core, sources), boost.id));
}
