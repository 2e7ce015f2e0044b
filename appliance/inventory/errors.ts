import { ConflictError, InvalidRequestError, NotFoundError } from '../../shared/http/errors.ts';

export const inventoryItemNotFound = () => new NotFoundError('Inventory item', 'INVENTORY_ITEM_NOT_FOUND');
export const nameTaken = () =>
  new ConflictError('An inventory item already has that name', 'INVENTORY_NAME_TAKEN', [
    { field: 'body.name', message: 'is already used' },
  ]);
export const invalid = (field: string, message: string) =>
  new InvalidRequestError('The request is invalid', [{ field, message }]);
