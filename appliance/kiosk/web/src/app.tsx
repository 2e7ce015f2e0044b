import type { ComponentType } from 'preact';
import { useCallback, useEffect } from 'preact/hooks';
import { ActionsBar, FeedBanner, MismatchBanner, OfflineBanner } from './components/banners.tsx';
import { IdleGuard } from './components/idle-guard.tsx';
import { NavRail, screensFor } from './components/nav.tsx';
import { connectFeed } from './feed.ts';
import { useNow } from './hooks.ts';
import { formatTimeOfDay } from './lib/zone.ts';
import { followAlarm, onVerificationEvent } from './mismatches.ts';
import { CamerasScreen } from './screens/cameras/cameras.tsx';
import { DevicesScreen } from './screens/devices/devices.tsx';
import { DriveThruScreen } from './screens/drive-thru/drive-thru.tsx';
import { SignInScreen } from './screens/signin/signin.tsx';
import { StoreScreen } from './screens/store/store.tsx';
import { SyncScreen } from './screens/sync/sync.tsx';
import { TimeClockScreen } from './screens/timeclock/timeclock.tsx';
import { VerificationScreen } from './screens/verification/verification.tsx';
import { endSession } from './session.ts';
import {
  emptyTopics,
  publishEvent,
  rememberOrderNumbers,
  type ScreenId,
  type Session,
  type StoreEvent,
  store,
  useStore,
} from './store.ts';
import { startTopicFallback } from './topics.ts';

const SCREENS: Record<ScreenId, ComponentType<{ session: Session }>> = {
  store: StoreScreen,
  'drive-thru': DriveThruScreen,
  verification: VerificationScreen,
  devices: DevicesScreen,
  cameras: CamerasScreen,
  sync: SyncScreen,
  timeclock: TimeClockScreen,
};

function onEvent(event: StoreEvent) {
  if (event.type.startsWith('order.'))
    rememberOrderNumbers([event.data as { id?: unknown; number?: unknown }]);
  onVerificationEvent(event);
  publishEvent(event);
}

/** The store's time, once its zone is known (never the machine's, which may be set to UTC). */
function Clock() {
  const now = useNow(10_000);
  const timeZone = useStore((s) => s.timeZone);
  if (!timeZone) return <span class="clock" />;
  return (
    <time class="clock" data-testid="clock" data-time-zone={timeZone} dateTime={new Date(now).toISOString()}>
      {formatTimeOfDay(now, { timeZone })}
    </time>
  );
}

function TopBar(props: { session: Session }) {
  return (
    <header class="top-bar">
      <div class="who">
        <span class="avatar" aria-hidden="true">
          {props.session.displayName.slice(0, 1).toUpperCase()}
        </span>
        <span>
          {props.session.displayName}
          <span class="muted"> · {props.session.manager ? 'Manager' : 'Staff'}</span>
        </span>
      </div>
      <Clock />
      <button
        type="button"
        class="btn"
        data-testid="sign-out"
        onClick={() => endSession({ serverSide: true })}
      >
        Sign out
      </button>
    </header>
  );
}

function Shell(props: { session: Session }) {
  const { session } = props;
  const screen = useStore((s) => s.screen);

  useEffect(() => {
    const stopFeed = connectFeed(session.token, { onEvent, onUnauthorized: () => endSession() });
    const stopTopics = startTopicFallback();
    return () => {
      stopFeed();
      stopTopics();
      store.set({ topics: emptyTopics, topicAt: {} });
    };
  }, [session.token]);

  const expire = useCallback(() => endSession({ serverSide: true }), []);
  const allowed = screensFor(session.manager).some((item) => item.id === screen) ? screen : 'store';
  const Screen = SCREENS[allowed];

  return (
    <div class="shell">
      <NavRail manager={session.manager} />
      <div class="main">
        <TopBar session={session} />
        <div class="banners">
          <OfflineBanner />
          <FeedBanner />
          <MismatchBanner />
          <ActionsBar />
        </div>
        <main class="screen" id="screen">
          <Screen session={session} />
        </main>
      </div>
      <IdleGuard onExpire={expire} />
    </div>
  );
}

export function App() {
  const session = useStore((s) => s.session);
  useEffect(() => followAlarm(), []);
  if (session) return <Shell session={session} />;
  return (
    <div class="signed-out">
      <MismatchBanner />
      <SignInScreen />
    </div>
  );
}
