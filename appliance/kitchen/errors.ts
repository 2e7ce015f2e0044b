import { AppError, ConflictError, InvalidRequestError, NotFoundError } from '../../shared/http/errors.ts';

export const stationNotFound = () => new NotFoundError('Kitchen station', 'STATION_NOT_FOUND');
export const ticketNotFound = () => new NotFoundError('Kitchen ticket', 'TICKET_NOT_FOUND');
export const ticketItemNotFound = () => new NotFoundError('Ticket item', 'TICKET_ITEM_NOT_FOUND');

/** A route naming a station that does not exist is a bad request about that field, not a 404. */
export const unknownStation = () =>
  new InvalidRequestError('The request is invalid', [
    { field: 'body.station_id', message: 'is not a kitchen station' },
  ]);

export const stationNameTaken = (name: string) =>
  new ConflictError(`A kitchen station named "${name}" already exists`, 'STATION_NAME_TAKEN', [
    { field: 'body.name', message: 'is already used by another station' },
  ]);

export const ticketNotDone = () =>
  new AppError(409, 'TICKET_NOT_DONE', 'Only a finished ticket can be recalled');
