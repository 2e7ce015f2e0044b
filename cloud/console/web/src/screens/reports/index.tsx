/** Reports: the P&L statements of the tenant, a brand or a region, comparisons and trends. */
import { ErrorNotice, Page, Tabs } from '../../components/ui.tsx';
import { type Route, useSearch } from '../../router.ts';
import { type CompareBy, CompareTab } from './compare.tsx';
import { describePeriod, periodProblem, readPeriod } from './period.ts';
import { PeriodPicker } from './period-picker.tsx';
import { BrandTab, ConsolidatedTab, RegionTab } from './statements.tsx';
import { type Granularity, type TrendChoice, TrendTab } from './trend.tsx';
import './reports.css';

type Tab = 'consolidated' | 'brand' | 'region' | 'compare' | 'trend';

const TABS: Array<{ id: Tab; label: string }> = [
  { id: 'consolidated', label: 'Consolidated' },
  { id: 'brand', label: 'Brand' },
  { id: 'region', label: 'Region' },
  { id: 'compare', label: 'Compare' },
  { id: 'trend', label: 'Trend' },
];

const BY: CompareBy[] = ['brand', 'region', 'location'];
const GRAINS: Granularity[] = ['day', 'week', 'month'];

function readTrend(params: URLSearchParams): TrendChoice {
  const granularity = params.get('granularity') as Granularity | null;
  return {
    metric: params.get('metric') || 'net_revenue',
    granularity: granularity && GRAINS.includes(granularity) ? granularity : 'month',
    brandId: params.get('trend_brand') ?? '',
  };
}

function ReportsScreen() {
  const [params, setSearch] = useSearch();
  const asked = params.get('tab') as Tab | null;
  const tab: Tab = asked && TABS.some((t) => t.id === asked) ? asked : 'consolidated';
  const period = readPeriod(params);
  const problem = periodProblem(period);
  const askedBy = params.get('by') as CompareBy | null;
  const by = askedBy && BY.includes(askedBy) ? askedBy : 'brand';
  const ids = (params.get('ids') ?? '').split(',').filter(Boolean);
  const content = () => {
    switch (tab) {
      case 'consolidated':
        return <ConsolidatedTab period={period} />;
      case 'brand':
        return (
          <BrandTab period={period} brandId={params.get('brand')} onBrand={(brand) => setSearch({ brand })} />
        );
      case 'region':
        return (
          <RegionTab
            period={period}
            regionId={params.get('region')}
            onRegion={(region) => setSearch({ region })}
          />
        );
      case 'compare':
        return (
          <CompareTab
            period={period}
            by={by}
            ids={ids}
            onChange={(nextBy, nextIds) => setSearch({ by: nextBy, ids: nextIds.join(',') })}
          />
        );
      case 'trend':
        return (
          <TrendTab
            period={period}
            choice={readTrend(params)}
            onChange={(next) =>
              setSearch({ metric: next.metric, granularity: next.granularity, trend_brand: next.brandId })
            }
          />
        );
    }
  };
  return (
    <Page title="Reports" subtitle={`Profit and loss, ${describePeriod(period)}`}>
      <div data-testid="report-tabs">
        <Tabs label="Report" tabs={TABS} value={tab} onChange={(next) => setSearch({ tab: next })} />
      </div>
      <PeriodPicker period={period} onChange={(next) => setSearch(next)} />
      {problem ? <ErrorNotice error={new Error(problem)} title="Pick another period" /> : content()}
    </Page>
  );
}

export const reportRoutes: Route[] = [{ path: '/reports', title: 'Reports', screen: ReportsScreen }];
