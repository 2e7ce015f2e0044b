/**
 * Side by side: brands through the compare route (rankings included), regions and stores through
 * the custom report grouped by region or location, the only way the API sets those side by side.
 */
import { Chart } from '../../components/chart.tsx';
import { Empty, ErrorNotice, Field, inputValue, Loading, Pill } from '../../components/ui.tsx';
import { useResource } from '../../hooks.ts';
import { href } from '../../router.ts';
import {
  axisNumber,
  formatFigure,
  groupedBars,
  LOWER_IS_BETTER,
  mergeFigures,
  moneyFormat,
  STATEMENT,
} from './figures.ts';
import type { Period } from './period.ts';
import {
  ALL_SECTIONS,
  type Comparison,
  type CustomReport,
  currenciesOf,
  type Figures,
  listAll,
  type Named,
  pnl,
} from './pnl-api.ts';

export type CompareBy = 'brand' | 'region' | 'location';

const KINDS: Array<{ id: CompareBy; label: string; plural: string; path: string }> = [
  { id: 'brand', label: 'Brands', plural: 'brands', path: '/v1/platform/brands' },
  { id: 'region', label: 'Regions', plural: 'regions', path: '/v1/platform/regions' },
  { id: 'location', label: 'Stores', plural: 'stores', path: '/v1/platform/locations' },
];

interface Column {
  id: string;
  name: string;
  figures: Figures;
}

const pct = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 100);

/** The statement's derived lines from a custom report group's blocks, as the API defines them. */
function derive(blocks: Array<Figures | undefined>): Figures {
  const f = mergeFigures(...blocks);
  const net = f.net_revenue ?? 0;
  const grossProfit = net - (f.total_cogs ?? 0);
  const operating = grossProfit - (f.total_operating_expenses ?? 0);
  const netIncome = operating + (f.other_income ?? 0) - (f.other_expenses ?? 0);
  return {
    ...f,
    gross_profit: grossProfit,
    gross_margin: pct(grossProfit, net),
    operating_income: operating,
    operating_margin: pct(operating, net),
    net_income: netIncome,
    net_margin: pct(netIncome, net),
    food_cost_percentage: pct(f.food_cost ?? 0, net),
    labor_percentage: pct(f.labor_cost ?? 0, net),
  };
}

async function loadColumns(by: CompareBy, ids: string[], period: Period): Promise<Column[]> {
  const dates = { start_date: period.start, end_date: period.end };
  if (by === 'brand') {
    const answer = await pnl<Comparison>('compare', { ...dates, brand_ids: ids });
    return answer.brands.map((b) => ({ id: b.brand_id, name: b.brand_name, figures: b.metrics }));
  }
  const report = await pnl<CustomReport>('custom', { ...dates, sections: ALL_SECTIONS, group_by: by });
  const chosen = new Set(ids);
  return report.groups
    .filter((g) => chosen.has(g.group_key))
    .map((g) => ({ id: g.group_key, name: g.group_name, figures: derive(ALL_SECTIONS.map((s) => g[s])) }));
}

function best(metric: string, columns: Column[]): string | undefined {
  const values = columns.filter((c) => c.figures[metric] !== undefined);
  if (values.length < 2) return undefined;
  const lower = LOWER_IS_BETTER.has(metric);
  const winner = values.reduce((a, b) => {
    const [x, y] = [a.figures[metric]!, b.figures[metric]!];
    return (lower ? y < x : y > x) ? b : a;
  });
  return values.every((c) => c.figures[metric] === winner.figures[metric]) ? undefined : winner.id;
}

