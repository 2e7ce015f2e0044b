/** On-call: schedules, rotations and overrides; who is on call for a team at an instant. */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Store } from '../db/index.ts';

export interface Person {
  name: string;
  email: string;
  phone?: string | null;
  push_token?: string | null;
  user_id?: string | null;
}

export interface OnCallNow {
  team: string;
  current: { primary: Person | null; secondary: Person | null };
  next_rotation: string | null;
}

export interface OncallDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
}

export function createOncallService(_deps: OncallDeps) {
  return {
    async current(_tenantId: string, _team: string, _at?: Date): Promise<OnCallNow | undefined> {
      return undefined;
    },
    async teams(_tenantId: string): Promise<string[]> {
      return [];
    },
  };
}

export type OncallService = ReturnType<typeof createOncallService>;

export async function oncallRoutes(_app: FastifyInstance, _options: { oncall: OncallService }) {}
