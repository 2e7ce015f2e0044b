import {
  AppError,
  ConflictError,
  type ErrorDetail,
  InvalidRequestError,
  NotFoundError,
} from '../../shared/http/errors.ts';
import type { RolloutState } from './rollouts-tables.ts';

/** The rollouts' error codes, answered in the general error envelope. */
export const rolloutNotFound = () => new NotFoundError('Rollout', 'ROLLOUT_NOT_FOUND');

export const invalidTarget = (details: ErrorDetail[]) =>
  new InvalidRequestError('The request is invalid', details);

export const releaseRetired = () =>
  new ConflictError('The release is retired; roll out a release that is not', 'RELEASE_RETIRED', [
    { field: 'body.release_id', message: 'is retired' },
  ]);

export const emptyTarget = (locations: number) =>
  new AppError(
    422,
    'EMPTY_TARGET',
    locations === 0
      ? 'The target names no active store'
      : `None of the ${locations} targeted stores has an enrolled appliance`,
    { details: [{ field: 'body.target', message: 'reaches no appliance' }] },
  );

export const invalidWaves = (details: ErrorDetail[]) =>
  new AppError(422, 'INVALID_WAVES', 'The waves do not fit the targeted stores', { details });

export const storesInAnotherRollout = (locationIds: readonly string[]) =>
  new ConflictError(
    'Some targeted stores already take part in another unfinished rollout; finish, abort or exclude them there first',
    'STORES_IN_ANOTHER_ROLLOUT',
    locationIds.map((id) => ({ field: 'body.target', message: `store ${id} is in another rollout` })),
  );

export const rolloutEnded = (state: RolloutState) =>
  new ConflictError(`The rollout is ${state}; nothing more can change`, 'ROLLOUT_ENDED');

export const wrongRolloutState = (state: RolloutState, action: string) =>
  new ConflictError(`The rollout is ${state}, so it cannot be ${action}`, 'ROLLOUT_STATE');

export const failuresOverThreshold = (share: number, threshold: number, failing: readonly string[]) =>
  new ConflictError(
    `The current wave's failure share (${share.toFixed(2)}) is still over the threshold (${threshold}); exclude or retry the failed stores first`,
    'FAILURES_OVER_THRESHOLD',
    failing.map((id) => ({ field: 'location_ids', message: `store ${id} failed or rolled back` })),
  );

export const storesNotInRollout = (details: ErrorDetail[]) =>
  new AppError(422, 'STORES_NOT_APPLICABLE', 'Some stores cannot take this action', { details });
