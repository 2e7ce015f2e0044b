/** The statement tabs: the whole tenant, one brand, one region. */
import type { ComponentChildren } from 'preact';
import { Empty, ErrorNotice, Field, inputValue, Loading, Stat } from '../../components/ui.tsx';
import { useResource } from '../../hooks.ts';
import { href } from '../../router.ts';
import { mergeFigures, moneyFormat, percent } from './figures.ts';
import { describePeriod, type Period } from './period.ts';
import {
  ALL_SECTIONS,
  type BrandStatement,
  type BudgetLine,
  type Consolidated,
  type CustomReport,
  currenciesOf,
  type Figures,
  listAll,
  type Named,
  type PriorLine,
  pnl,
  type RegionStatement,
} from './pnl-api.ts';
import { StatementChart, StatementTable } from './statement.tsx';

interface Loaded {
  title: string;
  figures: Figures;
  budget?: Record<string, BudgetLine>;
  prior?: Record<string, PriorLine>;
  currencies: string[];
  facts: string;
}

const dates = (period: Period) => ({ start_date: period.start, end_date: period.end });

function NoSales() {
  return (
    <Empty title="No sales in this period">
      Pick another period, or check that stores are syncing on the <a href={href('/stores')}>Stores</a>{' '}
      screen.
    </Empty>
  );
}

function CurrencyNote(props: { currencies: string[] }) {
  if (props.currencies.length < 2) return null;
  return (
    <p class="notice info small">
      The stores sell in {props.currencies.join(', ')}: the statement adds their amounts as recorded, without
      conversion, so figures are shown without a currency sign.
    </p>
  );
}

function Summary(props: { loaded: Loaded }) {
  const money = moneyFormat(props.loaded.currencies);
  const f = props.loaded.figures;
  return (
    <div class="stats">
      <Stat label="Net revenue" value={money(f.net_revenue)} />
      <Stat label="Gross margin" value={percent(f.gross_margin)} />
      <Stat label="Labor of revenue" value={percent(f.labor_percentage)} />
      <Stat
        label="Net income"
        value={money(f.net_income)}
        tone={(f.net_income ?? 0) < 0 ? 'bad' : undefined}
      />
      <Stat label="Net margin" value={percent(f.net_margin)} />
    </div>
  );
}

function StatementPanel(props: { load: (signal: AbortSignal) => Promise<Loaded>; deps: unknown[] }) {
  const { data, error, loading, reload } = useResource(props.load, props.deps);
  if (error && !data)
    return <ErrorNotice error={error} onRetry={reload} title="The statement could not be loaded" />;
  if (!data) return <Loading label="Working out the statement…" />;
  const f = data.figures;
  const noSales = !f.gross_revenue && !f.net_revenue;
  const nothing = noSales && Object.values(f).every((v) => !v);
  const money = moneyFormat(data.currencies);
  const statement = { title: data.title, figures: f, budget: data.budget, prior: data.prior, money };
  return (
    <div aria-busy={loading}>
      {error !== undefined && (
        <ErrorNotice error={error} onRetry={reload} title="The statement could not be refreshed" />
      )}
      <p class="muted small">{data.facts}</p>
      {noSales && <NoSales />}
      {!nothing && (
        <>
          <CurrencyNote currencies={data.currencies} />
          <Summary loaded={data} />
          <div class="pnl-layout">
            <section class="card" aria-label="Main lines">
              <StatementChart {...statement} />
            </section>
            <section class="card pnl-statement" aria-label="Statement">
              <StatementTable {...statement} />
              {!data.budget || Object.keys(data.budget).length === 0 ? (
                <p class="muted small">
                  {data.budget
                    ? 'No budget is recorded for this period.'
                    : 'The API gives budgets for the whole tenant and for brands only.'}
                </p>
              ) : null}
            </section>
          </div>
        </>
      )}
    </div>
  );
}

async function customTotals(period: Period, filters?: Record<string, string>): Promise<Figures> {
  const report = await pnl<CustomReport>('custom', {
    ...dates(period),
    sections: ALL_SECTIONS,
    group_by: 'brand',
    ...(filters ? { filters } : {}),
  });
  return mergeFigures(...ALL_SECTIONS.map((s) => report.totals[s]));
}

export function ConsolidatedTab(props: { period: Period }) {
  const { period } = props;
  const load = async (signal: AbortSignal): Promise<Loaded> => {
    const [statement, lines, currencies] = await Promise.all([
      pnl<Consolidated>('consolidated', {
        ...dates(period),
        include_budget: true,
        include_prior_period: true,
      }),
      customTotals(period),
      currenciesOf({}, signal),
    ]);
    return {
      title: `Consolidated P&L, ${describePeriod(period)}`,
      figures: mergeFigures(lines, statement.summary),
      budget: statement.budget_comparison,
      prior: statement.prior_period,
      currencies,
      facts: `All ${statement.brands_included} brand${statement.brands_included === 1 ? '' : 's'}, ${describePeriod(period)}. Prior period: the same number of days just before.`,
    };
  };
  return <StatementPanel load={load} deps={[period.start, period.end]} />;
}

