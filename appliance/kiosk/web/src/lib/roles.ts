import { MANAGER_ROLES } from '../../../../../shared/roles.ts';

/** Managers restart devices, change camera settings, calibrate, run a sync and correct punches. */
export const isManager = (roles: readonly string[]) =>
  roles.some((role) => (MANAGER_ROLES as readonly string[]).includes(role));
