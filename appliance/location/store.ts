import type { ApplianceDatabase } from '../db/index.ts';
import type { WeeklyHours } from './calendar.ts';

export const LOCATION_STATUSES = ['open', 'closed', 'temporarily_closed'] as const;
export type LocationStatus = (typeof LOCATION_STATUSES)[number];

export interface LocationSettings {
  location_id: string;
  name: string;
  timezone: string;
  /** ISO 4217 code. */
  currency: string;
  /** Basis points: 825 is 8.25 %. */
  tax_rate_bps: number;
  /** Local 'HH:MM' at which a new business day begins. */
  business_day_starts_at: string;
  status: LocationStatus;
  hours: WeeklyHours;
  version: number;
  updated_at: string;
}

type SettingsRow = Omit<LocationSettings, 'hours'> & { hours: string };

const COLUMNS =
  'location_id, name, timezone, currency, tax_rate_bps, business_day_starts_at, status, hours, version, updated_at';

const toRow = (settings: LocationSettings): SettingsRow => ({
  ...settings,
  hours: JSON.stringify(settings.hours),
});

export function createLocationStore(db: ApplianceDatabase) {
  const statements = {
    insert: db.prepare(
      `insert into location_settings (${COLUMNS}) values (@location_id, @name, @timezone, @currency,
         @tax_rate_bps, @business_day_starts_at, @status, @hours, @version, @updated_at)`,
    ),
    update: db.prepare(
      `update location_settings set name = @name, timezone = @timezone, currency = @currency,
         tax_rate_bps = @tax_rate_bps, business_day_starts_at = @business_day_starts_at, status = @status,
         hours = @hours, version = @version, updated_at = @updated_at
       where location_id = @location_id`,
    ),
    get: db.prepare(`select ${COLUMNS} from location_settings limit 1`),
  };

  return {
    insert: (settings: LocationSettings) => void statements.insert.run(toRow(settings)),
    update: (settings: LocationSettings) => void statements.update.run(toRow(settings)),
    /** The single settings row, or undefined before the first start. */
    get: (): LocationSettings | undefined => {
      const row = statements.get.get() as SettingsRow | undefined;
      return row && { ...row, hours: JSON.parse(row.hours) as WeeklyHours };
    },
  };
}

export type LocationStore = ReturnType<typeof createLocationStore>;
