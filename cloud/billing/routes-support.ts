import type { FastifyRequest } from 'fastify';
import { requireAuth } from '../gateway/index.ts';

export const doc = (summary: string, description?: string) => ({
  tags: ['billing'],
  security: [{ bearer: [] }],
  summary,
  ...(description ? { description } : {}),
});

export const tenant = (request: FastifyRequest) => requireAuth(request).tenantId;

/** 204: no body. */
export const NoContent = { type: 'null', description: 'No content' } as const;
