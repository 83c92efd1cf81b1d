import { useRouter } from '../stores/router.ts';
import { GroupFormPage } from './subscriptions/GroupFormPage.tsx';
import { GroupPage } from './subscriptions/GroupPage.tsx';
import { SubscriptionsOverview } from './subscriptions/Overview.tsx';

/**
 * Subscription routes: /ui/subscriptions (clients, live subscriptions, groups), /ui/subscriptions/new,
 * /ui/subscriptions/groups/<stream>/<group>[/edit].
 */
export function SubscriptionsView() {
  const rest = useRouter((s) => s.rest);
  if (rest[0] === 'new') return <GroupFormPage mode="create" />;
  if (rest[0] === 'groups' && rest[1] !== undefined && rest[2] !== undefined) {
    if (rest[3] === 'edit') return <GroupFormPage mode="edit" stream={rest[1]} group={rest[2]} />;
    return <GroupPage stream={rest[1]} group={rest[2]} />;
  }
  return <SubscriptionsOverview />;
}
