/** The messages between the chat bench, its cloud (server.ts) and its client processes (clients.ts). */
/** People per team channel: every team message reaches this many members. */
export const TEAM_SIZE = 10;

export type ServerRequest = { kind: 'incidents'; count: number; responders: number } | { kind: 'stop' };

export interface ServerReady {
  kind: 'ready';
  port: number;
  tenantId: string;
  users: Array<{ id: string; token: string }>;
  allHandsId: string;
  /** teams[i] is the channel of users i*TEAM_SIZE … (i+1)*TEAM_SIZE-1. */
  teams: string[];
  setupMs: number;
}

export interface IncidentTiming {
  kind: 'incidents';
  /** createIncidentChannel + postSystemMessage (summary) + broadcastIncident, per incident, ms. */
  durations: number[];
  /** The frames' `sent_at` (performance.timeOrigin + now) for end-to-end timing at the clients. */
  responders: string[][];
}

export type ClientRequest =
  | { kind: 'connect'; url: string; users: Array<{ id: string; token: string }> }
  | { kind: 'collect' }
  | { kind: 'close' };

export type ClientReply =
  | { kind: 'connected'; ok: number; failed: number; open: number; ms: number; errors: string[] }
  | { kind: 'samples'; message: number[]; incident: number[]; dropped: number };
