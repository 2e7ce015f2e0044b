import { navigate, type ScreenId, useStore } from '../store.ts';
import { Icon } from './icons.tsx';

interface NavItem {
  id: ScreenId;
  label: string;
  managerOnly?: boolean;
}

/** Staff see the store, the lane, checks, devices and their own time; managers also cameras and sync. */
export const NAV_ITEMS: readonly NavItem[] = [
  { id: 'store', label: 'Store' },
  { id: 'drive-thru', label: 'Drive-thru' },
  { id: 'verification', label: 'Verification' },
  { id: 'devices', label: 'Devices' },
  { id: 'cameras', label: 'Cameras', managerOnly: true },
  { id: 'sync', label: 'Sync', managerOnly: true },
  { id: 'timeclock', label: 'Time clock' },
];

export const screensFor = (manager: boolean) => NAV_ITEMS.filter((item) => manager || !item.managerOnly);

export function NavRail(props: { manager: boolean }) {
  const screen = useStore((s) => s.screen);
  const offline = useStore((s) => s.topics.sync?.configured === true && !s.topics.sync.online);
  return (
    <nav class="nav-rail" aria-label="Screens">
      {screensFor(props.manager).map((item) => (
        <button
          type="button"
          key={item.id}
          class={`nav-item ${screen === item.id ? 'active' : ''}`}
          data-testid={`nav-${item.id}`}
          aria-current={screen === item.id ? 'page' : undefined}
          onClick={() => navigate(item.id)}
        >
          <Icon name={item.id} />
          <span class="nav-label">{item.label}</span>
          {item.id === 'sync' && offline && <span class="nav-dot bad" title="offline" />}
        </button>
      ))}
    </nav>
  );
}
