/** What the billing API lists of the account's money: invoices, refunds and subscription changes (with MRR). */
import { Empty, Pill, Section, type Tone } from '../../components/ui.tsx';
import { type BillingEvent, cents, formatDay, type Invoice, type Refund } from './billing-api.ts';
import { words } from './subscription.tsx';

const REFUND_TONE: Record<Refund['status'], Tone> = {
  pending: 'info',
  succeeded: 'ok',
  failed: 'bad',
  canceled: 'neutral',
};

function mrr(event: BillingEvent): string {
  const from = event.from_mrr_cents;
  const to = event.to_mrr_cents;
  if (from === null && to === null) return '—';
  if (from === null) return cents(to, event.currency);
  return `${cents(from, event.currency)} → ${cents(to, event.currency)}`;
}

function plans(event: BillingEvent) {
  if (!event.from_plan_id && !event.to_plan_id) return <span class="muted">—</span>;
  return (
    <span class="small">
      {event.from_plan_id && <code>{event.from_plan_id}</code>}
      {event.from_plan_id && event.to_plan_id && ' → '}
      {event.to_plan_id && <code>{event.to_plan_id}</code>}
    </span>
  );
}

function Events(props: { events: BillingEvent[] }) {
  if (props.events.length === 0)
    return (
      <Empty title="No subscription changes yet">
        Changes appear here as the payment processor reports them.
      </Empty>
    );
  return (
    <div class="table-wrap">
      <table class="table billing-table">
        <caption class="visually-hidden">Subscription changes, latest first</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Change</th>
            <th scope="col">Plan</th>
            <th scope="col" class="num">
              Monthly recurring
            </th>
            <th scope="col">Reason</th>
          </tr>
        </thead>
        <tbody>
          {props.events.map((e) => (
            <tr key={e.id}>
              <td>{formatDay(e.event_at)}</td>
              <td>{words(e.event_type)}</td>
              <td>{plans(e)}</td>
              <td class="num">{mrr(e)}</td>
              <td>{e.reason ?? <span class="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const INVOICE_TONE: Record<Invoice['status'], Tone> = {
  draft: 'neutral',
  open: 'warn',
  paid: 'ok',
  void: 'neutral',
  uncollectible: 'bad',
};

function Invoices(props: { invoices: Invoice[] }) {
  if (props.invoices.length === 0)
    return (
      <Empty title="No invoices yet">
        The payment processor's invoices appear here once it issues the first.
      </Empty>
    );
  return (
    <div class="table-wrap">
      <table class="table billing-table">
        <caption class="visually-hidden">Invoices, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col" class="num">
              Due
            </th>
            <th scope="col" class="num">
              Paid
            </th>
            <th scope="col">Status</th>
            <th scope="col">Invoice</th>
          </tr>
        </thead>
        <tbody>
          {props.invoices.map((invoice) => (
            <tr key={invoice.id} data-testid="invoice-row">
              <td>{formatDay(invoice.created_at)}</td>
              <td class="num">{cents(invoice.amount_due, invoice.currency)}</td>
              <td class="num">{cents(invoice.amount_paid, invoice.currency)}</td>
              <td>
                <Pill tone={INVOICE_TONE[invoice.status]}>{invoice.status}</Pill>
              </td>
              <td>
                {invoice.hosted_invoice_url ? (
                  <a href={invoice.hosted_invoice_url} rel="noopener noreferrer" target="_blank">
                    {invoice.processor_invoice_id}
                  </a>
                ) : (
                  <code>{invoice.processor_invoice_id}</code>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Refunds(props: { refunds: Refund[] }) {
  if (props.refunds.length === 0)
    return (
      <Empty title="No refunds">Refunds the payment processor makes on your invoices are listed here.</Empty>
    );
  return (
    <div class="table-wrap">
      <table class="table billing-table">
        <caption class="visually-hidden">Refunds, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col" class="num">
              Amount
            </th>
            <th scope="col">Status</th>
            <th scope="col">Reason</th>
            <th scope="col">Invoice</th>
            <th scope="col">Reference</th>
          </tr>
        </thead>
        <tbody>
          {props.refunds.map((r) => (
            <tr key={r.id}>
              <td>{formatDay(r.created_at)}</td>
              <td class="num">{cents(r.amount, r.currency)}</td>
              <td>
                <Pill tone={REFUND_TONE[r.status]}>{r.status}</Pill>
              </td>
              <td>{r.reason ? words(r.reason) : (r.description ?? <span class="muted">—</span>)}</td>
              <td>{r.invoice_id ? <code>{r.invoice_id}</code> : <span class="muted">—</span>}</td>
              <td>
                <code>{r.processor_refund_id}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function HistorySection(props: { events: BillingEvent[]; invoices: Invoice[]; refunds: Refund[] }) {
  return (
    <Section title="Invoices and history">
      <div data-testid="billing-invoices">
        <p class="muted small">
          Invoices are issued and sent by the payment processor; the console lists them as it reported them,
          the refunds made on them and every change to the subscription.
        </p>
        <h3>Invoices</h3>
        <Invoices invoices={props.invoices} />
        <h3>Refunds</h3>
        <Refunds refunds={props.refunds} />
        <h3>Subscription changes</h3>
        <Events events={props.events} />
      </div>
    </Section>
  );
}
