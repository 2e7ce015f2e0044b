import { AppError, InvalidRequestError, NotFoundError } from '../../shared/http/errors.ts';

export const orderNotFound = () => new NotFoundError('Order', 'ORDER_NOT_FOUND');
export const itemNotFound = () => new NotFoundError('Order item', 'ORDER_ITEM_NOT_FOUND');
export const notEditable = (status: string) =>
  new AppError(409, 'ORDER_NOT_EDITABLE', `Items can only change while the order is open; it is ${status}`);
export const invalidTransition = (from: string, action: string) =>
  new AppError(409, 'INVALID_ORDER_STATE', `An order that is ${from} cannot be ${action}`);
export const emptyOrder = () => new AppError(409, 'ORDER_EMPTY', 'An order needs at least one item first');
export const unknownMenuItems = (fields: string[]) =>
  new InvalidRequestError(
    'The request is invalid',
    fields.map((field) => ({ field, message: 'is not an item on this store’s menu' })),
  );
export const unavailableMenuItems = (fields: string[]) =>
  new InvalidRequestError(
    'The request is invalid',
    fields.map((field) => ({ field, message: 'is not available right now' })),
  );
