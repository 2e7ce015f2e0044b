import {
  ConflictError,
  type ErrorDetail,
  InvalidRequestError,
  NotFoundError,
} from '../../shared/http/errors.ts';

export const itemNotFound = () => new NotFoundError('Menu item', 'MENU_ITEM_NOT_FOUND');
export const categoryNotFound = () => new NotFoundError('Menu category', 'MENU_CATEGORY_NOT_FOUND');

export const invalid = (details: ErrorDetail[]) => new InvalidRequestError('The request is invalid', details);

/** An item naming a category that does not exist is a bad request about that field, not a 404. */
export const unknownCategory = () =>
  invalid([{ field: 'body.category_id', message: 'is not a menu category' }]);

export const categoryNameTaken = (name: string) =>
  new ConflictError(`A menu category named "${name}" already exists`, 'MENU_CATEGORY_NAME_TAKEN', [
    { field: 'body.name', message: 'is already used by another category' },
  ]);