function CompareTable(props: { columns: Column[]; currencies: string[] }) {
  const money = moneyFormat(props.currencies);
  const lines = STATEMENT.flatMap((g) => g.lines).filter((line) =>
    props.columns.some((c) => c.figures[line.key] !== undefined),
  );
  return (
    <div class="table-wrap">
      <table class="table pnl-table" data-testid="pnl-table">
        <caption class="visually-hidden">Comparison, line by line; the best of each line is marked</caption>
        <thead>
          <tr>
            <th scope="col">Line</th>
            {props.columns.map((c) => (
              <th scope="col" class="num" key={c.id}>
                {c.name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {lines.map((line) => {
            const top = best(line.key, props.columns);
            return (
              <tr key={line.key} class={line.total ? 'pnl-total' : undefined}>
                <th scope="row">{line.label}</th>
                {props.columns.map((c) => (
                  <td class="num" key={c.id}>
                    {formatFigure(money, c.figures[line.key], line.percent)}
                    {top === c.id && (
                      <>
                        {' '}
                        <Pill tone="ok">best</Pill>
                      </>
                    )}
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

const MAIN: Array<[string, string]> = [
  ['net_revenue', 'Revenue'],
  ['total_cogs', 'COGS'],
  ['labor_cost', 'Labor'],
  ['net_income', 'Net income'],
];

function CompareChart(props: { columns: Column[] }) {
  const bars = groupedBars(
    MAIN.map(([, label]) => label),
    props.columns.map((c) => ({ label: c.name, values: MAIN.map(([key]) => c.figures[key]) })),
  );
  return (
    <div data-testid="pnl-chart">
      <Chart
        label={`Revenue, cost of goods sold, labor and net income of ${props.columns.map((c) => c.name).join(', ')}`}
        data={bars.data}
        series={bars.series}
        xLabels={bars.xLabels}
        formatY={axisNumber}
        height={260}
      />
    </div>
  );
}

function ComparisonView(props: { by: CompareBy; ids: string[]; period: Period }) {
  const { by, ids, period } = props;
  const result = useResource(
    (signal) => Promise.all([loadColumns(by, ids, period), currenciesOf({}, signal)]),
    [by, ids.join(','), period.start, period.end],
  );
  if (result.error && !result.data)
    return (
      <ErrorNotice error={result.error} onRetry={result.reload} title="The comparison could not be loaded" />
    );
  if (!result.data) return <Loading label="Comparing…" />;
  const [columns, currencies] = result.data;
  if (columns.every((c) => !c.figures.gross_revenue && !c.figures.net_revenue))
    return (
      <Empty title="No sales in this period">
        None of these has sales in this period: pick another period, or check that stores are syncing on the{' '}
        <a href={href('/stores')}>Stores</a> screen.
      </Empty>
    );
  return (
    <div class="pnl-layout" aria-busy={result.loading}>
      <section class="card" aria-label="Main lines side by side">
        <CompareChart columns={columns} />
      </section>
      <section class="card pnl-statement" aria-label="Comparison">
        <CompareTable columns={columns} currencies={currencies} />
      </section>
    </div>
  );
}

function Choices(props: {
  kind: (typeof KINDS)[number];
  items: Named[];
  ids: string[];
  onIds: (ids: string[]) => void;
}) {
  const toggle = (id: string, on: boolean) =>
    props.onIds(on ? [...props.ids, id] : props.ids.filter((other) => other !== id));
  return (
    <fieldset class="pnl-choices">
      <legend>{`${props.kind.label} to compare (two or more)`}</legend>
      {props.items.map((item) => (
        <label key={item.id} class="pnl-choice">
          <input
            type="checkbox"
            checked={props.ids.includes(item.id)}
            onChange={(event) => toggle(item.id, (event.currentTarget as HTMLInputElement).checked)}
          />
          {item.name}
        </label>
      ))}
    </fieldset>
  );
}

export function CompareTab(props: {
  period: Period;
  by: CompareBy;
  ids: string[];
  onChange: (by: CompareBy, ids: string[]) => void;
}) {
  const kind = KINDS.find((k) => k.id === props.by) ?? KINDS[0]!;
  const list = useResource((signal) => listAll<Named>(kind.path, signal), [kind.path]);
  const known = new Set(list.data?.map((item) => item.id));
  const ids = props.ids.filter((id) => known.has(id));
  return (
    <>
      <div class="toolbar">
        <Field label="Compare">
          <select value={kind.id} onChange={(event) => props.onChange(inputValue(event) as CompareBy, [])}>
            {KINDS.map((k) => (
              <option key={k.id} value={k.id}>
                {k.label}
              </option>
            ))}
          </select>
        </Field>
      </div>
      {list.error !== undefined && (
        <ErrorNotice
          error={list.error}
          onRetry={list.reload}
          title={`The ${kind.plural} could not be loaded`}
        />
      )}
      {!list.data && !list.error && <Loading label={`Loading ${kind.plural}…`} />}
      {list.data && list.data.length < 2 && (
        <Empty title={`Fewer than two ${kind.plural}`}>
          A comparison needs at least two {kind.plural}: add them on the <a href={href('/stores')}>Stores</a>{' '}
          screen.
        </Empty>
      )}
      {list.data && list.data.length >= 2 && (
        <>
          <Choices kind={kind} items={list.data} ids={ids} onIds={(next) => props.onChange(kind.id, next)} />
          {ids.length < 2 ? (
            <Empty title={`Pick at least two ${kind.plural}`}>
              Tick two or more {kind.plural} above to set them side by side.
            </Empty>
          ) : (
            <ComparisonView by={kind.id} ids={ids} period={props.period} />
          )}
        </>
      )}
    </>
  );
}
