import type { FilterMatch } from '../domain/index.ts';
import type { FilterKeywordRow, FilterRow } from '../store/index.ts';
import { isoTimeOrNull } from './dates.ts';

/** The Filter entity; its keywords and statuses only where the filters API itself answers (Mastodon's rule). */
export function serializeFilter(row: FilterRow, withRules = true): Record<string, unknown> {
  return {
    id: row.id,
    title: row.title,
    context: row.context,
    expires_at: isoTimeOrNull(row.expiresAt),
    filter_action: row.action,
    ...(withRules
      ? {
          keywords: row.keywords.map(serializeFilterKeyword),
          statuses: row.statuses.map((s) => ({ id: s.id, status_id: s.statusId })),
        }
      : {}),
  };
}

export function serializeFilterKeyword(k: FilterKeywordRow): Record<string, unknown> {
  return { id: k.id, keyword: k.keyword, whole_word: k.wholeWord };
}

/** FilterResult, as a status's `filtered` lists them. */
export function serializeFilterResult(m: FilterMatch): Record<string, unknown> {
  return {
    filter: serializeFilter(m.filter, false),
    keyword_matches: m.keywordMatches,
    status_matches: m.statusMatches,
  };
}

/** The legacy V1::Filter: one keyword of a filter, `irreversible` when the filter hides. */
export function serializeV1Filter(filter: FilterRow, keyword: FilterKeywordRow): Record<string, unknown> {
  return {
    id: keyword.id,
    phrase: keyword.keyword,
    context: filter.context,
    whole_word: keyword.wholeWord,
    expires_at: isoTimeOrNull(filter.expiresAt),
    irreversible: filter.action === 'hide',
  };
}
