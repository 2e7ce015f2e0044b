/**
 * Payments: what a store's terminals report for an order, by card or in cash. Owns the payments
 * table; reads orders only through the orders service.
 */
export {
  createPaymentService,
  type OrderBilling,
  type Payment,
  type PaymentInput,
  type PaymentService,
} from './service.ts';
