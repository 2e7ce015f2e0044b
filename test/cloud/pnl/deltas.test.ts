import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../shared/ids.ts';
import { backends } from '../../support/stores.ts';
import { item, member, ok, order, payment, pnlCloud, type Row, removal, seedChain } from './pnl-cloud.ts';

const DAYS = ['2026-05-04', '2026-05-05', '2026-05-06'];
const MENU = ['m-burger', 'm-fries', 'm-soda'];

interface OrderModel {
  id: string;
  day: string;
  status: string;
  subtotal: number;
  pushed: boolean;
  deleted: boolean;
}
interface LineModel {
  id: string;
  orderId: string;
  menu: string;
  quantity: number;
  deleted: boolean;
}
interface PaymentModel {
  id: string;
  orderId: string;
  refunded: number;
  deleted: boolean;
}

function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (below: number) => Math.floor(next() * below);
  return { next, int, pick: <T>(items: readonly T[]) => items[int(items.length)]! };
}

/**
 * A store's rows as the appliance would push them over a few days: orders placed, cancelled,
 * moved to another business day, repriced and deleted; items and payments arriving before or
 * after their order, changed and deleted; rows sent again. The model is what the rows are now.
 */
function createStoreModel(seed: number) {
  const rand = random(seed);
  const orders: OrderModel[] = [];
  const lines: LineModel[] = [];
  const payments: PaymentModel[] = [];
  const live = <T extends { deleted: boolean }>(rows: T[]) => rows.filter((r) => !r.deleted);
  const orderRow = (o: OrderModel) => order(o.day, { id: o.id, status: o.status, subtotal: o.subtotal });
  const lineRow = (l: LineModel) => item(l.orderId, l.menu, l.quantity, 100, l.id);
  const paymentRow = (p: PaymentModel) => payment(p.orderId, 1000, p.refunded, p.id);

  const steps: Array<[number, () => Row | undefined]> = [
    [
      4,
      () => {
        const o = orders.find((x) => !x.pushed) ?? newOrder();
        o.pushed = true;
        return orderRow(o);
      },
    ],
    [3, () => newLine(rand.next() < 0.2 ? newOrder() : rand.pick(orders))],
    [2, () => newPayment(rand.next() < 0.2 ? newOrder() : rand.pick(orders))],
    [2, () => changeOrder((o) => (o.status = o.status === 'cancelled' ? 'completed' : 'cancelled'))],
    [2, () => changeOrder((o) => (o.day = rand.pick(DAYS)))],
    [1, () => changeOrder((o) => (o.subtotal = 100 + rand.int(5000)))],
    [1, () => changeOrder((o) => o)],
    [1, () => changeOrder((o) => (o.deleted = true))],
    [2, () => change(live(lines), (l) => (l.quantity = 1 + rand.int(4)), lineRow)],
    [1, () => change(live(lines), (l) => (l.menu = rand.pick(MENU)), lineRow)],
    [1, () => change(live(lines), (l) => (l.deleted = true), lineRow)],
    [1, () => change(live(payments), (p) => (p.refunded = rand.int(500)), paymentRow)],
    [1, () => change(live(payments), (p) => (p.deleted = true), paymentRow)],
  ];
  const weights = steps.reduce((sum, [w]) => sum + w, 0);

  function newOrder() {
    const o = {
      id: newId(),
      day: rand.pick(DAYS),
      status: 'completed',
      subtotal: 100 + rand.int(5000),
      pushed: false,
      deleted: false,
    };
    orders.push(o);
    return o;
  }
  function newLine(o: OrderModel | undefined) {
    if (!o || o.deleted) return undefined;
    const l = {
      id: newId(),
      orderId: o.id,
      menu: rand.pick(MENU),
      quantity: 1 + rand.int(3),
      deleted: false,
    };
    lines.push(l);
    return lineRow(l);
  }
  function newPayment(o: OrderModel | undefined) {
    if (!o || o.deleted) return undefined;
    const p = { id: newId(), orderId: o.id, refunded: rand.next() < 0.3 ? rand.int(800) : 0, deleted: false };
    payments.push(p);
    return paymentRow(p);
  }
  function change<T extends { id: string; deleted: boolean }>(
    rows: T[],
    edit: (row: T) => void,
    toRow: (row: T) => Row,
  ) {
    if (rows.length === 0) return undefined;
    const row = rand.pick(rows);
    edit(row);
    return row.deleted ? removal(toRow(row)[0], row.id) : toRow(row);
  }
  function changeOrder(edit: (o: OrderModel) => void) {
    return change(
      live(orders).filter((o) => o.pushed),
      edit,
      orderRow,
    );
  }

  return {
    batch(size: number) {
      const rows: Row[] = [];
      while (rows.length < size) {
        let roll = rand.int(weights);
        let index = 0;
        while (roll >= steps[index]![0]) roll -= steps[index++]![0];
        const row = steps[index]![1]();
        if (row) rows.push(row);
      }
      return rows;
    },
    /** The day rollups a rebuild from the current rows would hold (zeros left out). */
    expected() {
      const counted = new Map(
        orders.filter((o) => o.pushed && !o.deleted && o.status !== 'cancelled').map((o) => [o.id, o]),
      );
      const days = new Map<string, { gross: number; refund: number }>();
      const day = (d: string) => days.get(d) ?? days.set(d, { gross: 0, refund: 0 }).get(d)!;
      for (const o of counted.values()) day(o.day).gross += o.subtotal;
      for (const p of live(payments))
        if (counted.has(p.orderId)) day(counted.get(p.orderId)!.day).refund += p.refunded;
      const units = new Map<string, number>();
      for (const l of live(lines)) {
        const o = counted.get(l.orderId);
        if (!o) continue;
        const key = `${o.day} ${l.menu}`;
        units.set(key, (units.get(key) ?? 0) + l.quantity);
      }
      return { days, units };
    },
  };
}

