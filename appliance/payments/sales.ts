import type { BusinessTime } from '../location/index.ts';

export { type Sale, type SalesToday, summarizeSales } from '../../shared/commerce/sales.ts';

/** What the sales figures need from the store's location: its currency and its business time. */
export interface SalesCalendar {
  get(): { currency: string };
  businessTime(at: Date): BusinessTime;
}
