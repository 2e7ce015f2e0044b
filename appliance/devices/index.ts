/**
 * The store's devices: the MQTT broker they talk to (TLS with device certificates, WebSocket for
 * browser screens), its ACL, and its persistence on the appliance's disk.
 */
export {
  type ApplianceBroker,
  type BrokerOptions,
  type BrokerPrincipal,
  startBroker,
} from './broker/index.ts';
export { mqttWebSocketRoutes } from './broker/websocket-route.ts';
