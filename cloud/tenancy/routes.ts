import type { FastifyInstance } from 'fastify';
import type { CloudServices } from '../services.ts';

export async function platformRoutes(_app: FastifyInstance, _opts: { services: CloudServices }) {}
