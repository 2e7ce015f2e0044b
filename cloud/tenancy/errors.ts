import { ConflictError, InvalidRequestError, NotFoundError } from '../../shared/http/errors.ts';

export const tenantNotFound = () => new NotFoundError('Tenant', 'TENANT_NOT_FOUND');
export const locationNotFound = () => new NotFoundError('Location', 'LOCATION_NOT_FOUND');
export const userNotFound = () => new NotFoundError('User', 'USER_NOT_FOUND');
export const groupNotFound = (kind: 'brands' | 'regions') =>
  new NotFoundError(
    kind === 'brands' ? 'Brand' : 'Region',
    kind === 'brands' ? 'BRAND_NOT_FOUND' : 'REGION_NOT_FOUND',
  );

export const slugTaken = (slug: string) =>
  new ConflictError(`A tenant with slug "${slug}" already exists`, 'TENANT_SLUG_TAKEN', [
    { field: 'body.slug', message: 'is already taken' },
  ]);
export const nameTaken = (field: string) =>
  new ConflictError('The name is already used in this tenant', 'NAME_TAKEN', [
    { field, message: 'is already used' },
  ]);
export const alreadyMember = () =>
  new ConflictError('The user is already a member of this tenant', 'USER_ALREADY_MEMBER');
export const usernameTaken = () =>
  new ConflictError('The username is already taken', 'USERNAME_TAKEN', [
    { field: 'body.username', message: 'is already taken' },
  ]);
export const groupInUse = () =>
  new ConflictError('Locations still belong to it; move or delete them first', 'IN_USE');
export const accountShared = () =>
  new ConflictError(
    'This account also belongs to other tenants; only its owner or a platform operator can change its profile or credentials',
    'ACCOUNT_SHARED',
  );
export const accountExists = () =>
  new ConflictError(
    'An account with this email already exists; a platform operator can add it to this tenant (ctl user create)',
    'ACCOUNT_EXISTS',
    [{ field: 'body.email', message: 'already has an account' }],
  );
export const invalidTimezone = () =>
  new InvalidRequestError('The request is invalid', [
    { field: 'body.timezone', message: 'is not an IANA time zone' },
  ]);
export const invalidRoles = (unknown: string[]) =>
  new InvalidRequestError('The request is invalid', [
    { field: 'body.roles', message: `unknown roles: ${unknown.join(', ')}` },
  ]);
export const brandOrRegionMissing = (field: 'body.brand_id' | 'body.region_id') =>
  new InvalidRequestError('The request is invalid', [{ field, message: 'does not exist in this tenant' }]);