describe.each(backends)('P&L rollups moved by each row’s difference (%s)', (backend) => {
  let cloud: Awaited<ReturnType<typeof pnlCloud>>;

  beforeAll(async () => {
    cloud = await pnlCloud(backend);
  });

  afterAll(async () => {
    await cloud?.close();
  });

  it('equal a rebuild from the rows as they are now, after changes, moves, cancellations, deletes and re-sends', async () => {
    const chain = await seedChain(cloud, `deltas-${backend}`, {
      brands: ['Burgers'],
      regions: ['North'],
      stores: [{ name: 'D1', brand: 0, region: 0 }],
    });
    const store = chain.stores[0]!;
    const model = createStoreModel(backend === 'pg' ? 7 : 11);
    for (let n = 0; n < 40; n++) await store.push(model.batch(15));

    const { days, units } = model.expected();
    const db = cloud.store.db;
    const rolled = await db
      .selectFrom('pnl_days')
      .select(['business_day', 'gross_minor', 'refund_minor'])
      .where('tenant_id', '=', chain.tenant.id)
      .execute();
    const nonZero = (entries: Array<[string, { gross: number; refund: number }]>) =>
      Object.fromEntries(entries.filter(([, v]) => v.gross !== 0 || v.refund !== 0).sort());
    expect(
      nonZero(
        rolled.map((r) => [r.business_day, { gross: Number(r.gross_minor), refund: Number(r.refund_minor) }]),
      ),
    ).toEqual(nonZero([...days]));

    const items = await db
      .selectFrom('pnl_day_items')
      .select(['business_day', 'menu_item_id', 'quantity'])
      .where('tenant_id', '=', chain.tenant.id)
      .execute();
    expect(
      Object.fromEntries(items.map((r) => [`${r.business_day} ${r.menu_item_id}`, Number(r.quantity)])),
    ).toEqual(Object.fromEntries(units));

    const admin = await member(cloud, chain.tenant.id, `admin@deltas-${backend}.test`, ['tenant_admin']);
    const report = ok(
      await admin.call('POST', `/api/v1/pnl/brand/${chain.brands[0]!.id}`, {
        start_date: DAYS[0],
        end_date: DAYS.at(-1),
      }),
    );
    const sum = (pick: (d: { gross: number; refund: number }) => number) =>
      [...days.values()].reduce((total, d) => total + pick(d), 0);
    expect(Math.round(report.revenue.gross_revenue * 100)).toBe(sum((d) => d.gross));
    expect(Math.round(report.revenue.refunds * 100)).toBe(-sum((d) => d.refund));
  }, 120_000);
});