/** A select of brands or regions, with the empty and error states of its list. */
function ScopePicker(props: {
  kind: 'brand' | 'region';
  value: string | null;
  onChange: (id: string) => void;
  children: (chosen: Named) => ComponentChildren;
}) {
  const path = props.kind === 'brand' ? '/v1/platform/brands' : '/v1/platform/regions';
  const list = useResource((signal) => listAll<Named>(path, signal), [path]);
  if (list.error)
    return (
      <ErrorNotice
        error={list.error}
        onRetry={list.reload}
        title={`The ${props.kind}s could not be loaded`}
      />
    );
  if (!list.data) return <Loading label={`Loading ${props.kind}s…`} />;
  if (list.data.length === 0)
    return (
      <Empty title={`No ${props.kind}s yet`}>
        Add {props.kind}s and their stores on the <a href={href('/stores')}>Stores</a> screen, then come back
        here.
      </Empty>
    );
  const chosen = list.data.find((item) => item.id === props.value) ?? list.data[0]!;
  return (
    <>
      <div class="toolbar">
        <Field label={props.kind === 'brand' ? 'Brand' : 'Region'}>
          <select
            value={chosen.id}
            onChange={(event) => props.onChange(inputValue(event))}
            data-testid={`pnl-${props.kind}`}
          >
            {list.data.map((item) => (
              <option key={item.id} value={item.id}>
                {item.name}
              </option>
            ))}
          </select>
        </Field>
      </div>
      {props.children(chosen)}
    </>
  );
}

function BrandStatementPanel(props: { period: Period; brand: Named }) {
  const { period, brand } = props;
  const load = async (signal: AbortSignal): Promise<Loaded> => {
    const [statement, comparison, lines, currencies] = await Promise.all([
      pnl<BrandStatement>(`brand/${encodeURIComponent(brand.id)}`, dates(period)),
      pnl<Consolidated>('consolidated', {
        ...dates(period),
        brand_ids: [brand.id],
        include_budget: true,
        include_prior_period: true,
      }),
      customTotals(period, { brand_id: brand.id }),
      currenciesOf({ brand_id: brand.id }, signal),
    ]);
    return {
      title: `${statement.brand_name} P&L, ${describePeriod(period)}`,
      figures: mergeFigures(
        lines,
        statement.revenue,
        statement.cost_of_goods_sold,
        statement.operating_expenses,
        statement.summary,
      ),
      budget: comparison.budget_comparison,
      prior: comparison.prior_period,
      currencies,
      facts: `${statement.brand_name}: ${statement.locations_count} store${statement.locations_count === 1 ? '' : 's'}, ${describePeriod(period)}.`,
    };
  };
  return <StatementPanel load={load} deps={[period.start, period.end, brand.id]} />;
}

function RegionStatementPanel(props: { period: Period; region: Named }) {
  const { period, region } = props;
  const load = async (signal: AbortSignal): Promise<Loaded> => {
    const [statement, lines, currencies] = await Promise.all([
      pnl<RegionStatement>(`region/${encodeURIComponent(region.id)}`, dates(period)),
      customTotals(period, { region_id: region.id }),
      currenciesOf({ region_id: region.id }, signal),
    ]);
    return {
      title: `${statement.region_name} P&L, ${describePeriod(period)}`,
      figures: mergeFigures(lines, statement.summary),
      currencies,
      facts: `${statement.region_name}: ${statement.brands_in_region} brand${statement.brands_in_region === 1 ? '' : 's'}, ${statement.locations_in_region} store${statement.locations_in_region === 1 ? '' : 's'}, ${describePeriod(period)}.`,
    };
  };
  return <StatementPanel load={load} deps={[period.start, period.end, region.id]} />;
}

export function BrandTab(props: { period: Period; brandId: string | null; onBrand: (id: string) => void }) {
  return (
    <ScopePicker kind="brand" value={props.brandId} onChange={props.onBrand}>
      {(brand) => <BrandStatementPanel period={props.period} brand={brand} />}
    </ScopePicker>
  );
}

export function RegionTab(props: {
  period: Period;
  regionId: string | null;
  onRegion: (id: string) => void;
}) {
  return (
    <ScopePicker kind="region" value={props.regionId} onChange={props.onRegion}>
      {(region) => <RegionStatementPanel period={props.period} region={region} />}
    </ScopePicker>
  );
}
