import { sql } from 'kysely';
import type { Db } from '../db/index.ts';
import type { CommerceChildRow } from './tables.ts';

export interface OrderFilter {
  locationIds?: readonly string[] | undefined;
  businessDayFrom?: string | undefined;
  businessDayTo?: string | undefined;
  statuses?: readonly string[] | undefined;
  orderTypes?: readonly string[] | undefined;
  number?: string | undefined;
}

/** The key a page ends on, newest first: the next page starts strictly after it. */
export interface OrderKey {
  createdAt: string;
  id: string;
}

export function createCommerceStore(db: Db) {
  return {
    /** One page of the tenant's orders, newest first. */
    orders(tenantId: string, filter: OrderFilter, after: OrderKey | undefined, limit: number) {
      return db
        .selectFrom('commerce_orders')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .$if(filter.locationIds !== undefined, (q) => q.where('location_id', 'in', filter.locationIds!))
        .$if(filter.businessDayFrom !== undefined, (q) =>
          q.where('business_day', '>=', filter.businessDayFrom!),
        )
        .$if(filter.businessDayTo !== undefined, (q) => q.where('business_day', '<=', filter.businessDayTo!))
        .$if(filter.statuses !== undefined, (q) => q.where('status', 'in', filter.statuses!))
        .$if(filter.orderTypes !== undefined, (q) => q.where('order_type', 'in', filter.orderTypes!))
        .$if(filter.number !== undefined, (q) => q.where('number', '=', filter.number!))
        .$if(after !== undefined, (q) =>
          q.where(sql<boolean>`(created_at, id) < (${after!.createdAt}, ${after!.id})`),
        )
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
    },

    order: (tenantId: string, id: string) =>
      db
        .selectFrom('commerce_orders')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst(),

    payment: (tenantId: string, id: string) =>
      db
        .selectFrom('commerce_payments')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst(),

    /** The lines or payments of these orders. */
    childrenOf(
      table: 'commerce_order_items' | 'commerce_payments',
      tenantId: string,
      orderIds: readonly string[],
    ): Promise<CommerceChildRow[]> {
      if (orderIds.length === 0) return Promise.resolve([]);
      return db
        .selectFrom(table)
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('order_id', 'in', orderIds)
        .execute();
    },
  };
}

export type CommerceStore = ReturnType<typeof createCommerceStore>;
