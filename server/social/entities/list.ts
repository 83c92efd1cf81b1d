import type { ListRow } from '../store/index.ts';

export function serializeList(list: ListRow): Record<string, unknown> {
  return { id: list.id, title: list.title, replies_policy: list.repliesPolicy, exclusive: list.exclusive };
}
