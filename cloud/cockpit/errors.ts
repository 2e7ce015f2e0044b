import { AppError, ConflictError, InvalidRequestError, NotFoundError } from '../../shared/http/errors.ts';
import type { ApprovalStatus, DecisionAction } from './tables.ts';

/** The cockpit's error codes, answered in the general error envelope. */
export const approvalNotFound = () => new NotFoundError('Approval item', 'APPROVAL_NOT_FOUND');

const ALLOWED: Record<DecisionAction, string> = {
  approve: 'only a pending or escalated item can be approved',
  approve_with_note: 'only a pending or escalated item can be approved',
  modify: 'only a pending or escalated item can be modified and approved',
  reject: 'only a pending or escalated item can be rejected',
  escalate: 'only a pending item can be escalated',
};

export const alreadyDecided = (status: ApprovalStatus, action: DecisionAction) =>
  new ConflictError(`The approval item is ${status}; ${ALLOWED[action]}`, 'APPROVAL_ALREADY_DECIDED', [
    { field: 'status', message: `is ${status}` },
  ]);

export const invalidField = (field: string, message: string) =>
  new InvalidRequestError('The request is invalid', [{ field, message }]);

/** The kill switch stops every agent action of the tenant, automatic or asked for by hand. */
export const killSwitchOn = () =>
  new AppError(
    423,
    'AGENTS_KILL_SWITCH',
    'The agent kill switch is on for this tenant: no remediation runs until an operator turns it off',
    { details: [{ field: 'kill_switch', message: 'is on' }] },
  );
