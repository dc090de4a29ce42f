import type { AppCore } from '../context.ts';
import type { RookeryConfig } from '../../domain/config.ts';
import type { Account } from '../../domain/model.ts';
import { tagHistories, type HistoryDay } from '../../domain/tags/history.ts';
import { tagIdOf } from '../../domain/tags/names.ts';
import { normalizeTag } from '../../domain/text/index.ts';
import { tagUrl } from '../../domain/urls.ts';

export interface TagJson {
  id: string;
  name: string;
  url: string;
  history: { day: string; uses: string; accounts: string }[];
  following?: boolean;
  featuring?: boolean;
}

/** What a signed-in viewer's Tag shows of their own follow and profile. */
export interface TagViewer {
  following: boolean;
  featuring: boolean;
}

/** Tag: id (tagIdOf), name (as written), url, history (today first; numbers as strings, day in
 * unix seconds), and for a signed-in viewer `following` and `featuring`. */
export function renderTag(config: RookeryConfig, name: string, history: readonly HistoryDay[], viewer: TagViewer | null): TagJson {
  const json: TagJson = {
    id: tagIdOf(normalizeTag(name)),
    name,
    url: tagUrl(config, name),
    history: history.map((d) => ({ day: String(d.day / 1000), uses: String(d.uses), accounts: String(d.accounts) })),
  };
  if (viewer !== null) {
    json.following = viewer.following;
    json.featuring = viewer.featuring;
  }
  return json;
}

/** Tags by name (as written), with their history (unless given) and the viewer's follows and
 * featured tags read once for all of them. */
export async function presentTags(core: AppCore, names: readonly string[], viewer: Account | null, known?: ReadonlyMap<string, HistoryDay[]>): Promise<TagJson[]> {
  const tags = names.map(normalizeTag);
  const [histories, followed, featured] = await Promise.all([
    known ?? tagHistories(core, tags),
    viewer === null ? Promise.resolve([]) : core.storage.tags.followedAmong(viewer.id, tags),
    viewer === null ? Promise.resolve([]) : core.storage.tags.featuredBy(viewer.id),
  ]);
  const following = new Set(followed);
  const featuring = new Set(featured.map((f) => f.tag));
  return names.map((name, i) => {
    const tag = tags[i] ?? '';
    return renderTag(core.config, name, histories.get(tag) ?? [], viewer === null ? null : { following: following.has(tag), featuring: featuring.has(tag) });
  });
}

export async function presentTag(core: AppCore, name: string, viewer: Account | null): Promise<TagJson> {
  const [json] = await presentTags(core, [name], viewer);
  if (json === undefined) throw new Error('presentTags returned nothing for one tag');
  return json;
}
