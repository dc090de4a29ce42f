import type { List } from '../../domain/model.ts';

/** List: id, title, replies_policy, exclusive. */
export function renderList(list: List) {
  return { id: list.id, title: list.title, replies_policy: list.repliesPolicy, exclusive: list.exclusive };
}
