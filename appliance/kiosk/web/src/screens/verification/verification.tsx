/**
 * Orders checked at the pickup window: verified, or what was missing or extra. The recent orders'
 * stored checks are read on opening; the feed adds new ones as they happen. A person can say
 * whether the camera got a check right (its detection accuracy is made of these reviews).
 */
import { useMemo, useState } from 'preact/hooks';
import { useLoad } from '../../hooks.ts';
import { formatClock } from '../../lib/format.ts';
import { describeItems, type VerificationPayload } from '../../lib/mismatch.ts';
import type { Order } from '../../lib/orders.ts';
import { acknowledge } from '../../mismatches.ts';
import { api } from '../../session.ts';
import { rememberOrderNumbers, store, useStore } from '../../store.ts';
import type { Page, Verification } from '../../types.ts';
import './verification.css';

interface Row {
  id: string;
  orderId: string;
  verified: boolean;
  missing: VerificationPayload['missing_items'];
  extra: VerificationPayload['extra_items'];
  at: string;
}

async function loadRecent(): Promise<Row[]> {
  const orders = await api.get<Page<Order>>('/v1/commerce/orders?limit=20');
  rememberOrderNumbers(orders.items);
  const lists = await Promise.all(
    orders.items.map((o) =>
      api
        .get<{ verifications: Verification[] }>(
          `/api/vision/verifications?order_id=${encodeURIComponent(o.id)}`,
        )
        .then((r) => r.verifications)
        .catch(() => []),
    ),
  );
  return lists.flat().map(toRow);
}

const toRow = (v: Verification | VerificationPayload): Row => ({
  id: (('verification_id' in v && v.verification_id) || v.id) ?? '',
  orderId: v.order_id,
  verified: v.missing_items.length === 0 && v.extra_items.length === 0,
  missing: v.missing_items,
  extra: v.extra_items,
  at: v.created_at ?? '',
});

function ReviewButtons(props: { row: Row }) {
  const [state, setState] = useState<'idle' | 'busy' | 'done' | string>('idle');
  const review = async (correct: boolean) => {
    setState('busy');
    try {
      await api.post(`/api/vision/verifications/${encodeURIComponent(props.row.id)}/review`, { correct });
      const open = store.get().mismatches.find((m) => m.verificationId === props.row.id);
      if (open) acknowledge(open);
      setState('done');
    } catch (e) {
      setState((e as Error).message);
    }
  };
  if (state === 'done') return <span class="muted">Reviewed, thank you</span>;
  return (
    <div class="row-actions">
      <button type="button" class="btn" disabled={state === 'busy'} onClick={() => review(true)}>
        Camera right
      </button>
      <button type="button" class="btn" disabled={state === 'busy'} onClick={() => review(false)}>
        Camera wrong
      </button>
      {state !== 'idle' && state !== 'busy' && <span class="error-text">{state}</span>}
    </div>
  );
}

export function VerificationScreen() {
  const recent = useLoad(loadRecent);
  const live = useStore((s) => s.verifications);
  const numbers = useStore((s) => s.orderNumbers);
  const timeZone = useStore((s) => s.timeZone);
  const rows = useMemo(() => {
    const byId = new Map<string, Row>();
    for (const row of [...live.map(toRow), ...(recent.data ?? [])])
      if (!byId.has(row.id)) byId.set(row.id, row);
    return [...byId.values()].sort((a, b) => b.at.localeCompare(a.at));
  }, [live, recent.data]);

  return (
    <div class="verification-screen">
      <h2>Pickup checks</h2>
      {recent.error && <p class="error-text">Stored checks could not be read: {recent.error.message}</p>}
      {!recent.data && !recent.error && rows.length === 0 && <p class="muted">Loading…</p>}
      {recent.data && rows.length === 0 && <p class="empty">No orders checked yet today.</p>}
      <ul class="checks">
        {rows.map((row) => (
          <li key={row.id} class={`check ${row.verified ? 'ok' : 'bad'}`} data-testid="verification-row">
            <div class="check-head">
              <span class="order-number">#{numbers[row.orderId] ?? row.orderId.slice(0, 8)}</span>
              <span class={`badge ${row.verified ? 'ok' : 'bad'}`}>
                {row.verified ? 'Verified' : 'Mismatch'}
              </span>
              <span class="muted">{formatClock(row.at, { timeZone })}</span>
            </div>
            {row.missing.length > 0 && <p class="check-line">Missing: {describeItems(row.missing)}</p>}
            {row.extra.length > 0 && <p class="check-line">Extra: {describeItems(row.extra)}</p>}
            {row.verified && <p class="check-line muted">All items seen.</p>}
            <ReviewButtons row={row} />
          </li>
        ))}
      </ul>
    </div>
  );
}
