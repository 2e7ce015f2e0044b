/** docs/devices.md and docs/releases.md: these roles act on devices and rollouts; managers only look. */
import { useUser } from '../../session.ts';

const DEVICE_ADMIN_ROLES = ['tenant_admin', 'platform_admin', 'system_admin', 'super_admin'];

export function useCanManageDevices() {
  const user = useUser();
  return (user?.roles ?? []).some((role) => DEVICE_ADMIN_ROLES.includes(role));
}
