/**
 * Devices: the fleet's registered devices and their enrolment, the device certificates, and the
 * releases and rollouts that update the stores' appliances. Tabs are kept in the URL.
 */
import { Page, Tabs } from '../../components/ui.tsx';
import type { Route } from '../../router.ts';
import { useSearch } from '../../router.ts';
import { CertificatesTab } from './certificates-tab.tsx';
import './devices.css';
import { DevicesTab } from './devices-tab.tsx';
import { ReleasesSection } from './releases.tsx';
import { RolloutsSection } from './rollouts.tsx';
import { useStores } from './stores.ts';

type Tab = 'devices' | 'certificates' | 'releases';

const TABS: Array<{ id: Tab; label: string }> = [
  { id: 'devices', label: 'Devices' },
  { id: 'certificates', label: 'Certificates' },
  { id: 'releases', label: 'Releases & rollouts' },
];

const isTab = (value: string | null): value is Tab => TABS.some((tab) => tab.id === value);

function DevicesScreen() {
  const [search, setSearch] = useSearch();
  const requested = search.get('tab');
  const tab: Tab = isTab(requested) ? requested : 'devices';
  const stores = useStores();
  // Each tab's filters are its own: switching tab starts from a clean query string.
  const switchTo = (next: Tab) => {
    const clear = Object.fromEntries([...search.keys()].map((key) => [key, undefined]));
    setSearch({ ...clear, tab: next === 'devices' ? undefined : next });
  };
  return (
    <Page
      title="Devices"
      subtitle="Store devices, their certificates, and the releases rolled out to the appliances"
    >
      <div data-testid="devices-tabs">
        <Tabs label="Device views" tabs={TABS} value={tab} onChange={switchTo} />
      </div>
      <div role="tabpanel" aria-label={TABS.find((t) => t.id === tab)?.label}>
        {tab === 'devices' && <DevicesTab stores={stores} />}
        {tab === 'certificates' && <CertificatesTab stores={stores} />}
        {tab === 'releases' && (
          <>
            <ReleasesSection />
            <RolloutsSection stores={stores} />
          </>
        )}
      </div>
    </Page>
  );
}

export const deviceRoutes: Route[] = [{ path: '/devices', title: 'Devices', screen: DevicesScreen }];
