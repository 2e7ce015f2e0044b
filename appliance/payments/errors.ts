import { AppError, InvalidRequestError, NotFoundError } from '../../shared/http/errors.ts';

export const paymentNotFound = () => new NotFoundError('Payment', 'PAYMENT_NOT_FOUND');
export const overpayment = (dueMinor: number) =>
  new InvalidRequestError('The payment is more than the order still owes', [
    { field: 'body.amount', message: `must be at most ${(dueMinor / 100).toFixed(2)}, what is still due` },
  ]);
export const orderNotPayable = (status: string) =>
  new AppError(409, 'ORDER_NOT_PAYABLE', `An order that is ${status} cannot take payments`);
export const notVoidable = (status: string) =>
  new AppError(
    409,
    'PAYMENT_NOT_VOIDABLE',
    `Only an authorized payment can be voided; this one is ${status}`,
  );
export const notCapturable = (status: string) =>
  new AppError(
    409,
    'PAYMENT_NOT_CAPTURABLE',
    `Only an authorized payment can be captured; this one is ${status}`,
  );
export const notRefundable = (refundableMinor: number) =>
  new InvalidRequestError('The refund is more than the payment has left', [
    { field: 'body.amount', message: `must be at most ${(refundableMinor / 100).toFixed(2)}` },
  ]);
export const duplicateTransaction = () =>
  new AppError(409, 'DUPLICATE_TRANSACTION', 'This card transaction has already been recorded', {
    details: [{ field: 'body.transaction_id', message: 'is already recorded' }],
  });
export const cardDetailsMissing = () =>
  new InvalidRequestError('The request is invalid', [
    { field: 'body.card', message: 'brand, last4 and transaction_id are required for card payments' },
  ]);
