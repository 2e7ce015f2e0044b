/**
 * Payments: what a store's terminals report for an order, by card or in cash, and the day's sales
 * that money makes. Owns the payments table; reads orders only through the orders service.
 */

export { paymentRoutes } from './routes.ts';
export type { SalesCalendar, SalesToday } from './sales.ts';
export {
  createPaymentService,
  eventData as paymentEventData,
  type OrderBilling,
  type Payment,
  type PaymentInput,
  type PaymentService,
} from './service.ts';
