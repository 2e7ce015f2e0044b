/**
 * The store this appliance serves: its name, time zone, currency, tax rate, opening hours and
 * open/closed status, in a single settings row. It also answers the two questions orders need
 * answered the same way everywhere: which business day an instant belongs to, and the tax on a
 * subtotal. Writes go to the outbox, and hours and status changes emit their events, in one transaction.
 */
export {
  type BusinessTime,
  businessDayBounds,
  businessDayOf,
  businessTimeOf,
  type OpeningInterval,
  shiftBusinessDay,
  WEEKDAYS,
  type Weekday,
  type WeeklyHours,
} from './calendar.ts';
export { locationRoutes } from './routes.ts';
export {
  createLocationService,
  LOCATION_LIMITS,
  type LocationDefaults,
  type LocationDeps,
  type LocationPatch,
  type LocationService,
  taxOf,
} from './service.ts';
export { LOCATION_STATUSES, type LocationSettings, type LocationStatus } from './store.ts';
