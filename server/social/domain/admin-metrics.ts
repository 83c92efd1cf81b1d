import { refused } from '../errors.ts';
import { HOMEPORT_VERSION } from '../../version.ts';
import {
  DAY_MS,
  MEASURE_KEYS,
  measureParam,
  measureUnit,
  type MeasureKey,
  type RankedRow,
  type SocialStore,
} from '../store/index.ts';

/** Longest span one request may ask about (a year of daily buckets, a leap one included). */
export const MAX_SPAN_DAYS = 366;
/** Daily retention answers cohorts × days: a quarter at most. */
export const MAX_DAILY_RETENTION_DAYS = 92;

export const DIMENSION_KEYS = [
  'languages',
  'sources',
  'servers',
  'space_usage',
  'software_versions',
  'tag_servers',
  'tag_languages',
  'instance_accounts',
  'instance_languages',
] as const;
export type DimensionKey = (typeof DIMENSION_KEYS)[number];

export type Span = { from: number; to: number };

/** The UTC days from start_at to end_at, both included (times of day are ignored, as Mastodon does). */
export function daySpan(startAt: string, endAt: string, maxDays = MAX_SPAN_DAYS): Span {
  const day = (text: string, name: string) => {
    const ms = Date.parse(`${text.slice(0, 10)}T00:00:00Z`);
    if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(ms)) throw refused(`${name} is not a date`);
    return ms;
  };
  const from = day(startAt, 'start_at');
  const to = day(endAt, 'end_at') + DAY_MS;
  if (to <= from) throw refused('end_at is before start_at');
  if ((to - from) / DAY_MS > maxDays) throw refused(`at most ${maxDays} days can be asked for at once`);
  return { from, to };
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

const BYTE_UNITS = ['Bytes', 'KB', 'MB', 'GB', 'TB'];
/** 1536 → "1.5 KB" (binary multiples, as Rails' number_to_human_size). */
export function humanBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : Number(value.toFixed(1))} ${BYTE_UNITS[unit]}`;
}

/**
 * The admin dashboard's figures (Mastodon's Admin::Metrics), counted from the database: measures per day
 * with their total and the previous span's, ranked dimensions, and the retention of sign-up cohorts.
 */
export class AdminMetrics {
  private readonly store: SocialStore;
  constructor(store: SocialStore) {
    this.store = store;
  }

  measures(keys: readonly string[], span: Span, params: Record<string, string | undefined>): Record<string, unknown>[] {
    return keys
      .filter((k): k is MeasureKey => (MEASURE_KEYS as string[]).includes(k))
      .map((key) => {
        const needs = measureParam(key);
        const param = needs ? (params[key] ?? null) : null;
        if (needs && !param) throw refused(`${key}[${needs}] is missing`);
        const current = this.store.adminMetrics.measure(key, span.from, span.to, param);
        const length = span.to - span.from;
        const previous = this.store.adminMetrics.measure(key, span.from - length, span.from, param);
        const unit = measureUnit(key);
        const data = [];
        for (let day = span.from; day < span.to; day += DAY_MS)
          data.push({ date: iso(day), value: String(current.days.get(day / DAY_MS) ?? 0) });
        return {
          key,
          unit,
          total: String(current.total),
          human_value: unit === 'bytes' ? humanBytes(current.total) : null,
          previous_total: String(previous.total),
          data,
        };
      });
  }

  dimensions(
    keys: readonly string[],
    span: Span,
    limit: number,
    params: Record<string, string | undefined>,
  ): Record<string, unknown>[] {
    const languageName = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });
    const languages = (rows: RankedRow[]) =>
      rows.map((r) => ({ key: r.key, human_key: languageName.of(r.key) ?? r.key, value: String(r.value) }));
    const plain = (rows: RankedRow[]) => rows.map((r) => ({ key: r.key, human_key: r.key, value: String(r.value) }));
    const param = (key: DimensionKey, name: string) => {
      const value = params[key];
      if (!value) throw refused(`${key}[${name}] is missing`);
      return value;
    };
    const m = this.store.adminMetrics;
    const { from, to } = span;
    const build: Record<DimensionKey, () => Record<string, string>[]> = {
      languages: () => languages(m.languages(from, to, limit)),
      sources: () => plain(m.sources(from, to, limit)),
      servers: () => plain(m.servers(from, to, limit)),
      space_usage: () => {
        const usage = m.spaceUsage();
        return [
          { key: 'sqlite', human_key: 'SQLite', value: String(usage.database), unit: 'bytes' },
          { key: 'media', human_key: 'Media files', value: String(usage.media), unit: 'bytes' },
        ].map((row) => ({ ...row, human_value: humanBytes(Number(row.value)) }));
      },
      software_versions: () => [
        { key: 'homeport', human_key: 'Homeport', value: HOMEPORT_VERSION, human_value: HOMEPORT_VERSION },
        { key: 'node', human_key: 'Node.js', value: process.versions.node, human_value: process.versions.node },
        { key: 'sqlite', human_key: 'SQLite', value: m.sqliteVersion(), human_value: m.sqliteVersion() },
      ],
      tag_servers: () => plain(m.servers(from, to, limit, param('tag_servers', 'id'))),
      tag_languages: () => languages(m.languages(from, to, limit, { tagId: param('tag_languages', 'id') })),
      instance_accounts: () => plain(m.followedAccounts(param('instance_accounts', 'domain'), limit)),
      instance_languages: () =>
        languages(m.languages(from, to, limit, { domain: param('instance_languages', 'domain') })),
    };
    return keys
      .filter((k): k is DimensionKey => (DIMENSION_KEYS as readonly string[]).includes(k))
      .map((key) => ({ key, data: build[key]() }));
  }

  /**
   * Cohorts of the users who signed up in each day or month of the span: for that bucket and each later one
   * up to the span's end, how many of them were active (signing up counts, then posting, favouriting, following).
   */
  retention(span: Span, frequency: 'day' | 'month'): Record<string, unknown>[] {
    const buckets: number[] = [];
    if (frequency === 'day') {
      for (let t = span.from; t < span.to; t += DAY_MS) buckets.push(t);
    } else {
      const start = new Date(span.from);
      for (let month = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), 1); month < span.to; ) {
        buckets.push(month);
        const d = new Date(month);
        month = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
      }
    }
    const end = span.to;
    const bucketOf = (ms: number) => {
      let index = -1;
      for (let i = 0; i < buckets.length && buckets[i] <= ms; i++) index = i;
      return index;
    };
    const signUps = this.store.adminMetrics.signUps(buckets[0], end);
    const active = this.store.adminMetrics.activeDays(
      signUps.map((s) => s.accountId),
      buckets[0],
      end,
    );
    return buckets.map((period, p) => {
      const cohort = signUps.filter((s) => bucketOf(s.createdAt) === p);
      const data = buckets.slice(p).map((date, offset) => {
        const q = p + offset;
        const value = cohort.filter(
          (s) => q === p || [...(active.get(s.accountId) ?? [])].some((day) => bucketOf(day * DAY_MS) === q),
        ).length;
        return { date: iso(date), rate: cohort.length ? value / cohort.length : 0, value: String(value) };
      });
      return { period: iso(period), frequency, data };
    });
  }
}
