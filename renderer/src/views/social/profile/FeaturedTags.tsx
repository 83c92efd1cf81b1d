import { useResource } from '../use-resource.ts';

interface FeaturedTag {
  id: string;
  name: string;
  statuses_count: string | number;
}

/** The hashtags an account features on its profile, each opening its timeline here. */
export function FeaturedTags({ accountId, onTag }: { accountId: string; onTag: (name: string) => void }) {
  const { data: tags } = useResource<FeaturedTag[]>(`/api/v1/accounts/${accountId}/featured_tags`);
  if (!tags?.length) return null;
  return (
    <ul className="accounts toolbar" aria-label="Featured hashtags">
      {tags.map((t) => (
        <li key={t.id}>
          <button type="button" className="link" onClick={() => onTag(t.name)}>
            #{t.name}
          </button>{' '}
          <span className="muted">
            {Number(t.statuses_count) === 1 ? '1 post' : `${Number(t.statuses_count)} posts`}
          </span>
        </li>
      ))}
    </ul>
  );
}
