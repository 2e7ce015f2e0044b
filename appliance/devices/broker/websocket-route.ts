import type { FastifyInstance } from 'fastify';
import type { ApplianceBroker } from './index.ts';

export interface MqttWebSocketOptions {
  broker: ApplianceBroker;
}

/**
 * `GET /mqtt`: MQTT over WebSocket on the local API's port, for browser screens. No HTTP auth here:
 * browsers cannot set headers on a WebSocket, so the staff token travels as the MQTT password and
 * the broker checks it at CONNECT. Needs @fastify/websocket registered before it.
 */
export async function mqttWebSocketRoutes(app: FastifyInstance, opts: MqttWebSocketOptions) {
  app.get(
    '/mqtt',
    {
      websocket: true,
      schema: {
        tags: ['devices'],
        summary: 'MQTT 3.1.1 over WebSocket (subprotocol "mqtt"); the bearer token is the MQTT password',
      },
    },
    (socket, request) => opts.broker.handleWebSocket(socket, request.raw),
  );
}
