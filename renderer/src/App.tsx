import { useEffect } from 'react';
import { Link, Loading } from './components/ui.tsx';
import { SECTIONS, useRouter, type SectionId } from './stores/router.ts';
import { useSession } from './stores/session.ts';
import { useTheme, type Theme } from './stores/theme.ts';
import { EventLogView } from './views/EventLogView.tsx';
import { ServerView } from './views/ServerView.tsx';
import { ChangeDefaultPassword, SignIn } from './views/SignIn.tsx';
import { SocialView } from './views/SocialView.tsx';
import { SubscriptionsView } from './views/SubscriptionsView.tsx';

const VIEWS: Record<SectionId, () => React.JSX.Element | null> = {
  eventlog: EventLogView,
  subscriptions: SubscriptionsView,
  social: SocialView,
  server: ServerView,
};

export function App() {
  const { status, user, restore, signOut } = useSession();
  const section = useRouter((r) => r.section);
  const { theme, setTheme } = useTheme();
  useEffect(() => {
    void restore();
  }, [restore]);

  if (status === 'checking') return <Loading label="Starting…" />;
  if (status === 'signed-out') return <SignIn />;
  if (status === 'must-change-password') return <ChangeDefaultPassword />;

  const View = VIEWS[section];
  return (
    <div className="app">
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Homeport</span>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map((s) => (
              <li key={s.id}>
                <Link to={`/ui/${s.id}`} aria-current={s.id === section ? 'page' : undefined}>
                  {s.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <span className="user">
          <label className="theme-switch">
            <select value={theme} onChange={(e) => setTheme(e.target.value as Theme)} aria-label="Theme">
              <option value="system">System theme</option>
              <option value="light">Light</option>
              <option value="dark">Dark</option>
            </select>
          </label>
          {user?.name}{' '}
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </span>
      </header>
      <main className="content" id="content" tabIndex={-1}>
        <View />
      </main>
    </div>
  );
}
