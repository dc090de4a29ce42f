import type { RookeryConfig } from '../../domain/config.ts';
import { tagUrl } from '../../domain/urls.ts';

export interface TagJson {
  name: string;
  url: string;
  history: { day: string; uses: string; accounts: string }[];
  following?: boolean;
}

/** Tag: name, url, history, following. Usage history and followed hashtags are not tracked: an empty
 * history, and `following` false for signed-in viewers. */
export function renderTag(config: RookeryConfig, name: string, signedIn: boolean): TagJson {
  const json: TagJson = { name, url: tagUrl(config, name), history: [] };
  if (signedIn) json.following = false;
  return json;
}
