/** A P&L statement as a table (actual, share of revenue, budget and prior period with variances) and a chart. */
import { Chart } from '../../components/chart.tsx';
import { formatNumber } from '../../format.ts';
import {
  axisNumber,
  formatFigure,
  groupedBars,
  type Line,
  LOWER_IS_BETTER,
  type MoneyFormat,
  percent,
  STATEMENT,
} from './figures.ts';
import type { BudgetLine, Figures, PriorLine } from './pnl-api.ts';

export interface StatementProps {
  title: string;
  figures: Figures;
  budget?: Record<string, BudgetLine>;
  prior?: Record<string, PriorLine>;
  money: MoneyFormat;
}

const hasAny = (record?: Record<string, unknown>) => !!record && Object.keys(record).length > 0;

/** A signed difference, coloured by whether it is good news for this line. */
function Delta(props: { metric: string; value: number | undefined; format: (abs: number) => string }) {
  if (props.value === undefined) return <span class="muted">—</span>;
  const text = props.format(Math.abs(props.value));
  // A change that rounds to nothing is neither good nor bad news.
  if (!/[1-9]/.test(text)) return <span>{text}</span>;
  const better = LOWER_IS_BETTER.has(props.metric) ? props.value < 0 : props.value > 0;
  return <span class={better ? 'pnl-good' : 'pnl-bad'}>{`${props.value > 0 ? '+' : '−'}${text}`}</span>;
}

const points = (value: number) => `${formatNumber(value, 1)} pts`;

function StatementRow(props: StatementProps & { line: Line; showBudget: boolean; showPrior: boolean }) {
  const { line, figures, money } = props;
  const value = figures[line.key];
  const budget = props.budget?.[line.key];
  const prior = props.prior?.[line.key];
  const net = figures.net_revenue;
  const share = !line.percent && value !== undefined && net ? (value / net) * 100 : undefined;
  const change = (abs: number) => (line.percent ? points(abs) : money(abs));
  return (
    <tr class={line.total ? 'pnl-total' : undefined}>
      <th scope="row">{line.label}</th>
      <td class="num">{formatFigure(money, value, line.percent)}</td>
      <td class="num">{share === undefined ? '' : percent(share)}</td>
      {props.showBudget && (
        <>
          <td class="num">{budget ? formatFigure(money, budget.budget, line.percent) : '—'}</td>
          <td class="num">
            <Delta metric={line.key} value={budget?.variance} format={change} />
          </td>
          <td class="num">
            <Delta metric={line.key} value={budget?.variance_pct} format={percent} />
          </td>
        </>
      )}
      {props.showPrior && (
        <>
          <td class="num">{prior ? formatFigure(money, prior.prior, line.percent) : '—'}</td>
          <td class="num">
            <Delta metric={line.key} value={prior?.change} format={change} />
          </td>
          <td class="num">
            <Delta metric={line.key} value={prior?.change_pct} format={percent} />
          </td>
        </>
      )}
    </tr>
  );
}

export function StatementTable(props: StatementProps) {
  const showBudget = hasAny(props.budget);
  const showPrior = hasAny(props.prior);
  const columns = 3 + (showBudget ? 3 : 0) + (showPrior ? 3 : 0);
  const groups = STATEMENT.map((group) => ({
    ...group,
    lines: group.lines.filter((line) => props.figures[line.key] !== undefined),
  })).filter((group) => group.lines.length > 0);
  return (
    <div class="table-wrap">
      <table class="table pnl-table" data-testid="pnl-table">
        <caption class="visually-hidden">{props.title}</caption>
        <thead>
          <tr>
            <th scope="col">Line</th>
            <th scope="col" class="num">
              Actual
            </th>
            <th scope="col" class="num">
              Of net revenue
            </th>
            {showBudget && (
              <>
                <th scope="col" class="num">
                  Budget
                </th>
                <th scope="col" class="num">
                  Variance
                </th>
                <th scope="col" class="num">
                  Variance %
                </th>
              </>
            )}
            {showPrior && (
              <>
                <th scope="col" class="num">
                  Prior period
                </th>
                <th scope="col" class="num">
                  Change
                </th>
                <th scope="col" class="num">
                  Change %
                </th>
              </>
            )}
          </tr>
        </thead>
        {groups.map((group) => (
          <tbody key={group.title}>
            <tr class="pnl-section">
              <th scope="rowgroup" colSpan={columns}>
                {group.title}
              </th>
            </tr>
            {group.lines.map((line) => (
              <StatementRow
                key={line.key}
                {...props}
                line={line}
                showBudget={showBudget}
                showPrior={showPrior}
              />
            ))}
          </tbody>
        ))}
      </table>
    </div>
  );
}

const MAIN_LINES: Array<[string, string]> = [
  ['net_revenue', 'Revenue'],
  ['total_cogs', 'COGS'],
  ['labor_cost', 'Labor'],
  ['net_income', 'Net income'],
];

/** Bars of the main lines: actual, and budget and prior period when the statement has them. */
export function StatementChart(props: StatementProps) {
  const series = [{ label: 'Actual', values: MAIN_LINES.map(([key]) => props.figures[key]) }];
  if (hasAny(props.budget))
    series.push({ label: 'Budget', values: MAIN_LINES.map(([key]) => props.budget?.[key]?.budget) });
  if (hasAny(props.prior))
    series.push({ label: 'Prior period', values: MAIN_LINES.map(([key]) => props.prior?.[key]?.prior) });
  const bars = groupedBars(
    MAIN_LINES.map(([, label]) => label),
    series,
  );
  return (
    <div data-testid="pnl-chart">
      <Chart
        label={`${props.title}: revenue, cost of goods sold, labor and net income${series.length > 1 ? ', with budget and prior period' : ''}`}
        data={bars.data}
        series={bars.series}
        xLabels={bars.xLabels}
        formatY={axisNumber}
        height={240}
      />
    </div>
  );
}
