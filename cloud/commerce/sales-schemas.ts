import { Type } from '@sinclair/typebox';
import { SALES_TODAY_DESCRIPTION, salesTodayFields } from '../../shared/commerce/sales.ts';

const Uuid = Type.String({ format: 'uuid' });
const Minor = Type.Integer({ description: 'minor units (cents)' });

export const SalesTodayQuerySchema = Type.Object(
  { location_id: { ...Uuid, description: 'The store' } },
  { additionalProperties: false },
);

export const StoreSalesTodaySchema = Type.Object(
  { location_id: Uuid, ...salesTodayFields },
  { description: SALES_TODAY_DESCRIPTION },
);

export const SalesSummaryQuerySchema = Type.Object(
  {
    brand_id: Type.Optional({ ...Uuid, description: 'Only this brand’s stores' }),
    region_id: Type.Optional({ ...Uuid, description: 'Only this region’s stores' }),
  },
  { additionalProperties: false },
);

const Figures = { orders: Type.Integer({ description: 'Orders that count as sales' }), sales_minor: Minor };

export const SalesSummarySchema = Type.Object({
  stores: Type.Array(
    Type.Object({
      location_id: Uuid,
      name: Type.String(),
      business_day: Type.String({ format: 'date', description: 'The store’s business day now' }),
      currency: Type.String(),
      ...Figures,
    }),
    { description: 'By name' },
  ),
  totals: Type.Array(Type.Object({ currency: Type.String(), ...Figures }), {
    description: 'The stores’ figures added up, one entry per currency',
  }),
});
