/**
 * The store's devices: the MQTT broker they talk to (TLS with device certificates, WebSocket for
 * browser screens), its ACL, and its persistence on the appliance's disk; the registry of what
 * it sees of them (status, telemetry, alerts) and the commands passed on to them.
 */
export {
  type ApplianceBroker,
  type BrokerOptions,
  type BrokerPrincipal,
  DEFAULT_MAX_PACKET_BYTES,
  startBroker,
} from './broker/index.ts';
export { mqttWebSocketRoutes } from './broker/websocket-route.ts';
export {
  attachDeviceRegistry,
  createDeviceCommands,
  createDeviceRegistry,
  type DeviceCommands,
  type DeviceRegistry,
  type DeviceRegistryOptions,
  DeviceSettingsSchema,
  deviceRoutes,
} from './registry/index.ts';
