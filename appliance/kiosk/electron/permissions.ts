/**
 * What the kiosk's page may ask the browser for. The operator UI plays alert sounds, which needs
 * no permission (the window's autoplay policy lets audio start without a tap); camera, microphone,
 * screen capture, notifications, geolocation, devices and the rest are refused, and nothing is
 * granted to a page that is not the kiosk's own origin.
 */
import { isAllowedNavigation } from './navigation.ts';

const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set(['fullscreen']);

/** `requestingUrl` is the requesting page's URL or origin (Electron passes either). */
export function isPermissionAllowed(permission: string, requestingUrl: string, origin: string): boolean {
  return ALLOWED_PERMISSIONS.has(permission) && isAllowedNavigation(requestingUrl, origin);
}
