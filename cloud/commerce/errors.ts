import { AppError, InvalidRequestError, NotFoundError } from '../../shared/http/errors.ts';

export const orderNotFound = () => new NotFoundError('Order', 'ORDER_NOT_FOUND');
export const paymentNotFound = () => new NotFoundError('Payment', 'PAYMENT_NOT_FOUND');
export const locationNotFound = () => new NotFoundError('Location', 'LOCATION_NOT_FOUND');
/** The store's own rule and code: a completed or cancelled order cannot be cancelled. */
export const invalidTransition = (from: string, action: string) =>
  new AppError(409, 'INVALID_ORDER_STATE', `An order that is ${from} cannot be ${action}`);
export const notCaptured = (status: string) =>
  new AppError(409, 'PAYMENT_NOT_REFUNDABLE', `A payment that is ${status} cannot be refunded`);
export const notRefundable = (refundableMinor: number) =>
  new InvalidRequestError('The refund is more than the payment has left', [
    { field: 'body.amount_minor', message: `must be at most ${refundableMinor}` },
  ]);
