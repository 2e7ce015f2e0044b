import { useEffect, useRef } from 'preact/hooks';
import { Layout } from './components/layout.tsx';
import { Empty, Loading, Page } from './components/ui.tsx';
import { connectFeed } from './feed.ts';
import { href, match, navigate, onLinkClick, useLocation } from './router.ts';
import { ROUTES } from './screens/index.ts';
import { SignInScreen } from './screens/signin/signin.tsx';
import { accessTokenNow, renew, useSessionState } from './session.ts';

function NotFound() {
  return (
    <Page title="Not found">
      <Empty title="There is no such page" action={<a href={href('/stores')}>Go to the stores</a>} />
    </Page>
  );
}

function Screens() {
  const { path } = useLocation();
  useEffect(() => {
    if (path === '/') navigate('/stores', { replace: true });
  }, [path]);
  useEffect(() => connectFeed(accessTokenNow, renew), []);
  // Focus the page on navigation so keyboard and screen-reader users start at its content; not on
  // the first load, where the first Tab must reach the skip link and the navigation.
  const previous = useRef<string | null>(null);
  useEffect(() => {
    const from = previous.current;
    previous.current = path;
    // The first page, and the redirect from / to the stores, are a load, not a navigation.
    if (from === null || from === '/') return;
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [path]);
  const found = match(ROUTES, path);
  if (!found) return <Layout>{path === '/' ? <Loading /> : <NotFound />}</Layout>;
  const Screen = found.route.screen;
  return (
    <Layout>
      <Screen params={found.params} key={path} />
    </Layout>
  );
}

export function App() {
  const { user, restoring } = useSessionState();
  useEffect(() => {
    document.addEventListener('click', onLinkClick);
    return () => document.removeEventListener('click', onLinkClick);
  }, []);
  if (restoring) return <Loading label="Opening the console…" />;
  return user ? <Screens /> : <SignInScreen />;
}
