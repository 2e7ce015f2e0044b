import {
  AppError,
  ConflictError,
  ForbiddenError,
  InvalidRequestError,
  NotFoundError,
} from '../../shared/http/errors.ts';

/** The chat module's error codes, answered in the general error envelope. */

// A channel the caller may not see answers exactly like one that does not exist.
export const channelNotFound = () => new NotFoundError('Channel', 'CHANNEL_NOT_FOUND');
export const memberNotFound = () => new NotFoundError('Channel member', 'CHANNEL_MEMBER_NOT_FOUND');

export const invalidField = (field: string, message: string) =>
  new InvalidRequestError('The request is invalid', [{ field, message }]);

export const messageTooLarge = (size: number, limit: number) =>
  new AppError(
    413,
    'MESSAGE_TOO_LARGE',
    `The message content is ${size} bytes of UTF-8; the limit is ${limit} bytes`,
    { details: [{ field: 'body.content', message: `is ${size} bytes; at most ${limit} bytes are allowed` }] },
  );

export const notOwner = () =>
  new ForbiddenError('Only an owner of the channel may do this', 'CHANNEL_OWNER_REQUIRED');

export const directChannelFixed = () =>
  new ConflictError(
    'A direct channel always has exactly its two people; nobody joins or leaves it',
    'DIRECT_CHANNEL_FIXED',
  );

export const chatDisabled = () => new AppError(503, 'CHAT_DISABLED', 'Chat is switched off (CHAT_ENABLED)');
