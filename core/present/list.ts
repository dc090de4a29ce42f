import type { List } from '../model.ts';

/** List (reference entities.md). */
export function renderList(list: List) {
  return { id: list.id, title: list.title, replies_policy: list.repliesPolicy, exclusive: list.exclusive };
}
