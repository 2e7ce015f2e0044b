/** The frame around every screen: skip link, navigation, who is signed in, the feed's state. */
import type { ComponentChildren } from 'preact';
import { useFeedConnected } from '../feed.ts';
import { href, useLocation } from '../router.ts';
import { NAV } from '../screens/index.ts';
import { signOut, useUser } from '../session.ts';

export function Layout(props: { children: ComponentChildren }) {
  const { path } = useLocation();
  const user = useUser();
  const live = useFeedConnected();
  return (
    <div class="layout">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top-bar">
        <a class="brand" href={href('/stores')}>
          Fleet console
        </a>
        <span
          class={`live ${live ? 'on' : 'off'}`}
          data-testid="feed-status"
          title={live ? 'Live updates on' : 'Live updates reconnecting; screens refresh every few seconds'}
        >
          <span class="dot" aria-hidden="true" />
          {live ? 'Live' : 'Reconnecting'}
        </span>
        <span class="spacer" />
        <span class="who" data-testid="signed-in-as">
          {user?.display_name || user?.email}
          <span class="muted small"> · {user?.roles.join(', ')}</span>
        </span>
        <button type="button" class="btn small" data-testid="sign-out" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <nav class="side-nav" aria-label="Main">
        <ul>
          {NAV.map((item) => {
            const current =
              path === item.path ||
              path.startsWith(`${item.path}/`) ||
              (item.path === '/alerts' && path.startsWith('/incidents'));
            return (
              <li key={item.path}>
                <a href={href(item.path)} aria-current={current ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            );
          })}
        </ul>
      </nav>
      <main id="main" class="content" tabIndex={-1}>
        {props.children}
      </main>
    </div>
  );
}
