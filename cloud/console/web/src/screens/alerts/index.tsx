/** Alerts and incidents: the firing list, the incidents, and one incident with its timeline and channel. */
import { Page, Tabs } from '../../components/ui.tsx';
import { type Route, useSearch } from '../../router.ts';
import { AlertsList } from './alerts-list.tsx';
import { IncidentScreen } from './incident-screen.tsx';
import { IncidentsList } from './incidents-list.tsx';
import './alerts.css';

type Tab = 'alerts' | 'incidents';

function AlertsScreen() {
  const [search, setSearch] = useSearch();
  const tab: Tab = search.get('tab') === 'incidents' ? 'incidents' : 'alerts';
  return (
    <Page title="Alerts" subtitle="What is firing across the fleet, and the incidents being worked.">
      <Tabs<Tab>
        label="Alerts and incidents"
        tabs={[
          { id: 'alerts', label: 'Alerts' },
          { id: 'incidents', label: 'Incidents' },
        ]}
        value={tab}
        onChange={(next) => setSearch({ tab: next === 'alerts' ? undefined : next })}
      />
      <div role="tabpanel" aria-label={tab === 'alerts' ? 'Alerts' : 'Incidents'}>
        {tab === 'alerts' ? <AlertsList /> : <IncidentsList />}
      </div>
    </Page>
  );
}

export const alertRoutes: Route[] = [
  { path: '/alerts', title: 'Alerts', screen: AlertsScreen },
  { path: '/incidents/:id', title: 'Incident', screen: IncidentScreen },
];
