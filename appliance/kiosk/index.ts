/**
 * The kiosk: the operator UI the appliance serves at /kiosk/ and the WebSocket feed its screens live
 * on (server/). The browser UI (web/) and the Electron shell (electron/, packaging/) are built and
 * run apart; they reach the appliance over HTTP only.
 */
export { createSyncDrainWatch, kioskRoutes } from './server/index.ts';
