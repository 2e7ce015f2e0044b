import type { FastifyRequest } from 'fastify';
import { requireAuth } from '../gateway/index.ts';

export const doc = { tags: ['oncall'], security: [{ bearer: [] }] };
export const NoContent = { type: 'null', description: 'No content' } as const;
export const tenant = (request: FastifyRequest) => requireAuth(request).tenantId;
