/**
 * The stores' time clocks and calendars as head office reads them: projections of the synced
 * `time_punches` and `location_settings` rows, written in the transaction that brings them.
 */

/** A punch as its store holds it, placed on the store's business day. */
export interface CommercePunchRow {
  tenant_id: string;
  location_id: string;
  id: string;
  staff_id: string;
  kind: string;
  /** ISO instant, as the store wrote it: punches sort by it. */
  at: string;
  note: string | null;
  corrected_by: string | null;
  reason: string | null;
  created_at: string;
  /** The store's business day `at` fell on, by its calendar when the punch arrived or last changed. */
  business_day: string;
  version: number;
}

/** How a store counts its days and money, from its own settings as it last synced them. */
export interface CommerceCalendarRow {
  tenant_id: string;
  location_id: string;
  timezone: string;
  business_day_starts_at: string;
  currency: string;
  version: number;
}

export interface TimeclockTables {
  commerce_punches: CommercePunchRow;
  commerce_calendars: CommerceCalendarRow;
}
