import http, { type ClientRequest, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { EdgeConfig } from './config.ts';
import {
  type Exchange,
  type GatewayAnswer,
  GatewayPool,
  type GatewayRequest,
  UpstreamTimeout,
} from './exchange.ts';

export { type GatewayAnswer, UpstreamTimeout } from './exchange.ts';

/** The gateway as the router reaches it: a keep-alive pool for requests, a socket per WebSocket. */
export interface Upstream {
  request(request: GatewayRequest, answer: GatewayAnswer): Exchange;
  /** A WebSocket upgrade, over node:http (an upgraded socket leaves any pool for good). */
  upgrade(method: string, path: string, headers: OutgoingHttpHeaders | string[]): ClientRequest;
  close(): Promise<void>;
}

export const isTimeout = (error: Error) => error instanceof UpstreamTimeout;

type Timeouts = Pick<EdgeConfig, 'gatewayUrl' | 'connectTimeoutMs' | 'upstreamTimeoutMs'>;

function upgradeRequest(config: Timeouts) {
  const secure = config.gatewayUrl.protocol === 'https:';
  const target = {
    protocol: config.gatewayUrl.protocol,
    hostname: config.gatewayUrl.hostname.replace(/^\[|\]$/g, ''),
    port: Number(config.gatewayUrl.port),
    agent: false as const,
  };
  return (method: string, path: string, headers: OutgoingHttpHeaders | string[]) => {
    const outgoing = (secure ? https : http).request({ ...target, method, path, headers });
    outgoing.on('socket', (socket) => {
      const timer = setTimeout(
        () => outgoing.destroy(new UpstreamTimeout('gateway connect timed out')),
        config.connectTimeoutMs,
      );
      const clear = () => clearTimeout(timer);
      socket.once(secure ? 'secureConnect' : 'connect', clear).once('close', clear);
    });
    outgoing.setTimeout(config.upstreamTimeoutMs, () =>
      outgoing.destroy(new UpstreamTimeout('gateway did not answer in time')),
    );
    return outgoing;
  };
}

export function createUpstream(config: Timeouts): Upstream {
  // Idle time, not total time: a long upload or download that keeps moving is not cut off.
  const pool = new GatewayPool({
    origin: config.gatewayUrl,
    connectTimeoutMs: config.connectTimeoutMs,
    upstreamTimeoutMs: config.upstreamTimeoutMs,
  });
  return {
    request: (request, answer) => pool.request(request, answer),
    upgrade: upgradeRequest(config),
    close: () => pool.close(),
  };
}
